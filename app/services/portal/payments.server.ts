import { eq } from "drizzle-orm";
import { leases, payments } from "~/db/schema";
import type { ParsedMethod } from "~/domain/portal/forms";
import type { Payment, StorageSoftware } from "~/storage-software/port";
import { OutcomeUnknownError, PaymentDeclinedError, StorageValidationError } from "~/storage-software/errors";
import type { PortalContext } from "./context.server";
import { sendEmail } from "../mail/outbox.server";
import { receiptEmail } from "../payments/receipt-email.server";
import { recheckWaitingWebhooks } from "../payments/waiting-webhooks.server";
import { logger } from "~/platform/logger.server";
import { completeHeldPaymentInPage, emailAuthenticationLink } from "../payments/authentication.server";
import { CONFIRM_IN_PAGE_MESSAGE, inPageAuthentication, type InPageAuthentication } from "~/domain/payments/card-authentication";
import { AUTHENTICATION_REASON } from "~/platform/payments/stripe.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { beginCardAttempt, cardApproved, cardDeclined, cardLockedMessage, cardNotTried, CARD_DECLINED_MESSAGE, type CardAttemptTicket } from "../payments/card-attempts.server";
import { lineTotal } from "~/domain/payments/billing";
import { maxPortalPayment, portalAmountError } from "~/domain/portal/forms";

/** Card attempts per tenant per 15 minutes (card testing protection); a repeat of a used form does not count. */
export const PAYMENT_ATTEMPTS_PER_TENANT = 10;
const PAYMENT_ATTEMPTS_WINDOW_MS = 15 * 60 * 1000;

export async function paymentLimited(ctx: PortalContext, tenantId: string): Promise<PaymentOutcome | null> {
  const r = await hitRateLimit(ctx.db, { key: `pay:tenant:${tenantId}`, limit: PAYMENT_ATTEMPTS_PER_TENANT, windowMs: PAYMENT_ATTEMPTS_WINDOW_MS, now: ctx.now });
  return r.allowed ? null : { ok: false, message: `Too many payment attempts. Please wait ${r.retryAfterMinutes} minutes and try again, or call the office.` };
}

export const PAYMENT_BEING_CONFIRMED =
  "We are confirming this payment with the facility's system. Please do not pay again: your balance will show it within a few minutes. If it does not, please call the office.";

export type PaymentOutcome =
  | { ok: true; paymentId: string }
  | {
      ok: false;
      message: string;
      fieldErrors?: Record<string, string[]>;
      /** Not refused: the bank wants the tenant to confirm the payment on the page (3-D Secure, decision 405). */
      authenticate?: InPageAuthentication;
    };

async function alreadyUsed(ctx: PortalContext, idempotencyKey: string): Promise<boolean> {
  const row = await ctx.db.query.payments.findFirst({ columns: { id: true }, where: eq(payments.idempotencyKey, idempotencyKey) });
  return Boolean(row);
}

export async function emailReceipt(ctx: PortalContext, storage: StorageSoftware, tenantId: string, payment: Payment, origin: string) {
  const [tenant, receipt] = await Promise.all([storage.getTenant(tenantId), storage.getReceipt(tenantId, payment.id)]);
  if (!tenant || !receipt) return;
  // The mail's location (decision 645): our lease row's, read from our own records.
  const lease = /^\d{1,9}$/.test(receipt.leaseId) ? await ctx.db.query.leases.findFirst({ columns: { locationId: true }, where: eq(leases.id, Number(receipt.leaseId)) }) : undefined;
  await sendEmail(ctx.db, { ...receiptEmail({ tenant, receipt, payment, origin, siteName: ctx.siteName }), locationId: lease?.locationId ?? null });
}

const last4Of = (method: ParsedMethod) => (method.kind === "card" ? method.card.number.slice(-4) : null);

/**
 * Counts a card attempt (card-attempts.server.ts) for the tenant, their e-mail and the IP; null
 * when the attempt may go ahead, else the refusal.
 */
async function startCardAttempt(ctx: PortalContext, storage: StorageSoftware, tenantId: string, ip: string, phone: string): Promise<{ ticket: CardAttemptTicket } | { refused: PaymentOutcome }> {
  const tenant = await storage.getTenant(tenantId);
  const attempt = await beginCardAttempt(ctx.db, { scope: { kind: "portal", tenantId }, email: tenant?.email ?? `tenant:${tenantId}`, ip, now: ctx.now });
  return attempt.allowed ? { ticket: attempt.ticket } : { refused: { ok: false, message: cardLockedMessage(phone) } };
}

/** Settles the attempt's count and turns the payment (or the error) into what the tenant is told. */
async function settle(
  ctx: PortalContext,
  ticket: CardAttemptTicket | null,
  run: () => Promise<Payment>,
  info: { where: string; method: ParsedMethod; phone: string; idempotencyKey: string },
): Promise<{ outcome: PaymentOutcome; payment: Payment | null }> {
  try {
    const payment = await run();
    if (payment.status === "declined") {
      const message = ticket ? cardDeclined(ticket, { where: info.where, reason: payment.declineReason ?? "declined", last4: payment.cardLast4, phone: info.phone }).message : CARD_DECLINED_MESSAGE;
      return { outcome: { ok: false, message }, payment: null };
    }
    if (ticket) await cardApproved(ctx.db, ticket);
    return { outcome: { ok: true, paymentId: payment.id }, payment };
  } catch (error) {
    const held = error instanceof PaymentDeclinedError ? inPageAuthentication(error.authentication, info.idempotencyKey) : null;
    if (held) {
      // Not declined: a new card sent from the page's script, which runs the bank's check in place and
      // sends the form again with the completed PaymentIntent under the same key (decision 405). The
      // attempt stays counted until a card is approved.
      return { outcome: { ok: false, message: CONFIRM_IN_PAGE_MESSAGE, authenticate: held }, payment: null };
    }
    if (error instanceof PaymentDeclinedError) {
      const message = ticket ? cardDeclined(ticket, { where: info.where, reason: error.reason, last4: last4Of(info.method), phone: info.phone }).message : CARD_DECLINED_MESSAGE;
      return { outcome: { ok: false, message }, payment: null };
    }
    if (ticket) await cardNotTried(ctx.db, ticket);
    if (error instanceof StorageValidationError) return { outcome: { ok: false, message: error.message, fieldErrors: error.fieldErrors }, payment: null };
    // The facility's software did not say whether it took the payment: never "declined", never a 500,
    // and never sent again (the same form key is refused while it is being confirmed).
    if (error instanceof OutcomeUnknownError) return { outcome: { ok: false, message: PAYMENT_BEING_CONFIRMED }, payment: null };
    throw error;
  }
}

/**
 * Stripe's webhook for this payment may have come while the request still waited for Stripe's answer
 * (a timeout after the charge): it was kept as waiting, and now that the payment is recorded it is
 * judged again at once, so the office is not told of "a payment we have no record of" (decision 411).
 */
async function settleWaitingWebhooks(ctx: PortalContext, key: string): Promise<void> {
  try {
    await recheckWaitingWebhooks(ctx.db, ctx.now, { key });
  } catch (error) {
    // The payment is recorded; housekeeping judges the webhook later.
    logger.warn({ err: error }, "[payments] a waiting webhook could not be judged now; housekeeping will");
  }
}

/**
 * The form sent again by the page's script with the PaymentIntent the tenant confirmed with the bank
 * on the page (decision 405), under the key of the payment recorded as held for it: checked with the
 * processor and recorded once (completeHeldPaymentInPage). Null when this is not such a form (the
 * usual repeat of a used form follows).
 */
async function completedInPage(ctx: PortalContext, input: { tenantId: string; leaseId: string; method: ParsedMethod; idempotencyKey: string }): Promise<PaymentOutcome | null> {
  if (input.method.kind !== "token" || !input.method.token.startsWith("pi_")) return null;
  const done = await completeHeldPaymentInPage(ctx.db, { tenantId: input.tenantId, leaseId: input.leaseId, idempotencyKey: input.idempotencyKey, intentId: input.method.token, now: ctx.now, saveCard: input.method.saveCard });
  if (done.kind === "not held") return null;
  return done.kind === "paid" ? { ok: true, paymentId: done.paymentId } : { ok: false, message: done.message };
}

/** Pays the balance or another amount; emails the receipt the first time only. */
export async function payLease(
  ctx: PortalContext,
  storage: StorageSoftware,
  input: {
    tenantId: string;
    leaseId: string;
    amount: number;
    method: ParsedMethod;
    idempotencyKey: string;
    origin: string;
    phone: string;
    ip: string;
    /** Months the tenant may pay ahead (0 when prepayments are off): caps the amount. */
    prepayMonths: number;
  },
): Promise<PaymentOutcome> {
  const repeat = await alreadyUsed(ctx, input.idempotencyKey);
  const completed = repeat ? await completedInPage(ctx, input) : null;
  if (completed) return completed;
  if (!repeat) {
    const capError = await amountCapError(storage, input);
    if (capError) return { ok: false, message: capError, fieldErrors: { other_amount: [capError] } };
  }
  const limited = repeat ? null : await paymentLimited(ctx, input.tenantId);
  if (limited) return limited;
  const started = repeat ? null : await startCardAttempt(ctx, storage, input.tenantId, input.ip, input.phone);
  if (started && "refused" in started) return started.refused;
  const { outcome, payment } = await settle(
    ctx,
    started?.ticket ?? null,
    () => storage.makePayment({ tenantId: input.tenantId, leaseId: input.leaseId, amount: input.amount, method: input.method, idempotencyKey: input.idempotencyKey, now: ctx.now }),
    { where: `portal pay lease ${input.leaseId}`, method: input.method, phone: input.phone, idempotencyKey: input.idempotencyKey },
  );
  if (!repeat && payment) await emailReceipt(ctx, storage, input.tenantId, payment, input.origin);
  if (payment) await settleWaitingWebhooks(ctx, input.idempotencyKey);
  return repeat ? outcome : heldForAuthentication(ctx, storage, input.tenantId, input.idempotencyKey, outcome);
}

/**
 * A payment the bank wants the tenant to confirm (3-D Secure; a saved card charged off session): the
 * tenant is e-mailed a link that completes it (decision 395) and told so, not "declined".
 */
async function heldForAuthentication(ctx: PortalContext, storage: StorageSoftware, tenantId: string, key: string, outcome: PaymentOutcome): Promise<PaymentOutcome> {
  // The page completes it in place (JavaScript on, decision 405): no e-mail.
  if (outcome.ok || outcome.authenticate) return outcome;
  const row = await ctx.db.query.payments.findFirst({ columns: { status: true, declineReason: true }, where: eq(payments.idempotencyKey, key) });
  if (row?.status !== "declined" || row.declineReason !== AUTHENTICATION_REASON) return outcome;
  const tenant = await storage.getTenant(tenantId);
  if (!tenant?.email) return outcome;
  const sent = await emailAuthenticationLink(ctx.db, { paymentKey: key, to: tenant.email, firstName: tenant.firstName, now: ctx.now });
  return sent ? { ok: false, message: AUTHENTICATION_REASON } : outcome;
}

/** The amount over the cap (balance plus the allowed prepayment), as the field's message; else null. */
export async function amountCapError(storage: StorageSoftware, input: { tenantId: string; leaseId: string; amount: number; prepayMonths: number }): Promise<string | null> {
  const lease = await storage.getTenantLease(input.tenantId, input.leaseId);
  if (!lease) return null;
  const offer = input.prepayMonths > 0 ? await storage.quotePrepay(input.tenantId, input.leaseId, 1) : null;
  const monthlyTotal = offer ? lineTotal(offer.lines) : 0;
  return portalAmountError(input.amount, maxPortalPayment({ balance: lease.balance, monthlyTotal, prepayMonths: input.prepayMonths }));
}

/** Pays `months` ahead (the amount recomputed and checked against what the tenant saw). */
export async function prepayLease(
  ctx: PortalContext,
  storage: StorageSoftware,
  input: { tenantId: string; leaseId: string; months: number; expectedTotal: number; method: ParsedMethod; idempotencyKey: string; origin: string; phone: string; ip: string },
): Promise<PaymentOutcome> {
  const repeat = await alreadyUsed(ctx, input.idempotencyKey);
  const completed = repeat ? await completedInPage(ctx, input) : null;
  if (completed) return completed;
  const limited = repeat ? null : await paymentLimited(ctx, input.tenantId);
  if (limited) return limited;
  const started = repeat ? null : await startCardAttempt(ctx, storage, input.tenantId, input.ip, input.phone);
  if (started && "refused" in started) return started.refused;
  const { ip: _ip, ...rest } = input;
  const { outcome, payment } = await settle(ctx, started?.ticket ?? null, () => storage.prepay({ ...rest, now: ctx.now }), {
    where: `portal prepay lease ${input.leaseId}`,
    method: input.method,
    phone: input.phone,
    idempotencyKey: input.idempotencyKey,
  });
  if (!repeat && payment) await emailReceipt(ctx, storage, input.tenantId, payment, input.origin);
  if (payment) await settleWaitingWebhooks(ctx, input.idempotencyKey);
  return repeat ? outcome : heldForAuthentication(ctx, storage, input.tenantId, input.idempotencyKey, outcome);
}

/** The card processor did not answer an autopay enrolment (a timeout): nothing was charged or saved. */
export const AUTOPAY_NOT_ANSWERED = "The card processor did not answer just now. Autopay is not on yet and nothing was charged; please try again.";

/**
 * Autopay enrolment checks the card with the gateway (a tokenisation), so it counts against the
 * portal's payment limit and the card-attempt limits like a payment does.
 */
export async function enrolAutopay(
  ctx: PortalContext,
  storage: StorageSoftware,
  input: { tenantId: string; leaseId: string; method: ParsedMethod; phone: string; ip: string },
): Promise<{ ok: true } | { ok: false; message: string; fieldErrors?: Record<string, string[]>; authenticate?: InPageAuthentication }> {
  const limited = await paymentLimited(ctx, input.tenantId);
  if (limited && !limited.ok) return limited;
  const started = await startCardAttempt(ctx, storage, input.tenantId, input.ip, input.phone);
  if ("refused" in started) return started.refused as { ok: false; message: string };
  const ticket = started.ticket;
  try {
    await storage.enrolAutopay({ tenantId: input.tenantId, leaseId: input.leaseId, method: input.method, now: ctx.now });
  } catch (error) {
    const held = error instanceof PaymentDeclinedError ? inPageAuthentication(error.authentication) : null;
    // The card's set-up awaits the bank's check, run on the page; the form comes back with the SetupIntent (decision 405).
    if (held) return { ok: false, message: CONFIRM_IN_PAGE_MESSAGE, authenticate: held };
    if (error instanceof PaymentDeclinedError) {
      return { ok: false, message: cardDeclined(ticket, { where: `portal autopay lease ${input.leaseId}`, reason: error.reason, last4: last4Of(input.method), phone: input.phone }).message };
    }
    await cardNotTried(ctx.db, ticket);
    if (error instanceof StorageValidationError) return { ok: false, message: error.message, fieldErrors: error.fieldErrors };
    if (error instanceof OutcomeUnknownError) return { ok: false, message: AUTOPAY_NOT_ANSWERED };
    throw error;
  }
  await cardApproved(ctx.db, ticket);
  return { ok: true };
}
