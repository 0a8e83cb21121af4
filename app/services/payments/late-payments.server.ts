/**
 * A card payment recorded as declined while the bank waited for the cardholder (3-D Secure) and
 * confirmed as paid later: by Stripe's webhook, by the return to `/pay/authenticate/…`, or by the
 * re-check of a webhook that came before the page's own request settled (stripe-webhooks.server.ts).
 * Each of them comes here, so the payment is recorded once (recordLateCardPayment: a conditional
 * UPDATE from `declined`) and the tenant gets the receipt e-mail an ordinary portal payment sends,
 * once: only the caller whose UPDATE switched the row sends it (decision 410).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, leases, locations, payments, websites } from "~/db/schema";
import { logger } from "~/platform/logger.server";
import { paymentGatewayFor } from "~/platform/payments/gateway.server";
import { recordLateCardPayment, storageFor } from "~/storage-software/index.server";
import { sendEmail } from "../mail/outbox.server";
import { receiptEmail } from "./receipt-email.server";
import { publicOrigin } from "../site/origin.server";

/** `refunded`: a late success at a SiteLink location where our gateway charges (option B), given back (decision 441). */
type LatePaymentRecorded = Awaited<ReturnType<typeof recordLateCardPayment>> | "refunded";

/** What a payment given back this way says on the tenant's payments and the desk. */
export const LATE_SITELINK_REFUND_REASON = "Your bank confirmed this payment after it was declined here, so it was refunded in full. Please pay again.";

/**
 * A late success at a SiteLink location whose cards our gateway charges (option B, decision 441): the
 * payment is not ours to record (SiteLink keeps the ledger, and the port books a payment in SiteLink
 * only inside the payment's own flow, which answered "declined"), so it is refunded in full at once,
 * never left for the office. The declined attempt is kept under the key (a payment recorded late's
 * row) or `KEY:declined` (the SiteLink adapter's portal, prepay and autopay attempts; a rental's has
 * its own rule, decision 412). The refund is the gateway's, by the charge's key (once, whoever calls);
 * the declined row then says so. False when the payment is not such a one.
 */
export async function refundLateAtSiteLink(db: Database, input: { idempotencyKey: string; now: Date }): Promise<boolean> {
  const rows = await db
    .select({ id: payments.id, key: payments.idempotencyKey, status: payments.status, source: payments.source, location: { id: locations.id, name: locations.name, software: locations.software, status: locations.status } })
    .from(payments)
    .innerJoin(leases, eq(leases.id, payments.leaseId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(inArray(payments.idempotencyKey, [input.idempotencyKey, `${input.idempotencyKey}:declined`]));
  const row = rows.find((r) => r.key === input.idempotencyKey) ?? rows.find((r) => r.source !== "move_in");
  if (!row || row.status !== "declined" || row.location.software !== "sitelink") return false;
  if ((await storageFor(db, row.location).cardsChargedBy()) !== "gateway") return false;
  const gateway = paymentGatewayFor(row.location)?.gateway;
  if (!gateway) return false;
  await gateway.refund(input.idempotencyKey);
  await db
    .update(payments)
    .set({ declineReason: LATE_SITELINK_REFUND_REASON, updatedAt: input.now })
    .where(and(eq(payments.id, row.id), eq(payments.status, "declined")));
  logger.info({ payment: row.id, key: input.idempotencyKey }, "[payments] a payment confirmed late at a SiteLink location was refunded");
  return true;
}

/** Records the late success once and, the one time it is recorded, e-mails the tenant the receipt. */
export async function recordLatePayment(db: Database, input: { idempotencyKey: string; amount: number; authReference: string; now: Date }): Promise<LatePaymentRecorded> {
  const outcome = await recordLateCardPayment(db, input);
  if (outcome === "not ours" && (await refundLateAtSiteLink(db, input))) return "refunded";
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
  await sendEmail(db, {
    locationId: row.location.id,
    ...receiptEmail({
      tenant: { email: tenant.email, firstName: tenant.firstName },
      receipt,
      payment: { ...receipt.payment, id: String(row.paymentId) },
      origin: publicOrigin({ domain: row.domain }),
      siteName: row.siteName,
    }),
  });
}
