import { eq } from "drizzle-orm";
import { payments } from "~/db/schema";
import { formatCents } from "~/domain/money";
import { formatDate } from "~/domain/billing";
import type { ParsedMethod } from "~/domain/portal-forms";
import type { Payment, StorageSoftware } from "~/storage-software/port";
import { PaymentDeclinedError, StorageValidationError, storageErrorMessage } from "~/storage-software/errors";
import type { PortalContext } from "./portal.server";
import { sendEmail } from "./email.server";
import { hitRateLimit } from "./rate-limit.server";

/** Card attempts per tenant per 15 minutes (card testing protection); a repeat of a used form does not count. */
export const PAYMENT_ATTEMPTS_PER_TENANT = 10;

async function paymentLimited(ctx: PortalContext, tenantId: string): Promise<PaymentOutcome | null> {
  const r = await hitRateLimit(ctx.db, { key: `pay:tenant:${tenantId}`, limit: PAYMENT_ATTEMPTS_PER_TENANT, windowMs: 15 * 60 * 1000, now: ctx.now });
  return r.allowed ? null : { ok: false, message: `Too many payment attempts. Please wait ${r.retryAfterMinutes} minutes and try again, or call the office.` };
}

export type PaymentOutcome = { ok: true; paymentId: string } | { ok: false; message: string; fieldErrors?: Record<string, string[]> };

async function alreadyUsed(ctx: PortalContext, idempotencyKey: string): Promise<boolean> {
  const row = await ctx.db.query.payments.findFirst({ columns: { id: true }, where: eq(payments.idempotencyKey, idempotencyKey) });
  return Boolean(row);
}

async function emailReceipt(ctx: PortalContext, storage: StorageSoftware, tenantId: string, payment: Payment, origin: string) {
  const [tenant, receipt] = await Promise.all([storage.getTenant(tenantId), storage.getReceipt(tenantId, payment.id)]);
  if (!tenant || !receipt) return;
  await sendEmail(ctx.db, {
    to: tenant.email,
    subject: `Payment receipt: ${formatCents(payment.amount)}`,
    text: [
      `Hello ${tenant.firstName},`,
      "",
      `Thank you for your payment of ${formatCents(payment.amount)} for unit ${receipt.unitName}.`,
      `${receipt.description}`,
      `Card: ${payment.cardBrand} ending ${payment.cardLast4}. Authorisation: ${payment.authReference ?? ""}.`,
      `Balance now: ${formatCents(Math.max(0, receipt.balance))}. Paid through: ${formatDate(receipt.paidThroughDate)}.`,
      "",
      `Receipt: ${origin}/customer-portal/receipts/${payment.id}`,
      "",
      ctx.siteName,
    ].join("\n"),
  });
}

function outcomeOf(payment: Payment): PaymentOutcome {
  if (payment.status === "declined") return { ok: false, message: `${payment.declineReason ?? "Your card was declined."} Nothing was charged. Please check the card details or use another card.` };
  return { ok: true, paymentId: payment.id };
}

function failure(error: unknown, phone: string): PaymentOutcome {
  if (error instanceof PaymentDeclinedError) return { ok: false, message: storageErrorMessage(error, phone) };
  if (error instanceof StorageValidationError) return { ok: false, message: error.message, fieldErrors: error.fieldErrors };
  throw error;
}

/** Pays the balance or another amount; emails the receipt the first time only. */
export async function payLease(
  ctx: PortalContext,
  storage: StorageSoftware,
  input: { tenantId: string; leaseId: string; amount: number; method: ParsedMethod; idempotencyKey: string; origin: string; phone: string },
): Promise<PaymentOutcome> {
  const repeat = await alreadyUsed(ctx, input.idempotencyKey);
  const limited = repeat ? null : await paymentLimited(ctx, input.tenantId);
  if (limited) return limited;
  try {
    const payment = await storage.makePayment({ tenantId: input.tenantId, leaseId: input.leaseId, amount: input.amount, method: input.method, idempotencyKey: input.idempotencyKey, now: ctx.now });
    if (!repeat && payment.status === "approved") await emailReceipt(ctx, storage, input.tenantId, payment, input.origin);
    return outcomeOf(payment);
  } catch (error) {
    return failure(error, input.phone);
  }
}

/** Pays `months` ahead (the amount recomputed and checked against what the tenant saw). */
export async function prepayLease(
  ctx: PortalContext,
  storage: StorageSoftware,
  input: { tenantId: string; leaseId: string; months: number; expectedTotal: number; method: ParsedMethod; idempotencyKey: string; origin: string; phone: string },
): Promise<PaymentOutcome> {
  const repeat = await alreadyUsed(ctx, input.idempotencyKey);
  const limited = repeat ? null : await paymentLimited(ctx, input.tenantId);
  if (limited) return limited;
  try {
    const payment = await storage.prepay({ ...input, now: ctx.now });
    if (!repeat && payment.status === "approved") await emailReceipt(ctx, storage, input.tenantId, payment, input.origin);
    return outcomeOf(payment);
  } catch (error) {
    return failure(error, input.phone);
  }
}
