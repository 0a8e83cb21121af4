/**
 * A card payment recorded as declined while the bank waited for the cardholder (3-D Secure) and
 * confirmed as paid later: by Stripe's webhook, by the return to `/pay/authenticate/…`, or by the
 * re-check of a webhook that came before the page's own request settled (stripe-webhooks.server.ts).
 * Each of them comes here, so the payment is recorded once (recordLateCardPayment: a conditional
 * UPDATE from `declined`) and the tenant gets the receipt e-mail an ordinary portal payment sends,
 * once: only the caller whose UPDATE switched the row sends it (decision 410).
 */
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, leases, locations, payments, websites } from "~/db/schema";
import { logger } from "~/logger.server";
import { recordLateCardPayment, storageFor } from "~/storage-software/index.server";
import { sendEmail } from "./email.server";
import { receiptEmail } from "./receipt-email.server";
import { publicOrigin } from "./site-origin.server";

export type LatePaymentRecorded = Awaited<ReturnType<typeof recordLateCardPayment>>;

/** Records the late success once and, the one time it is recorded, e-mails the tenant the receipt. */
export async function recordLatePayment(db: Database, input: { idempotencyKey: string; amount: number; authReference: string; now: Date }): Promise<LatePaymentRecorded> {
  const outcome = await recordLateCardPayment(db, input);
  if (outcome === "recorded") {
    try {
      await emailLateReceipt(db, input.idempotencyKey);
    } catch (error) {
      // The payment is recorded; a receipt that could not be written is logged, never a failed webhook
      // (which Stripe would send again, finding the payment recorded and sending nothing).
      logger.error({ err: error, key: input.idempotencyKey }, "[payments] the receipt of a payment recorded late could not be queued");
    }
  }
  return outcome;
}

/** The receipt e-mail (the portal's, receiptEmail) of the approved payment with this key, through the outbox; links from the configured origin. */
async function emailLateReceipt(db: Database, idempotencyKey: string): Promise<void> {
  const [row] = await db
    .select({
      paymentId: payments.id,
      tenantId: payments.tenantId,
      location: { id: locations.id, name: locations.name, software: locations.software, status: locations.status },
      domain: websites.domain,
      siteName: websites.websiteName,
    })
    .from(payments)
    .innerJoin(leases, eq(leases.id, payments.leaseId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .innerJoin(websites, eq(websites.accountId, accounts.id))
    .where(eq(payments.idempotencyKey, idempotencyKey))
    .limit(1);
  if (!row || row.tenantId === null) return;
  const storage = storageFor(db, row.location);
  const tenantId = String(row.tenantId);
  const [tenant, receipt] = await Promise.all([storage.getTenant(tenantId), storage.getReceipt(tenantId, String(row.paymentId))]);
  if (!tenant?.email || !receipt) return;
  await sendEmail(
    db,
    receiptEmail({
      tenant: { email: tenant.email, firstName: tenant.firstName },
      receipt,
      payment: { ...receipt.payment, id: String(row.paymentId) },
      origin: publicOrigin({ domain: row.domain }),
      siteName: row.siteName,
    }),
  );
}
