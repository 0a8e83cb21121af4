/**
 * A card payment held for the cardholder's authentication (3-D Secure), completed from a link we
 * e-mail (issue 25, docs/decisions/395-authentication-links.md). The billing run's autopay charge
 * (off session) that the bank wants confirmed is recorded as declined; the tenant gets a link to
 * `/pay/authenticate/{signed}`, which shows the location, the unit and the amount and completes the
 * authentication through the processor: with JavaScript off, the processor's authentication page
 * (the PaymentIntent's `next_action` redirect), which returns to the same page, where the payment is
 * checked with the processor server-side and recorded once (recordLatePayment, with its receipt; Stripe's webhook
 * records it the same way when it comes first).
 *
 * - The link is `{payload}.{mac}`: the payload names the payment, the processor's intent and when the
 *   link stops working (AUTHENTICATION_LINK_TTL_MS); the mac is HMAC-SHA256 under the session secrets
 *   (the first signs, all verify), so a tampered or made-up link is refused before any lookup.
 * - Single use by the payment itself: once it is recorded as paid, the link only says so; the
 *   processor's intent can be paid only once.
 */
import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, leases, locations, payments, units, websites } from "~/db/schema";
import { formatCents } from "~/domain/shared/money";
import { env } from "~/platform/env.server";
import { getPaymentGateway, hostedFieldsClientConfig } from "~/platform/payments/gateway.server";
import { AUTHENTICATION_REASON } from "~/platform/payments/stripe.server";
import { logger } from "~/platform/logger.server";
import { saveLatePaymentCard } from "~/storage-software/index.server";
import { LATE_SITELINK_REFUND_REASON, recordLatePayment } from "./late-payments.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { addressKey, hitRateLimit } from "../web/rate-limit.server";
import { publicOrigin } from "../site/origin.server";

/** How long an authentication link works (Stripe keeps an intent confirmable for days; we ask within three). */
const AUTHENTICATION_LINK_TTL_MS = 72 * 60 * 60 * 1000;
const POSTS_PER_IP = 20;
const POSTS_WINDOW_MS = 15 * 60 * 1000;

const macOf = (payload: string, secret: string) => crypto.createHmac("sha256", secret).update(`authenticate:${payload}`).digest("base64url");

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

interface LinkClaims {
  paymentId: number;
  intentId: string;
  expiresAt: Date;
}

function signLink(claims: LinkClaims): string {
  const payload = Buffer.from(`${claims.paymentId}.${claims.intentId}.${Math.floor(claims.expiresAt.getTime() / 1000)}`).toString("base64url");
  return `${payload}.${macOf(payload, env().sessionSecrets[0]!)}`;
}

function verifyLink(signed: string): LinkClaims | null {
  const m = /^([A-Za-z0-9_-]{1,200})\.([A-Za-z0-9_-]{43})$/.exec(signed);
  if (!m) return null;
  if (!env().sessionSecrets.some((s) => sameText(macOf(m[1]!, s), m[2]!))) return null;
  const parts = /^(\d+)\.(pi_[A-Za-z0-9_]+)\.(\d+)$/.exec(Buffer.from(m[1]!, "base64url").toString());
  if (!parts) return null;
  return { paymentId: Number(parts[1]), intentId: parts[2]!, expiresAt: new Date(Number(parts[3]) * 1000) };
}

const authenticationPath = (signed: string) => `/pay/authenticate/${signed}`;

/** The payment of a link with its lease, unit, location and site (what the page and the e-mail show). */
async function paymentOfLink(db: Database, paymentId: number) {
  const [row] = await db
    .select({
      payment: { id: payments.id, status: payments.status, amount: payments.amount, idempotencyKey: payments.idempotencyKey },
      leaseId: leases.id,
      unitName: units.name,
      location: { id: locations.id, name: locations.name },
      domain: websites.domain,
    })
    .from(payments)
    .innerJoin(leases, eq(leases.id, payments.leaseId))
    .innerJoin(units, eq(units.id, leases.unitId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .innerJoin(websites, eq(websites.accountId, accounts.id))
    .where(eq(payments.id, paymentId))
    .limit(1);
  return row ?? null;
}

/**
 * E-mails the tenant a link to complete a payment their bank wants confirmed (the billing run's
 * autopay charge). `paymentKey` is the declined payment's idempotency key; nothing is sent when it
 * is not recorded or is already paid.
 */
export async function emailAuthenticationLink(db: Database, input: { paymentKey: string; intentId?: string; to: string; firstName: string; now: Date }): Promise<boolean> {
  const row = await db.query.payments.findFirst({ columns: { id: true, status: true }, where: eq(payments.idempotencyKey, input.paymentKey) });
  if (!row || row.status !== "declined") return false;
  const found = await paymentOfLink(db, row.id);
  if (!found) return false;
  // A portal payment held this way: the processor's intent is found by the payment's key.
  const held = input.intentId ? null : await getPaymentGateway(found.location).lookup(input.paymentKey);
  const intentId = input.intentId ?? (held?.status === "declined" ? held.authentication?.intentId : undefined);
  if (!intentId || !intentId.startsWith("pi_")) return false;
  const signed = signLink({ paymentId: row.id, intentId, expiresAt: new Date(input.now.getTime() + AUTHENTICATION_LINK_TTL_MS) });
  const url = `${publicOrigin({ domain: found.domain })}${authenticationPath(signed)}`;
  const queued = await queueEmail(db, {
    to: input.to,
    subject: "Please confirm your storage payment with your bank",
    secrets: [url, signed],
    text: [
      `Hello ${input.firstName},`,
      "",
      `Your bank asks you to confirm the payment of ${formatCents(found.payment.amount)} for unit ${found.unitName} at ${found.location.name}. Nothing has been charged yet.`,
      "",
      "To confirm it, open this link (it works for 72 hours):",
      "",
      url,
      "",
      "Or sign in to the customer portal to pay with another card, or call the office.",
    ].join("\n"),
  });
  await sendQueuedEmail(db, queued.id);
  return true;
}

type AuthenticationPage =
  | { state: "unknown" }
  | { state: "expired" }
  | { state: "paid"; locationName: string; unitName: string; amount: number }
  | { state: "open"; locationName: string; unitName: string; amount: number; message: string | null };

async function pageOf(db: Database, claims: LinkClaims, now: Date, message: string | null): Promise<AuthenticationPage> {
  const found = await paymentOfLink(db, claims.paymentId);
  if (!found) return { state: "unknown" };
  const shown = { locationName: found.location.name, unitName: found.unitName, amount: found.payment.amount };
  if (found.payment.status === "approved" || found.payment.status === "refunded") return { state: "paid", ...shown };
  if (claims.expiresAt.getTime() <= now.getTime()) return { state: "expired" };
  return { state: "open", ...shown, message };
}

/**
 * The page of a link. On the processor's return (`payment_intent` in the query), the payment is
 * checked with the processor and recorded once when it succeeded.
 */
export async function authenticationPage(db: Database, input: { signed: string; returned: boolean; now: Date }): Promise<AuthenticationPage> {
  const claims = verifyLink(input.signed);
  if (!claims) return { state: "unknown" };
  if (!input.returned) return pageOf(db, claims, input.now, null);
  const found = await paymentOfLink(db, claims.paymentId);
  if (!found) return { state: "unknown" };
  const outcome = await getPaymentGateway(found.location).authenticationOutcome?.(claims.intentId);
  if (outcome?.kind === "succeeded" && outcome.key === found.payment.idempotencyKey) {
    await recordLatePayment(db, { idempotencyKey: found.payment.idempotencyKey, amount: outcome.amount, authReference: outcome.intentId, now: input.now });
  }
  return pageOf(db, claims, input.now, outcome?.kind === "failed" ? outcome.reason : null);
}

type AuthenticationStart = { kind: "unknown" } | { kind: "redirect"; url: string } | { kind: "page"; message: string | null };

/** The page's button: on to the processor's authentication page (or back to the page, with what happened). */
export async function startAuthentication(db: Database, input: { signed: string; origin: string; ip: string; now: Date }): Promise<AuthenticationStart> {
  const claims = verifyLink(input.signed);
  if (!claims) return { kind: "unknown" };
  const limited = await hitRateLimit(db, { key: addressKey("authenticate", input.ip), limit: POSTS_PER_IP, windowMs: POSTS_WINDOW_MS, now: input.now });
  if (!limited.allowed) return { kind: "page", message: `Too many attempts. Please wait ${limited.retryAfterMinutes} minutes and try again, or call the office.` };
  const page = await pageOf(db, claims, input.now, null);
  if (page.state !== "open") return page.state === "unknown" ? { kind: "unknown" } : { kind: "page", message: null };
  const found = (await paymentOfLink(db, claims.paymentId))!;
  const gateway = getPaymentGateway(found.location);
  if (!gateway.continueAuthentication) return { kind: "page", message: "This payment cannot be confirmed online. Please call the office." };
  const step = await gateway.continueAuthentication(claims.intentId, `${input.origin}${authenticationPath(input.signed)}`);
  if (step.kind === "redirect") return { kind: "redirect", url: step.url };
  if (step.kind === "succeeded" && step.key === found.payment.idempotencyKey) {
    await recordLatePayment(db, { idempotencyKey: found.payment.idempotencyKey, amount: step.amount, authReference: step.intentId, now: input.now });
  }
  return { kind: "page", message: step.kind === "failed" ? step.reason : null };
}

type InPageCompletion = { kind: "not held" } | { kind: "paid"; paymentId: string } | { kind: "refused"; message: string };

const NOT_THIS_PAYMENT = "This payment could not be completed. Nothing more was charged; please reload the page and try again.";

/**
 * A portal or pay-link form sent again by the page's script after the tenant confirmed the payment
 * with the bank on the page (decision 405): `intentId` is the PaymentIntent the script completed,
 * `idempotencyKey` the form's key, under which the payment was recorded as held for authentication.
 * The PaymentIntent is retrieved from the processor: it must have succeeded, carry this payment's key
 * and its amount (and currency, checked by the gateway); then the held payment is recorded as paid,
 * once (recordLatePayment: recordLateCardPayment's conditional update, and the receipt e-mail once; the form sent twice, or Stripe's webhook racing
 * it, record it once). "not held": the key is not a payment of this tenant's lease held this way.
 */
export async function completeHeldPaymentInPage(
  db: Database,
  input: { tenantId: string; leaseId: string; idempotencyKey: string; intentId: string; now: Date; saveCard?: boolean },
): Promise<InPageCompletion> {
  const done = await completeHeld(db, input);
  if (done.kind === "paid" && input.saveCard) await saveCompletedCard(db, input);
  return done;
}

/**
 * "Save this card" on the form whose payment was completed on the page (decision 443): the card the
 * processor charged, as a saved card's token (`cus_…:pm_…`: the first attempt set it up for later use),
 * saved for the tenant. A card the processor did not set up (no customer) is not saved; the payment
 * stands either way.
 */
async function saveCompletedCard(db: Database, input: { tenantId: string; leaseId: string; idempotencyKey: string }): Promise<void> {
  try {
    const [lease] = await db.select({ locationId: leases.locationId }).from(leases).where(eq(leases.id, Number(input.leaseId)));
    if (!lease) return;
    const charged = await getPaymentGateway({ id: lease.locationId }).lookup(input.idempotencyKey);
    if (charged?.status !== "approved" || !/^cus_[A-Za-z0-9_]+:pm_[A-Za-z0-9_]+$/.test(charged.cardToken) || !charged.expMonth || !charged.expYear) return;
    await saveLatePaymentCard(db, {
      idempotencyKey: input.idempotencyKey,
      tenantId: Number(input.tenantId),
      card: { brand: charged.brand, last4: charged.last4, expMonth: charged.expMonth, expYear: charged.expYear, token: charged.cardToken },
    });
  } catch (error) {
    logger.warn({ err: error, key: input.idempotencyKey }, "[payments] the card of a payment completed on the page could not be saved");
  }
}

async function completeHeld(
  db: Database,
  input: { tenantId: string; leaseId: string; idempotencyKey: string; intentId: string; now: Date },
): Promise<InPageCompletion> {
  const row = await db.query.payments.findFirst({ where: eq(payments.idempotencyKey, input.idempotencyKey) });
  if (!row || row.leaseId === null || String(row.tenantId) !== input.tenantId || String(row.leaseId) !== input.leaseId) return { kind: "not held" };
  if (row.status === "approved") return { kind: "paid", paymentId: String(row.id) };
  // Completed at a SiteLink option-B location and given back already (decision 441).
  if (row.status === "declined" && row.declineReason === LATE_SITELINK_REFUND_REASON) return { kind: "refused", message: LATE_SITELINK_REFUND_REASON };
  if (row.status !== "declined" || row.declineReason !== AUTHENTICATION_REASON) return { kind: "not held" };
  const [lease] = await db.select({ locationId: leases.locationId }).from(leases).where(eq(leases.id, row.leaseId));
  if (!lease) return { kind: "not held" };
  const gateway = getPaymentGateway({ id: lease.locationId });
  const step = await gateway.authenticationOutcome?.(input.intentId);
  if (!step) return { kind: "refused", message: NOT_THIS_PAYMENT };
  if (step.kind === "failed") return { kind: "refused", message: step.reason };
  if (step.kind === "pending" || step.kind === "redirect") return { kind: "refused", message: "Your bank has not confirmed this payment yet. Nothing was charged; please try again." };
  if (step.key !== row.idempotencyKey || step.amount !== row.amount) return { kind: "refused", message: NOT_THIS_PAYMENT };
  const recorded = await recordLatePayment(db, { idempotencyKey: row.idempotencyKey, amount: step.amount, authReference: step.intentId, now: input.now });
  if (recorded === "recorded" || recorded === "already recorded") return { kind: "paid", paymentId: String(row.id) };
  if (recorded === "refunded") return { kind: "refused", message: LATE_SITELINK_REFUND_REASON };
  logger.warn({ payment: row.id, outcome: recorded }, "a payment confirmed on the page could not be recorded here");
  return { kind: "refused", message: "Your bank confirmed this payment, but we could not record it here. Please do not pay again; the office will contact you." };
}

/**
 * What the link's page needs to complete the payment in place with JavaScript on (decision 405): the
 * PaymentIntent's client secret, and the card to confirm it with again when it was held off session
 * (the billing run's autopay). Null when the page has nothing to complete in place (no Stripe.js on
 * the payment pages, not open, paid, expired) — the button then goes to the bank's page as without
 * JavaScript. Reads only.
 */
export async function authenticationInPage(db: Database, input: { signed: string; now: Date }): Promise<{ clientSecret: string; paymentMethod: string | null } | null> {
  if (!hostedFieldsClientConfig()) return null;
  const claims = verifyLink(input.signed);
  if (!claims || claims.expiresAt.getTime() <= input.now.getTime()) return null;
  const found = await paymentOfLink(db, claims.paymentId);
  if (!found || found.payment.status !== "declined") return null;
  const gateway = getPaymentGateway(found.location);
  return (await gateway.inPageAuthentication?.(claims.intentId)) ?? null;
}
