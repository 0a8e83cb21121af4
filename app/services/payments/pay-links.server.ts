/**
 * "Pay without a password" (issue 23, docs/decisions/240-pay-links.md): a signed, single-use link that
 * expires (PAY_LINK_TTL_MS) and pays one lease's balance due through the portal's own payment service
 * (portal-payments.server.ts: the same card attempt limits, payment limit, idempotency and receipt).
 *
 * - The link is `/pay/{token}.{mac}`: `token` is 256 random bits, `mac` its HMAC-SHA256 under the
 *   session secrets (the first signs, all verify), so a tampered or made-up link is refused before any
 *   database lookup. Only the token's SHA-256 is stored (pay_links.token_hash), never the token.
 * - Single use: a payment through the link holds it for its form (the form's idempotency key) while the
 *   card is charged, and marks it used with the payment; a second tab's form is refused meanwhile, the
 *   same form sent twice pays once (the idempotency key), and a used link pays nothing again.
 * - It shows only the location, the unit and the amount due; it never offers the tenant's saved cards.
 */
import crypto from "node:crypto";
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { accounts, leases, locations, payLinks, payments, websites, type PayLinkSentBy } from "~/db/schema";
import { formatCents } from "~/domain/shared/money";
import { formatDate, localDate } from "~/domain/shared/calendar";
import type { ParsedMethod } from "~/domain/portal/forms";
import { env } from "~/platform/env.server";
import { cardPaymentsAt } from "~/storage-software/index.server";
import { signedCookie } from "~/platform/signed-cookie.server";
import { cookieName, hostCookieOptions } from "../web/cookie-names.server";
import { queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { addressKey, hitRateLimit } from "../web/rate-limit.server";
import { portalCardPayment, findPortalUnit, portalContextOf, type PortalCardPayment, type PortalContext } from "../portal/context.server";
import { payLease, PAYMENT_BEING_CONFIRMED, type PaymentOutcome } from "../portal/payments.server";
import { publicOrigin } from "../site/origin.server";

/** How long a pay link works after it is sent. */
export const PAY_LINK_TTL_MS = 72 * 60 * 60 * 1000;
/** How long one form holds the link while its card is being charged. */
const CLAIM_MS = 5 * 60 * 1000;

const PART = "[A-Za-z0-9_-]{43}";
const SIGNED = new RegExp(`^(${PART})\\.(${PART})$`);

const macOf = (token: string, secret: string) => crypto.createHmac("sha256", secret).update(`pay-link:${token}`).digest("base64url");
const hashOf = (token: string) => crypto.createHash("sha256").update(token).digest("hex");

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** The token of a genuine link (its signature checks under one of the session secrets), else null. */
function verifiedToken(signed: string): string | null {
  const m = SIGNED.exec(signed);
  if (!m) return null;
  return env().sessionSecrets.some((s) => sameText(macOf(m[1]!, s), m[2]!)) ? m[1]! : null;
}

/** The path of a pay link (the signed token is its only part). */
export const payLinkPath = (signed: string) => `/pay/${signed}`;

type Db = Database | Transaction;

/** Creates a link for the lease; returns the signed token (to put in a URL) and the row's id. Never logs or stores the token. */
async function createPayLink(db: Db, input: { tenantId: number; leaseId: number; sentBy: PayLinkSentBy; staffId?: number | null; now: Date }) {
  const token = crypto.randomBytes(32).toString("base64url");
  const signed = `${token}.${macOf(token, env().sessionSecrets[0]!)}`;
  const expiresAt = new Date(input.now.getTime() + PAY_LINK_TTL_MS);
  const [row] = await db
    .insert(payLinks)
    .values({
      tokenHash: hashOf(token),
      tenantId: input.tenantId,
      leaseId: input.leaseId,
      sentBy: input.sentBy,
      createdByStaffId: input.staffId ?? null,
      expiresAt,
      createdAt: input.now,
      updatedAt: input.now,
    })
    .returning({ id: payLinks.id });
  return { id: row!.id, signed, expiresAt };
}

type PayLinkRow = typeof payLinks.$inferSelect;
type PayLinkLookup = { status: "unknown" } | { status: "expired"; link: PayLinkRow } | { status: "used"; link: PayLinkRow } | { status: "valid"; link: PayLinkRow };

/** What a link is now: unknown (tampered, made up, or deleted), expired, used, or valid. A bad signature is answered without a lookup. */
export async function lookUpPayLink(db: Database, signed: string, now: Date): Promise<PayLinkLookup> {
  const token = verifiedToken(signed);
  if (!token) return { status: "unknown" };
  const link = await db.query.payLinks.findFirst({ where: eq(payLinks.tokenHash, hashOf(token)) });
  if (!link) return { status: "unknown" };
  if (link.usedAt) return { status: "used", link };
  if (link.expiresAt.getTime() <= now.getTime()) return { status: "expired", link };
  return { status: "valid", link };
}

/** What a link is now, by its row id (the Stripe Checkout return and webhook, which carry no signed token, decision 400). */
export async function payLinkById(db: Database, id: number, now: Date): Promise<PayLinkLookup> {
  const link = await db.query.payLinks.findFirst({ where: eq(payLinks.id, id) });
  if (!link) return { status: "unknown" };
  if (link.usedAt) return { status: "used", link };
  if (link.expiresAt.getTime() <= now.getTime()) return { status: "expired", link };
  return { status: "valid", link };
}

/** The account (and website) a lease belongs to, for the portal context of a link (or a webhook) without a request. */
export async function siteOfLease(db: Database | Transaction, leaseId: number) {
  const [row] = await db
    .select({ account: { id: accounts.id, globalSettings: accounts.globalSettings }, website: { websiteName: websites.websiteName, domain: websites.domain } })
    .from(leases)
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .innerJoin(websites, eq(websites.accountId, accounts.id))
    .where(eq(leases.id, leaseId))
    .limit(1);
  return row ?? null;
}

/** The lease of a link as the portal sees it (its location, software, settings), or null when it is gone. */
export function payLinkUnit(ctx: PortalContext, link: Pick<PayLinkRow, "tenantId" | "leaseId">) {
  return findPortalUnit(ctx, String(link.tenantId), String(link.leaseId));
}

type PayLinkUnit = NonNullable<Awaited<ReturnType<typeof payLinkUnit>>>;

/** How this unit's location takes cards here (external site, none, or our card form), as the portal's pay page decides. */
export async function payLinkCardPayment(unit: PayLinkUnit): Promise<PortalCardPayment> {
  return portalCardPayment(unit.location, await cardPaymentsAt(unit.storage, unit.location));
}

/** Why no link can be sent for this lease (an external payment site, no cards online, payments off, moved out), or null. */
async function cannotPayHere(unit: PayLinkUnit): Promise<string | null> {
  if (unit.lease.status !== "active") return "This lease has ended.";
  if (!unit.settings.is_payments_enabled) return "Online payments are turned off for this location.";
  const payment = await payLinkCardPayment(unit);
  if (payment.kind === "external") return "This location takes payments on its own payment site, not through our portal.";
  if (payment.kind === "no_cards") return "This location takes no card payments online.";
  return null;
}

/** Why no link is made for a lease that owes nothing (its balance is zero, or a credit). */
const NOTHING_DUE_MESSAGE = (balance: number) =>
  balance < 0
    ? `Nothing is due on this lease (the tenant has a credit of ${formatCents(-balance)}): there is nothing to pay through a link.`
    : "Nothing is due on this lease (the balance is $0.00): there is nothing to pay through a link.";

type SendPayLinkResult = { ok: true; linkId: number; expiresAt: Date; outboxId: number } | { ok: false; message: string };

interface LinkMail {
  tenantId: number;
  leaseId: number;
  sentBy: PayLinkSentBy;
  staffId?: number | null;
  now: Date;
}

/**
 * Everything a link's e-mail needs, read before the transaction (the storage software may be a remote
 * system): the tenant, the lease, the portal context; or why no link can be sent.
 */
async function prepare(db: Database | Transaction, input: { tenantId: number; leaseId: number; now: Date }, needs: "email" | "nothing" = "email") {
  const site = await siteOfLease(db, input.leaseId);
  if (!site) return { ok: false as const, message: "No such lease." };
  const ctx = await portalContextOf(db, site, input.now);
  const unit = await payLinkUnit(ctx, input);
  if (!unit) return { ok: false as const, message: "No such lease for this tenant." };
  const refusal = await cannotPayHere(unit);
  if (refusal) return { ok: false as const, message: refusal };
  // Nothing due (issue 39): a link for $0.00 would only tell the tenant "there is nothing to pay".
  if (unit.lease.balance <= 0) return { ok: false as const, message: NOTHING_DUE_MESSAGE(unit.lease.balance) };
  const tenant = await unit.storage.getTenant(String(input.tenantId));
  if (!tenant) return { ok: false as const, message: "No such tenant." };
  if (needs === "email" && !tenant.email) return { ok: false as const, message: "This tenant has no e-mail address." };
  return { ok: true as const, ctx, unit, tenant, origin: publicOrigin(site.website) };
}

/** Creates the link and queues its e-mail with `db` (a transaction of the caller's, or one of ours). */
async function createAndMail(tx: Db, prepared: Extract<Awaited<ReturnType<typeof prepare>>, { ok: true }>, input: LinkMail, intro: string): Promise<SendPayLinkResult> {
  const { ctx, unit, tenant, origin } = prepared;
  const link = await createPayLink(tx, input);
  const url = `${origin}${payLinkPath(link.signed)}`;
  const due = Math.max(0, unit.lease.balance);
  const mail = await queueEmail(tx, {
    locationId: unit.location.id,
    to: tenant.email,
    subject: `Pay your storage bill: unit ${unit.lease.unitName} at ${unit.location.name}`,
    secrets: [url, link.signed],
    text: [
      `Hello ${tenant.firstName},`,
      "",
      intro,
      `Unit ${unit.lease.unitName} at ${unit.location.name}: ${formatCents(due)} due.`,
      "",
      "You can pay it by card without signing in, through this link:",
      "",
      url,
      "",
      `The link works once, for this unit only, until ${formatDate(localDate(link.expiresAt, unit.location.timeZone))} (72 hours). After that, please sign in to the customer portal at ${origin}/customer-portal/login to pay.`,
      "If you did not expect this e-mail, you can ignore it, or call the office.",
      "",
      ctx.siteName,
    ].join("\n"),
  });
  return { ok: true, linkId: link.id, expiresAt: link.expiresAt, outboxId: mail.id };
}

/**
 * The back office's "send a pay link": creates a link for the tenant's lease and queues its e-mail in
 * one transaction, then sends it. Pass `tx` to do both inside the caller's transaction (with its audit
 * row); then call `sendQueuedEmail(db, result.outboxId)` after the commit to send it at once (else the
 * retry job sends it). The result's `linkId` is what the audit may record (never the link itself).
 */
export async function sendPayLink(
  db: Database,
  input: { tenantId: number; leaseId: number; staffId?: number | null; now: Date },
  tx?: Transaction,
): Promise<SendPayLinkResult> {
  // Inside the caller's transaction everything is read through it (the embedded database runs one
  // transaction at a time: a read beside it would wait for it).
  const prepared = await prepare(tx ?? db, input);
  if (!prepared.ok) return prepared;
  const mail: LinkMail = { ...input, sentBy: "staff" };
  const intro = "The office sent you a link to pay your storage bill.";
  if (tx) return createAndMail(tx, prepared, mail, intro);
  const result = await db.transaction((t) => createAndMail(t, prepared, mail, intro));
  if (result.ok) await sendQueuedEmail(db, result.outboxId);
  return result;
}

/**
 * A billing reminder with a pay link: `write` queues the reminder inside a transaction in which a fresh
 * link for the lease has been created, when the lease's location takes payments through our portal
 * (not an external payment site, not "call the office"); otherwise `write` gets no link. What the link
 * needs is read before the transaction (the embedded database runs one transaction at a time).
 */
export async function withReminderPayLink<T>(
  db: Database,
  input: { tenantId: number; leaseId: number; now: Date },
  write: (tx: Transaction, link: { id: number; url: string; signed: string } | null) => Promise<T>,
): Promise<T> {
  const prepared = await prepare(db, input);
  return db.transaction(async (tx) => {
    if (!prepared.ok) return write(tx, null);
    const link = await createPayLink(tx, { ...input, sentBy: "billing_reminder" });
    return write(tx, { id: link.id, url: `${prepared.origin}${payLinkPath(link.signed)}`, signed: link.signed });
  });
}

/**
 * The desk's "text a pay link" (issue 40, decision 494), "copy the link" (issue 39, decision 507) and
 * the reminder texts (decision 512): the reasons a link cannot be paid here, as for the e-mail;
 * otherwise `write` gets, inside one transaction, a fresh link for the lease (sent by staff, or by the
 * billing reminder) and what its text says (the unit, the location, the amount due, until when it works).
 */
export async function withDeskPayLink<T>(
  db: Database,
  input: { tenantId: number; leaseId: number; staffId?: number | null; sentBy?: PayLinkSentBy; now: Date },
  write: (tx: Transaction, link: { id: number; url: string; expiresAt: Date }, about: { unitName: string; locationName: string; due: number; until: string }) => Promise<T>,
): Promise<T | { ok: false; message: string }> {
  const prepared = await prepare(db, input, "nothing");
  if (!prepared.ok) return prepared;
  const { unit, origin } = prepared;
  return db.transaction(async (tx) => {
    const link = await createPayLink(tx, { ...input, sentBy: input.sentBy ?? "staff" });
    const about = { unitName: unit.lease.unitName, locationName: unit.location.name, due: Math.max(0, unit.lease.balance), until: formatDate(localDate(link.expiresAt, unit.location.timeZone)) };
    return write(tx, { id: link.id, url: `${origin}${payLinkPath(link.signed)}`, expiresAt: link.expiresAt }, about);
  });
}

export const PAY_LINK_USED_MESSAGE = "This link has already been used. To pay again or to see your payments, please sign in to the customer portal.";
export const PAY_LINK_EXPIRED_MESSAGE = "This link has expired. To pay your bill, please sign in to the customer portal.";
export const PAY_LINK_BUSY_MESSAGE =
  "This link is being used to pay right now, in another window or tab. Please do not pay again: if that payment goes through, this link will say so in a few minutes.";
export const PAY_LINK_AMOUNT_CHANGED = "The amount due has changed since this page was opened. Please check the new amount and pay again.";

type PayThroughLinkOutcome =
  | { ok: true; paymentId: string; linkId: number }
  | { ok: false; status: "unknown" | "expired" | "used" }
  | ({ ok: false; status: "refused" } & Extract<PaymentOutcome, { ok: false }>);

/**
 * Pays the lease's balance due through a link: the link is held for this form (its idempotency key),
 * the payment is the portal's payLease (balance only, no prepayment), and an approved payment marks
 * the link used. The same form sent twice is paid once; another form meanwhile is refused.
 */
export async function payThroughLink(
  ctx: PortalContext,
  input: { signed: string; method: ParsedMethod; idempotencyKey: string; expectedAmount: number; ip: string },
): Promise<PayThroughLinkOutcome> {
  const found = await lookUpPayLink(ctx.db, input.signed, ctx.now);
  if (found.status !== "valid") return { ok: false, status: found.status };
  const link = found.link;
  const unit = await payLinkUnit(ctx, link);
  if (!unit) return { ok: false, status: "unknown" };
  // A new card only (typed, or the processor's token): a pay link shows no saved card.
  const method = input.method;
  if (method.kind === "saved") return { ok: false, status: "refused", message: "Enter the card below.", fieldErrors: { card_number: ["Enter the card number."] } };
  return payThroughHeldLink(ctx, link, unit, {
    idempotencyKey: input.idempotencyKey,
    expectedAmount: input.expectedAmount,
    pay: (amount) =>
      payLease(ctx, unit.storage, {
        tenantId: String(link.tenantId),
        leaseId: String(link.leaseId),
        amount,
        method,
        idempotencyKey: input.idempotencyKey,
        origin: ctx.origin,
        phone: unit.location.phoneNumber,
        ip: input.ip,
        prepayMonths: 0,
      }),
  });
}

/**
 * Pays a valid link's balance due with `pay` (the portal's payLease, or the record of a payment the
 * tenant made on Stripe Checkout, decision 400) while the link is held for this form's key; an
 * approved payment marks the link used.
 */
export async function payThroughHeldLink(
  ctx: PortalContext,
  link: PayLinkRow,
  unit: PayLinkUnit,
  input: { idempotencyKey: string; expectedAmount: number; pay: (amount: number) => Promise<PaymentOutcome> },
): Promise<PayThroughLinkOutcome> {
  const amount = Math.max(0, unit.lease.balance);
  if (amount !== input.expectedAmount) {
    // This very form already paid (the balance is what it paid off): its receipt, not "nothing to
    // pay". So it goes when the bank's check completed on the page and Stripe's webhook recorded the
    // payment before the page's script sent the form again (decision 405).
    const paid = await paymentOfForm(ctx.db, link, input.idempotencyKey);
    if (paid) return { ok: true, paymentId: await markLinkUsed(ctx, link, paid, input.idempotencyKey), linkId: link.id };
  }
  if (amount <= 0) return { ok: false, status: "refused", message: "There is nothing to pay: the balance due is $0.00." };
  if (amount !== input.expectedAmount) return { ok: false, status: "refused", message: PAY_LINK_AMOUNT_CHANGED };

  // Hold the link for this form: free, held by this very form (a double submit), or held by a form
  // whose hold has run out.
  const held = await ctx.db
    .update(payLinks)
    .set({ claimKey: input.idempotencyKey, claimedUntil: new Date(ctx.now.getTime() + CLAIM_MS), updatedAt: ctx.now })
    .where(
      and(
        eq(payLinks.id, link.id),
        isNull(payLinks.usedAt),
        gt(payLinks.expiresAt, ctx.now),
        or(isNull(payLinks.claimKey), eq(payLinks.claimKey, input.idempotencyKey), lt(payLinks.claimedUntil, ctx.now)),
      ),
    )
    .returning({ id: payLinks.id });
  if (!held.length) {
    const again = await payLinkById(ctx.db, link.id, ctx.now);
    if (again.status !== "valid") return { ok: false, status: again.status };
    return { ok: false, status: "refused", message: PAY_LINK_BUSY_MESSAGE };
  }

  const outcome = await input.pay(amount);
  if (outcome.ok) return { ok: true, paymentId: await markLinkUsed(ctx, link, outcome.paymentId, input.idempotencyKey), linkId: link.id };
  // Being confirmed with the facility's system: the hold stays (no second payment meanwhile).
  // Anything else (declined, refused, limited): the link is free again for another try.
  if (outcome.message !== PAYMENT_BEING_CONFIRMED) {
    await ctx.db
      .update(payLinks)
      .set({ claimKey: null, claimedUntil: null, updatedAt: ctx.now })
      .where(and(eq(payLinks.id, link.id), eq(payLinks.claimKey, input.idempotencyKey), isNull(payLinks.usedAt)));
  }
  return { status: "refused", ...outcome };
}

/**
 * Marks the link used by `paymentId` (the first payment stays, if it was already used) and records
 * the payment's true source, "pay_link" (the payment row of this form's key on the link's lease,
 * decision 508), in one transaction; returns `paymentId`.
 */
async function markLinkUsed(ctx: PortalContext, link: PayLinkRow, paymentId: string, idempotencyKey: string): Promise<string> {
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(payLinks)
      .set({ usedAt: sql`coalesce(${payLinks.usedAt}, ${ctx.now.toISOString()}::timestamptz)`, paymentId: sql`coalesce(${payLinks.paymentId}, ${paymentId})`, claimKey: null, claimedUntil: null, updatedAt: ctx.now })
      .where(eq(payLinks.id, link.id));
    await tx
      .update(payments)
      .set({ source: "pay_link", updatedAt: ctx.now })
      .where(and(eq(payments.idempotencyKey, idempotencyKey), eq(payments.leaseId, link.leaseId), eq(payments.source, "portal")));
  });
  return paymentId;
}

/** The approved payment this form's key made on the link's lease, as the payment id the port gives (ours), or null. */
async function paymentOfForm(db: Database, link: PayLinkRow, idempotencyKey: string): Promise<string | null> {
  const row = await db.query.payments.findFirst({ columns: { id: true, status: true, leaseId: true }, where: eq(payments.idempotencyKey, idempotencyKey) });
  return row?.status === "approved" && row.leaseId === link.leaseId ? String(row.id) : null;
}

/** What the confirmation shows of a link's payment: only the location, the unit, the amount, the date and the receipt number. */
export async function payLinkReceipt(ctx: PortalContext, link: PayLinkRow) {
  if (!link.paymentId) return null;
  const unit = await payLinkUnit(ctx, link);
  if (!unit) return null;
  const receipt = await unit.storage.getReceipt(String(link.tenantId), link.paymentId);
  if (!receipt) return null;
  return { locationName: unit.location.name, unitName: receipt.unitName, amount: receipt.payment.amount, date: receipt.entryDate, receiptNumber: receipt.payment.id };
}

/**
 * The browser that paid through a link sees its confirmation at the link's address once (post, redirect,
 * get): a signed cookie names the link for an hour. Any other opening of a used link says it was used.
 */
function paidCookie() {
  const e = env();
  return signedCookie(cookieName("gh_paylink_paid", e.secureCookies), { ...hostCookieOptions(e.secureCookies), secrets: e.sessionSecrets, maxAge: 60 * 60 });
}

export const paidCookieHeader = (linkId: number): Promise<string> => paidCookie().serialize(String(linkId));

/** Whether this request's browser paid through the link `linkId` (its confirmation cookie). */
export async function paidHere(request: Request, linkId: number): Promise<boolean> {
  const value = await paidCookie().parse(request.headers.get("Cookie"));
  return value === String(linkId);
}

/** Form posts to pay links per address (card attempts are limited besides, per tenant and per address). */
const PAY_LINK_POSTS_PER_IP = 30;
const PAY_LINK_POSTS_WINDOW_MS = 15 * 60 * 1000;

/** Counts one pay-link form post from `ip`; the refusal message when over the limit, else null. */
export async function payLinkPostLimited(db: Database, ip: string, now: Date): Promise<string | null> {
  const r = await hitRateLimit(db, { key: addressKey("paylink", ip), limit: PAY_LINK_POSTS_PER_IP, windowMs: PAY_LINK_POSTS_WINDOW_MS, now });
  return r.allowed ? null : `Too many payment attempts. Please wait ${r.retryAfterMinutes} minutes and try again, or call the office.`;
}

/** How long a used or expired link's row is kept (what the office may look up), then deleted by housekeeping. */
export const KEEP_PAY_LINKS_MS = 90 * 24 * 60 * 60 * 1000;

/** Deletes links expired (used or not) more than KEEP_PAY_LINKS_MS ago; returns how many. */
export async function prunePayLinks(db: Database, now: Date): Promise<number> {
  const gone = await db
    .delete(payLinks)
    .where(lt(payLinks.expiresAt, new Date(now.getTime() - KEEP_PAY_LINKS_MS)))
    .returning({ id: payLinks.id });
  return gone.length;
}
