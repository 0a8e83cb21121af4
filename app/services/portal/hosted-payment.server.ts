/**
 * The portal's card pages without the processor's fields (issue 25, docs/decisions/400-portal-checkout.md):
 * portal pay, prepay, the pay link and autopay enrolment at a location whose cards Stripe takes,
 * when the form comes without a `payment_token` (JavaScript off, or Stripe.js did not load).
 *
 * - Out: a Stripe Checkout Session for exactly the amount being paid (mode `payment`), or to save a
 *   card on the tenant's Stripe customer (mode `setup`, autopay), tagged with the payment's
 *   idempotency key and what is needed to record it (`gatehouse_flow`, tenant, lease, months, link,
 *   "save this card"); the tenant is sent there (303). Nothing is recorded.
 * - Back: the page's loader reads `?checkout_session=cs_…&payment=KEY`. The session is read from
 *   Stripe (never the browser's word): it must be this page's flow, tenant, lease (link) and key, and
 *   paid (or, setup, complete). Then it is taken once (below) and recorded through the port exactly
 *   as a token payment is (the PaymentIntent is the token: the gateway checks its amount): the
 *   payment and its ledger line, the paid-through date, the receipt page and the receipt e-mail; or
 *   the SetupIntent's card is saved and autopay turned on. Paid but no longer owed (the balance was
 *   paid another way meanwhile, the prepay amount changed, the link was used): refunded at once.
 * - The webhook (`checkout.session.completed`) records a session whose tenant never came back, the
 *   same way.
 * - Once: the session is claimed by one conditional insert into `gateway_events` (its id is the
 *   session's `cs_…`; outcome `recording`, then what was done). Whoever inserts it (the return or the
 *   webhook) records; the other waits a few seconds for the outcome. A claim left `recording` for
 *   two minutes (a crash) may be taken again; the payment's key makes a second record impossible.
 */
import { and, desc, eq, isNull, like, lt } from "drizzle-orm";
import type Stripe from "stripe";
import type { SubmissionResult } from "@conform-to/react";
import { redirect } from "react-router";
import type { Database } from "~/db/client.server";
import { logger } from "~/platform/logger.server";
import { gatewayEvents, hostedSessions, payments, savedCards } from "~/db/schema";
import { PAYMENT_UNAVAILABLE_MESSAGE } from "~/db/unavailable";
import { formatCents } from "~/domain/shared/money";
import { getPaymentGateway, type HostedSession, type PaymentGateway } from "~/platform/payments/gateway.server";
import { OutcomeUnknownError, PaymentDeclinedError, StorageValidationError } from "~/storage-software/errors";
import type { Payment } from "~/storage-software/port";
import { findPortalUnit, newIdempotencyKey, portalContextOf, portalHeaders, type PortalContext } from "./context.server";
import { amountCapError, emailReceipt, paymentLimited, PAYMENT_BEING_CONFIRMED, type PaymentOutcome } from "./payments.server";
import { PAY_LINK_BUSY_MESSAGE, PAY_LINK_EXPIRED_MESSAGE, payLinkById, payLinkUnit, payThroughHeldLink, siteOfLease } from "../payments/pay-links.server";

type HostedPageFlow = "portal_pay" | "portal_prepay" | "pay_link" | "portal_autopay";
const FLOWS: ReadonlySet<string> = new Set<HostedPageFlow>(["portal_pay", "portal_prepay", "pay_link", "portal_autopay"]);

type PortalUnit = NonNullable<Awaited<ReturnType<typeof findPortalUnit>>>;

export const HOSTED_PAGE_CANCELLED = "You left the secure payment page without paying. Nothing was charged.";
const HOSTED_SETUP_CANCELLED = "You left the secure card page without saving a card. Autopay was not changed.";
export const HOSTED_PAGE_UNPAID = "The payment on the secure payment page was not completed, so nothing was charged or recorded. You can pay again below.";
const HOSTED_SETUP_UNFINISHED = "The card was not saved on the secure card page, so autopay was not changed. You can try again below.";
export const HOSTED_PAGE_OTHER = "This secure payment page was for another payment, so nothing was recorded here. Please check your balance before paying again.";
const HOSTED_PAGE_UNREACHABLE = "We could not reach our payment processor. Nothing was charged. Please try again in a moment.";
const HOSTED_PAGE_CHECK_LATER =
  "We could not check this payment with our payment processor just now. Please do not pay again: reload this page in a minute, or check your balance later.";
const REFUNDED = "The payment you made on the secure payment page has been refunded in full; it can take a few days to show on your statement.";

/** How long a claim may stay `recording` before another return or webhook may take it again (a crash). */
const STALE_CLAIM_MS = 2 * 60 * 1000;
/** How long the loser of a claim waits for the winner's outcome. */
const WAIT_MS = 5000;
const RECORDING = "recording";

// ------------------------------------------------------------------------------------------- out

type HostedPageStart = { redirect: string } | { message: string; fieldErrors?: Record<string, string[]> };

/** The form's values to keep on the cancel URL (so the form comes back as it was), from `names`. */
export function keptValues(formData: FormData, names: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of names) {
    const v = formData.get(name);
    if (typeof v === "string" && v !== "" && v.length <= 100) kept[name] = v;
  }
  return kept;
}

function returnUrls(ctx: PortalContext, path: string, key: string, kept: Record<string, string>) {
  return {
    returnUrl: `${ctx.origin}${path}?checkout_session={SESSION}&payment=${encodeURIComponent(key)}`,
    // The key names the session recorded when it started, which the cancel expires (decision 442).
    cancelUrl: `${ctx.origin}${path}?${new URLSearchParams({ checkout: "cancelled", payment: key, ...kept }).toString()}`,
  };
}

/** Records the hosted page just started under the form's key (decision 442), for its cancel. */
async function recordHostedSession(db: Database, input: { sessionId?: string; idempotencyKey: string; tenantId: string; flow: string; now: Date }): Promise<void> {
  if (!input.sessionId) return;
  const tenantId = Number(input.tenantId);
  await db
    .insert(hostedSessions)
    .values({ id: input.sessionId, idempotencyKey: input.idempotencyKey, tenantId: Number.isInteger(tenantId) ? tenantId : null, flow: input.flow, startedAt: input.now })
    .onConflictDoNothing();
}

/**
 * The tenant came back by the hosted page's cancel (decision 442): every page recorded under the key
 * for this tenant and still open is expired at once through the processor's API, so nothing can be
 * paid on it afterwards. Answers the id of one that turned out paid meanwhile (it could not be
 * expired): the caller takes it as a return, so a payment is never reported as "nothing was charged".
 */
export async function expireCancelledHostedPages(db: Database, location: { id: number }, input: { key: string | null; tenantId: string; now: Date }): Promise<string | null> {
  const gateway = getPaymentGateway(location);
  if (!input.key || !gateway.expireHostedSession) return null;
  const rows = await db
    .select()
    .from(hostedSessions)
    .where(and(eq(hostedSessions.idempotencyKey, input.key), isNull(hostedSessions.expiredAt)));
  let paid: string | null = null;
  for (const row of rows) {
    if (String(row.tenantId) !== input.tenantId) continue;
    try {
      const { expired } = await gateway.expireHostedSession(row.id);
      if (expired) {
        await db.update(hostedSessions).set({ expiredAt: input.now }).where(eq(hostedSessions.id, row.id));
        continue;
      }
      const now = await gateway.hostedSession?.(row.id);
      if (now?.done) paid = row.id;
      else if (now?.status === "expired") await db.update(hostedSessions).set({ expiredAt: input.now }).where(eq(hostedSessions.id, row.id));
    } catch (error) {
      // Not reached now: Stripe expires an unpaid session on its own after 24 hours.
      logger.warn({ err: error, session: row.id }, "[payments] a cancelled hosted page could not be expired now");
    }
  }
  return paid;
}

/**
 * Pay, prepay or the pay link with a new card and no token: a Checkout Session for exactly `amount`,
 * tagged with the form's key; the answer is where to send the tenant (Stripe's page), or why not.
 * Counted against the portal's payment limit like a payment.
 */
export async function startHostedPagePayment(
  ctx: PortalContext,
  unit: PortalUnit,
  input: {
    flow: "portal_pay" | "portal_prepay" | "pay_link";
    tenantId: string;
    amount: number;
    idempotencyKey: string;
    saveCard: boolean;
    /** The page (…/pay, …/prepay, /pay/{token}): the return and the cancel come back to its loader. */
    path: string;
    kept: Record<string, string>;
    /** The flow's own tags: months (prepay), `balance` or `other` (pay), the link's id. */
    tags?: Record<string, string>;
  },
): Promise<HostedPageStart> {
  const gateway = getPaymentGateway(unit.location);
  if (!gateway.startHostedPayment) return { message: PAYMENT_UNAVAILABLE_MESSAGE };
  const used = await ctx.db.query.payments.findFirst({ columns: { id: true }, where: eq(payments.idempotencyKey, input.idempotencyKey) });
  if (used) return { message: "This form was already used. Please reload the page." };
  const limited = await paymentLimited(ctx, input.tenantId);
  if (limited && !limited.ok) return { message: limited.message };
  const tenant = await unit.storage.getTenant(input.tenantId);
  try {
    const { url, sessionId } = await gateway.startHostedPayment({
      amount: input.amount,
      idempotencyKey: input.idempotencyKey,
      description: `Unit ${unit.lease.unitName} at ${unit.location.name}: ${input.flow === "portal_prepay" ? "payment ahead" : "storage payment"}`,
      ...(tenant?.email ? { email: tenant.email } : {}),
      saveCard: input.saveCard,
      ...returnUrls(ctx, input.path, input.idempotencyKey, input.kept),
      metadata: {
        ...input.tags,
        gatehouse_flow: input.flow,
        gatehouse_tenant: input.tenantId,
        gatehouse_lease: unit.lease.leaseId,
        gatehouse_save: input.saveCard ? "1" : "0",
      },
    });
    await recordHostedSession(ctx.db, { sessionId, idempotencyKey: input.idempotencyKey, tenantId: input.tenantId, flow: input.flow, now: ctx.now });
    return { redirect: url };
  } catch {
    return { message: HOSTED_PAGE_UNREACHABLE };
  }
}

/** Autopay enrolment with a new card and no token: Checkout in setup mode on the tenant's Stripe customer. */
export async function startHostedPageAutopay(ctx: PortalContext, unit: PortalUnit, input: { tenantId: string; path: string }): Promise<HostedPageStart> {
  const gateway = getPaymentGateway(unit.location);
  if (!gateway.startHostedSetup) return { message: PAYMENT_UNAVAILABLE_MESSAGE };
  const limited = await paymentLimited(ctx, input.tenantId);
  if (limited && !limited.ok) return { message: limited.message };
  const tenantId = Number(input.tenantId);
  // The customer of the tenant's latest Stripe card, so all their cards stay on one customer.
  const known = Number.isInteger(tenantId)
    ? await ctx.db.query.savedCards.findFirst({ columns: { gatewayToken: true }, where: and(eq(savedCards.tenantId, tenantId), like(savedCards.gatewayToken, "cus\\_%:pm\\_%")), orderBy: desc(savedCards.id) })
    : undefined;
  const tenant = await unit.storage.getTenant(input.tenantId);
  const key = newIdempotencyKey();
  try {
    const { url, sessionId } = await gateway.startHostedSetup({
      idempotencyKey: key,
      // The same owner the enrolment checks on a SetupIntent (shared/tenants.ts, decision 407).
      owner: `autopay:tenant:${input.tenantId}`,
      ...(known ? { customer: known.gatewayToken } : {}),
      ...(tenant?.email ? { email: tenant.email } : {}),
      ...returnUrls(ctx, input.path, key, {}),
      metadata: { gatehouse_flow: "portal_autopay", gatehouse_tenant: input.tenantId, gatehouse_lease: unit.lease.leaseId },
    });
    await recordHostedSession(ctx.db, { sessionId, idempotencyKey: key, tenantId: input.tenantId, flow: "portal_autopay", now: ctx.now });
    return { redirect: url };
  } catch {
    return { message: HOSTED_PAGE_UNREACHABLE };
  }
}

// ------------------------------------------------------------------------------------------ back

/** What taking a session did (also what a second return or webhook learns from the claim). */
type Taken =
  | { kind: "recorded"; paymentId: string }
  | { kind: "enrolled" }
  | { kind: "refunded"; message: string }
  | { kind: "not enrolled"; message: string }
  /** Not settled now (the facility's system did not answer, the link is held, another is recording it): later. */
  | { kind: "later"; message: string };

const outcomeText = (t: Exclude<Taken, { kind: "later" }>): string =>
  t.kind === "recorded" ? `recorded: payment ${t.paymentId}` : t.kind === "enrolled" ? "enrolled: autopay" : `${t.kind}: ${t.message}`;

function takenOf(outcome: string): Taken | null {
  const m = /^(recorded|enrolled|refunded|not enrolled): (.*)$/s.exec(outcome);
  if (!m) return null;
  if (m[1] === "recorded") return { kind: "recorded", paymentId: m[2]!.replace(/^payment /, "") };
  if (m[1] === "enrolled") return { kind: "enrolled" };
  return { kind: m[1] as "refunded" | "not enrolled", message: m[2]! };
}

/** One conditional insert: true when this caller records the session (or takes over a claim left by a crash). */
async function claim(db: Database, session: HostedSession, now: Date): Promise<boolean> {
  const inserted = await db
    .insert(gatewayEvents)
    .values({ id: session.id, processor: "stripe", type: "checkout.session.taken", idempotencyKey: session.metadata.gatehouse_key ?? null, outcome: RECORDING, receivedAt: now })
    .onConflictDoNothing()
    .returning({ id: gatewayEvents.id });
  if (inserted.length) return true;
  const retaken = await db
    .update(gatewayEvents)
    .set({ receivedAt: now })
    .where(and(eq(gatewayEvents.id, session.id), eq(gatewayEvents.outcome, RECORDING), lt(gatewayEvents.receivedAt, new Date(now.getTime() - STALE_CLAIM_MS))))
    .returning({ id: gatewayEvents.id });
  return retaken.length > 0;
}

/** The winner's outcome, waited for a few seconds while it is still `recording`. */
async function outcomeOf(db: Database, sessionId: string): Promise<Taken | null> {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    const row = await db.query.gatewayEvents.findFirst({ columns: { outcome: true }, where: eq(gatewayEvents.id, sessionId) });
    const taken = row ? takenOf(row.outcome) : null;
    if (taken || !row || Date.now() >= until) return taken;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Takes a paid (or completed setup) session once: records it, or, when no longer owed, refunds it.
 * `unitOf` gives the portal context and the unit (the return's own, or the webhook's from the lease).
 */
async function take(
  db: Database,
  gateway: PaymentGateway,
  session: HostedSession,
  now: Date,
  place: () => Promise<{ ctx: PortalContext; unit: PortalUnit } | null>,
): Promise<{ taken: Taken; first: boolean }> {
  if (!(await claim(db, session, now))) {
    return { taken: (await outcomeOf(db, session.id)) ?? { kind: "later", message: PAYMENT_BEING_CONFIRMED }, first: false };
  }
  let taken: Taken;
  try {
    taken = await record(gateway, session, now, place);
  } catch (error) {
    await db.delete(gatewayEvents).where(and(eq(gatewayEvents.id, session.id), eq(gatewayEvents.outcome, RECORDING)));
    throw error;
  }
  if (taken.kind === "later") {
    // Nothing settled: the claim goes, so the next return or the webhook's next delivery tries again.
    await db.delete(gatewayEvents).where(and(eq(gatewayEvents.id, session.id), eq(gatewayEvents.outcome, RECORDING)));
  } else {
    await db.update(gatewayEvents).set({ outcome: outcomeText(taken) }).where(eq(gatewayEvents.id, session.id));
  }
  return { taken, first: true };
}

async function record(gateway: PaymentGateway, session: HostedSession, now: Date, place: () => Promise<{ ctx: PortalContext; unit: PortalUnit } | null>): Promise<Taken> {
  const tags = session.metadata;
  const key = tags.gatehouse_key!;
  const found = await place();
  const refund = async (reason: string): Promise<Taken> => {
    await gateway.refund(key);
    return { kind: "refunded", message: `${reason} ${REFUNDED}` };
  };
  if (tags.gatehouse_flow === "portal_autopay") {
    if (!found) return { kind: "not enrolled", message: "This unit is no longer on your account, so autopay was not turned on." };
    const { unit } = found;
    if (!unit.settings.is_autopay_enabled) return { kind: "not enrolled", message: "Autopay cannot be set up online right now, so it was not turned on." };
    try {
      await unit.storage.enrolAutopay({ tenantId: tags.gatehouse_tenant!, leaseId: tags.gatehouse_lease!, method: { kind: "token", token: session.intentId!, saveCard: false }, now });
      return { kind: "enrolled" };
    } catch (error) {
      if (error instanceof PaymentDeclinedError) return { kind: "not enrolled", message: `${error.reason} Autopay was not turned on.` };
      if (error instanceof StorageValidationError) return { kind: "not enrolled", message: error.message };
      if (error instanceof OutcomeUnknownError) return { kind: "later", message: PAYMENT_BEING_CONFIRMED };
      throw error;
    }
  }
  if (!found) return refund("This unit is no longer on your account, so the payment was not recorded.");
  const { ctx, unit } = found;
  const amount = session.amount ?? 0;
  const pay = () => recordPayment(ctx, unit, session, now);
  if (tags.gatehouse_flow === "pay_link") {
    const link = await payLinkById(ctx.db, Number(tags.gatehouse_link), now);
    if (link.status === "unknown") return refund("This pay link is no longer valid, so the payment was not recorded.");
    if (link.status === "used") {
      const mine = await ctx.db.query.payments.findFirst({ columns: { id: true, status: true }, where: eq(payments.idempotencyKey, key) });
      if (mine?.status === "approved" && link.link.paymentId === String(mine.id)) return { kind: "recorded", paymentId: String(mine.id) };
      return refund("This bill was already paid through this link, so this payment was not needed.");
    }
    if (link.status === "expired") return refund("This pay link expired before the payment was confirmed, so it was not recorded.");
    const linkUnit = await payLinkUnit(ctx, link.link);
    if (!linkUnit) return refund("This unit is no longer on this account, so the payment was not recorded.");
    const outcome = await payThroughHeldLink(ctx, link.link, linkUnit, { idempotencyKey: key, expectedAmount: amount, pay });
    if (outcome.ok) return { kind: "recorded", paymentId: outcome.paymentId };
    if (outcome.status !== "refused") return refund(outcome.status === "used" ? "This bill was already paid through this link, so this payment was not needed." : PAY_LINK_EXPIRED_MESSAGE);
    if (outcome.message === PAYMENT_BEING_CONFIRMED || outcome.message === PAY_LINK_BUSY_MESSAGE) return { kind: "later", message: PAYMENT_BEING_CONFIRMED };
    return refund(outcome.message);
  }
  const existing = await ctx.db.query.payments.findFirst({ columns: { id: true, status: true }, where: eq(payments.idempotencyKey, key) });
  if (existing?.status === "approved") return { kind: "recorded", paymentId: String(existing.id) };
  if (tags.gatehouse_flow === "portal_pay") {
    // Still owed? The balance chosen must still be due; another amount must stay within the cap.
    if (tags.gatehouse_choice === "balance" && unit.lease.balance < amount) {
      return refund(`Your balance due changed while you were on the payment page (it is now ${formatCents(Math.max(0, unit.lease.balance))}), so this payment was not recorded.`);
    }
    const prepayMonths = unit.settings.is_prepayments_enabled ? unit.settings.portal_prepay_months : 0;
    const over = await amountCapError(unit.storage, { tenantId: tags.gatehouse_tenant!, leaseId: tags.gatehouse_lease!, amount, prepayMonths });
    if (over) return refund(over);
  }
  const outcome = await pay();
  if (outcome.ok) return { kind: "recorded", paymentId: outcome.paymentId };
  if (outcome.message === PAYMENT_BEING_CONFIRMED) return { kind: "later", message: PAYMENT_BEING_CONFIRMED };
  return refund(outcome.message);
}

/**
 * The payment of a paid session through the port, its PaymentIntent as the token (the gateway
 * checks its amount and key): the payment row and ledger line, the paid-through date, the saved card
 * when chosen, and the receipt e-mail the first time, exactly as a token payment.
 */
async function recordPayment(ctx: PortalContext, unit: PortalUnit, session: HostedSession, now: Date): Promise<PaymentOutcome> {
  const tags = session.metadata;
  const key = tags.gatehouse_key!;
  const amount = session.amount ?? 0;
  const method = { kind: "token" as const, token: session.intentId!, saveCard: tags.gatehouse_save === "1" };
  const base = { tenantId: tags.gatehouse_tenant!, leaseId: tags.gatehouse_lease!, method, idempotencyKey: key, now };
  const before = await ctx.db.query.payments.findFirst({ columns: { id: true }, where: eq(payments.idempotencyKey, key) });
  let payment: Payment;
  try {
    payment =
      tags.gatehouse_flow === "portal_prepay"
        ? await unit.storage.prepay({ ...base, months: Number(tags.gatehouse_months), expectedTotal: amount })
        : await unit.storage.makePayment({ ...base, amount });
  } catch (error) {
    if (error instanceof PaymentDeclinedError) return { ok: false, message: error.reason };
    if (error instanceof StorageValidationError) return { ok: false, message: error.message };
    if (error instanceof OutcomeUnknownError) return { ok: false, message: PAYMENT_BEING_CONFIRMED };
    throw error;
  }
  if (payment.status !== "approved") return { ok: false, message: payment.declineReason ?? "The payment could not be recorded." };
  if (!before) await emailReceipt(ctx, unit.storage, base.tenantId, payment, ctx.origin);
  return { ok: true, paymentId: payment.id };
}

/** Whether the session is this page's: its flow, tenant, lease (and link) and the key the return URL carries. */
function isThisPagesSession(session: HostedSession, page: { flow: HostedPageFlow; tenantId: string; leaseId: string; key: string | null; linkId?: number }): boolean {
  const t = session.metadata;
  return (
    t.gatehouse_flow === page.flow &&
    t.gatehouse_tenant === page.tenantId &&
    t.gatehouse_lease === page.leaseId &&
    Boolean(page.key) &&
    t.gatehouse_key === page.key &&
    (page.flow !== "pay_link" || t.gatehouse_link === String(page.linkId))
  );
}

type HostedPageReturn = { kind: "receipt"; paymentId: string } | { kind: "enrolled" } | { kind: "message"; message: string };

/** The return from Checkout on a portal page (or the pay link): recorded once, or why not. */
export async function returnFromHostedPage(
  ctx: PortalContext,
  unit: PortalUnit,
  page: { flow: HostedPageFlow; sessionId: string; key: string | null; tenantId: string; linkId?: number },
): Promise<HostedPageReturn> {
  const gateway = getPaymentGateway(unit.location);
  if (!gateway.hostedSession) return { kind: "message", message: HOSTED_PAGE_OTHER };
  let session: HostedSession | null;
  try {
    session = await gateway.hostedSession(page.sessionId);
  } catch {
    return { kind: "message", message: HOSTED_PAGE_CHECK_LATER };
  }
  if (!session || !isThisPagesSession(session, { ...page, leaseId: unit.lease.leaseId })) return { kind: "message", message: HOSTED_PAGE_OTHER };
  if (!session.done) return { kind: "message", message: page.flow === "portal_autopay" ? HOSTED_SETUP_UNFINISHED : HOSTED_PAGE_UNPAID };
  if (!session.intentId) return { kind: "message", message: HOSTED_PAGE_OTHER };
  const { taken } = await take(ctx.db, gateway, session, ctx.now, async () => ({ ctx, unit }));
  if (taken.kind === "recorded") return { kind: "receipt", paymentId: taken.paymentId };
  if (taken.kind === "enrolled") return { kind: "enrolled" };
  return { kind: "message", message: taken.message };
}

/**
 * A portal card page's loader with `?checkout_session=…` (the return) or `?checkout=cancelled`: a
 * recorded payment goes to its receipt, an enrolment to the portal's home (both thrown redirects);
 * anything else is the form's message (a Conform result, with the values kept on a cancel); null
 * on an ordinary visit.
 */
export async function hostedPageOnPortalPage(request: Request, ctx: PortalContext & { session: { tenantId: string } }, unit: PortalUnit, flow: Exclude<HostedPageFlow, "pay_link">): Promise<SubmissionResult<string[]> | null> {
  const url = new URL(request.url);
  const cancelled = url.searchParams.get("checkout") === "cancelled";
  const key = url.searchParams.get("payment");
  // A cancel expires the page at once; one paid meanwhile is taken as its return (decision 442).
  const paidMeanwhile = cancelled ? await expireCancelledHostedPages(ctx.db, unit.location, { key, tenantId: ctx.session.tenantId, now: ctx.now }) : null;
  const sessionId = url.searchParams.get("checkout_session") ?? paidMeanwhile;
  if (sessionId) {
    const back = await returnFromHostedPage(ctx, unit, { flow, sessionId, key, tenantId: ctx.session.tenantId });
    if (back.kind === "receipt") throw redirect(`/customer-portal/receipts/${back.paymentId}?new=1`, { headers: portalHeaders() });
    if (back.kind === "enrolled") throw redirect("/customer-portal?done=autopay-on", { headers: portalHeaders() });
    return formMessage(back.message, { payment_method: "new" });
  }
  if (cancelled) {
    const kept = flow === "portal_pay" ? ["amount_choice", "other_amount", "save_card"] : flow === "portal_prepay" ? ["months", "save_card"] : [];
    const values: Record<string, string> = { payment_method: "new" };
    for (const name of kept) {
      const v = url.searchParams.get(name);
      if (v !== null && v.length <= 100) values[name] = v;
    }
    return formMessage(flow === "portal_autopay" ? HOSTED_SETUP_CANCELLED : HOSTED_PAGE_CANCELLED, values);
  }
  return null;
}

export function formMessage(message: string, initialValue: Record<string, string> = {}): SubmissionResult<string[]> {
  return { status: "error", initialValue, error: { "": [message] } };
}

// --------------------------------------------------------------------------------------- webhook

/**
 * Stripe's webhook for a portal or pay-link Checkout (decision 400), or null for any other event (the
 * rental's and the rest are decision 382's). `checkout.session.completed` paid (setup: complete)
 * records the session once, as its return would; the PaymentIntent's own events wait for it.
 * A session its return is recording at this moment is left for Stripe to deliver again (an error).
 */
export async function takeHostedPageEvent(db: Database, event: Stripe.Event, now: Date): Promise<string | null> {
  const object = event.data.object as { id?: string; object?: string; metadata?: Record<string, string> | null };
  const flow = object.metadata?.gatehouse_flow;
  if (!flow || !FLOWS.has(flow)) return null;
  if (event.type === "payment_intent.succeeded" || event.type === "payment_intent.payment_failed" || event.type === "setup_intent.succeeded") {
    const key = object.metadata?.gatehouse_key;
    const row = key ? await db.query.payments.findFirst({ columns: { status: true }, where: eq(payments.idempotencyKey, key) }) : undefined;
    if (row?.status === "approved") return "already recorded";
    return "pending: recorded with its Checkout Session (checkout.session.completed or the tenant's return)";
  }
  if (event.type !== "checkout.session.completed") return "ignored";
  const tenantId = object.metadata?.gatehouse_tenant ?? "";
  const leaseId = object.metadata?.gatehouse_lease ?? "";
  const site = /^\d{1,9}$/.test(leaseId) ? await siteOfLease(db, Number(leaseId)) : null;
  const ctx = site ? await portalContextOf(db, site, now) : null;
  const unit = ctx ? await findPortalUnit(ctx, tenantId, leaseId) : null;
  if (!ctx || !unit) return "needs attention: a Checkout Session for a lease we cannot find";
  const gateway = getPaymentGateway(unit.location);
  const session = await gateway.hostedSession?.(object.id ?? "");
  if (!session || !session.metadata.gatehouse_key || !session.intentId) return "needs attention: a Checkout Session the processor does not show";
  if (!session.done) return "ignored: not paid";
  const { taken, first } = await take(db, gateway, session, now, async () => ({ ctx, unit }));
  if (taken.kind === "later") throw new Error(`Checkout Session ${session.id} is not settled yet (${taken.message}); Stripe delivers the event again later`);
  if (!first) return taken.kind === "refunded" ? "already refunded" : taken.kind === "not enrolled" ? `already taken: not enrolled: ${taken.message}` : "already recorded";
  if (taken.kind === "recorded") return `recorded: Checkout payment ${taken.paymentId}`;
  if (taken.kind === "enrolled") return "recorded: autopay enrolled from Checkout";
  return `${taken.kind}: ${taken.message}`;
}

