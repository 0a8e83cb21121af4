import nodemailer, { type Transporter } from "nodemailer";
import { and, eq, isNotNull, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { emailOutbox } from "~/db/schema";
import { isDatabaseUnavailable, outageReason } from "~/db/unavailable";
import {
  CLAIM_MS,
  GIVE_UP_AFTER_MS,
  KEEP_FAILED_MS,
  KEEP_SENT_MS,
  fillSecretPlaceholders,
  isTooOldToRetry,
  redactSecretPlaceholders,
  redactSecrets,
  retryDelayMs,
  secretsLongestFirst,
  withSecretPlaceholders,
} from "~/domain/mail/delivery";
import crypto from "node:crypto";
import { openSealed, seal } from "~/platform/sealed-box.server";
import { env } from "~/platform/env.server";
import { logger, scrubText } from "~/platform/logger.server";
import { now as clockNow } from "~/platform/clock.server";

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * Substrings of text/html that are secrets (reset and cancel links, lease links, gate codes): sealed
   * in the outbox until the mail is sent (or given up), then "[redacted]" (decisions 071, 198).
   */
  secrets?: string[];
  /**
   * Extra headers (decision 612: `List-Unsubscribe` and `List-Unsubscribe-Post`). A secret in a value
   * (the unsubscribe link) is sealed with the body's and redacted with it.
   */
  headers?: Record<string, string>;
  /** The location the mail is about, where there is one (decision 645: "mail that could not be sent" per location). */
  locationId?: number | null;
}

type OutboxRow = typeof emailOutbox.$inferSelect;

const SEAL_PURPOSE = "email-outbox-secrets";
/** The secrets that seal unsent mail's secrets: EMAIL_SECRET_KEY, else the session secrets (decision 198). */
function sealingSecrets(): string[] {
  const own = (env().EMAIL_SECRET_KEY ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  return own.length ? own : env().sessionSecrets;
}

/**
 * What is stored for a new mail: the secrets replaced by placeholders in the body and sealed apart
 * (decision 198), so a database dump or a read-only office user never sees a reset link, cancel link,
 * lease link or gate code, even in mail not yet sent.
 */
function sealForOutbox(email: OutgoingEmail): Pick<OutboxRow, "text" | "html" | "secrets" | "headers"> {
  const secrets = secretsLongestFirst(email.secrets ?? []);
  const headers = email.headers && Object.keys(email.headers).length ? email.headers : null;
  if (!secrets.length) return { text: email.text, html: email.html ?? null, secrets: null, headers };
  const tag = crypto.randomBytes(9).toString("base64url");
  return {
    text: withSecretPlaceholders(email.text, secrets, tag),
    html: email.html === undefined ? null : withSecretPlaceholders(email.html, secrets, tag),
    secrets: { sealed: seal(JSON.stringify({ tag, secrets }), sealingSecrets(), SEAL_PURPOSE) },
    headers: headers && Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, withSecretPlaceholders(v, secrets, tag)])),
  };
}

const mapHeaders = (headers: Record<string, string> | null | undefined, f: (v: string) => string) => (headers ? Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, f(v)])) : null);

/**
 * The message as it is sent: the sealed secrets put back into the body. Throws (SealedBoxError) when
 * they do not open with any configured secret (the secret was changed since).
 * Also what the tests and the browser tests' `lastEmailTo` hook read.
 */
export function readOutboxMail(row: Pick<OutboxRow, "text" | "html" | "secrets"> & { headers?: OutboxRow["headers"] }): { text: string; html: string | null; headers: Record<string, string> | null } {
  const s = row.secrets;
  if (!s || Array.isArray(s)) return { text: row.text, html: row.html, headers: row.headers ?? null };
  const { tag, secrets } = JSON.parse(openSealed(s.sealed, sealingSecrets(), SEAL_PURPOSE)) as { tag: string; secrets: string[] };
  const fill = (t: string) => fillSecretPlaceholders(t, secrets, tag);
  return { text: fill(row.text), html: row.html === null ? null : fill(row.html), headers: mapHeaders(row.headers, fill) };
}

/** The stored body once the mail is sent or given up: every secret "[redacted]" (decisions 071, 198). */
function redactedBody(row: Pick<OutboxRow, "text" | "html" | "secrets" | "headers">) {
  const legacy = Array.isArray(row.secrets) ? row.secrets : null;
  const redact = (t: string) => redactSecretPlaceholders(redactSecrets(t, legacy));
  return { text: redact(row.text), html: row.html === null ? null : redact(row.html), secrets: null, headers: mapHeaders(row.headers, redact) };
}

let transport: Transporter | null | undefined;

/**
 * Whether this server can send e-mail at all (a mail server is set up: SMTP_URL). Read each time (not
 * the cached transport), so the office is told the truth before it asks for a mail that cannot go.
 */
export function mailCanBeSent(): boolean {
  return Boolean(env().SMTP_URL);
}

/** The SMTP_URL the transport was made for (made again when it changes: tests change it as they go). */
let transportUrl: string | undefined;
function getTransport(): Transporter | null {
  if (transport === undefined || transportUrl !== env().SMTP_URL) {
    const url = env().SMTP_URL;
    transportUrl = url;
    // Short timeouts: a rental waits for the first attempt, and an unreachable server must not hold it.
    transport = url ? nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }) : null;
  }
  return transport;
}

/**
 * Sends an email. Every message is first written to the outbox table (the office's record, and what
 * tests read); it is then sent through SMTP when SMTP_URL is set, or logged in development.
 * A failure to send is recorded on the outbox row and retried later by `deliverPendingEmails`
 * (docs/decisions/070-outbox-delivery.md); it is never thrown at the visitor.
 *
 * The row is inserted already claimed by this process, so the retry job cannot send it meanwhile.
 */
export async function sendEmail(db: Database, email: OutgoingEmail): Promise<{ id: number; sent: boolean }> {
  const t = getTransport();
  const now = clockNow();
  const [row] = await db
    .insert(emailOutbox)
    .values({
      to: email.to,
      subject: email.subject,
      ...sealForOutbox(email),
      locationId: email.locationId ?? null,
      attempts: t ? 1 : 0,
      claimedUntil: t ? new Date(now.getTime() + CLAIM_MS) : null,
      nextAttemptAt: now,
      createdAt: now,
    })
    .returning();
  const outbox = row!;
  if (!t) {
    if (env().NODE_ENV === "development") logger.info({ outboxId: outbox.id, subject: email.subject }, "[email] SMTP_URL is not set: kept in email_outbox");
    return { id: outbox.id, sent: false };
  }
  const sent = await attempt(db, t, outbox, now);
  return { id: outbox.id, sent };
}

/**
 * Writes an email to the outbox inside the caller's transaction, without sending it: it commits or
 * rolls back with the caller's change (a pay link and its e-mail, decision 240), and no SMTP call holds
 * the transaction open. After the commit, `sendQueuedEmail` sends it at once; otherwise the retry job
 * sends it (within a minute when SMTP_URL is set).
 */
export async function queueEmail(tx: Database | Transaction, email: OutgoingEmail): Promise<{ id: number }> {
  const now = clockNow();
  const [row] = await tx
    .insert(emailOutbox)
    .values({ to: email.to, subject: email.subject, ...sealForOutbox(email), locationId: email.locationId ?? null, attempts: 0, claimedUntil: null, nextAttemptAt: now, createdAt: now })
    .returning({ id: emailOutbox.id });
  return { id: row!.id };
}

/** Sends a queued email now (after its transaction committed), unless SMTP_URL is unset or another process has claimed it. Never throws. */
export async function sendQueuedEmail(db: Database, id: number): Promise<boolean> {
  const t = getTransport();
  if (!t) return false;
  const now = clockNow();
  try {
    const [row] = await db
      .update(emailOutbox)
      .set({ claimedUntil: new Date(now.getTime() + CLAIM_MS), attempts: sql`${emailOutbox.attempts} + 1` })
      .where(and(eq(emailOutbox.id, id), isNull(emailOutbox.sentAt), isNull(emailOutbox.failedAt), or(isNull(emailOutbox.claimedUntil), lt(emailOutbox.claimedUntil, now))))
      .returning();
    return row ? await attempt(db, t, row, now) : false;
  } catch (error) {
    logger.warn({ err: error, outboxId: id }, "[email] a queued email could not be sent now; the retry job sends it");
    return false;
  }
}

/** One SMTP attempt for a row this process has claimed; records the outcome. Never throws. */
async function attempt(db: Database, t: Transporter, row: OutboxRow, now: Date): Promise<boolean> {
  let body: { text: string; html: string | null; headers: Record<string, string> | null };
  try {
    body = readOutboxMail(row);
  } catch {
    // Its secrets no longer open (the secret that sealed them was removed): it can never be sent.
    logger.warn({ outboxId: row.id }, "[email] its secrets could not be unsealed (the session secret or EMAIL_SECRET_KEY changed); given up");
    await db
      .update(emailOutbox)
      .set({ error: "not sent: its secrets could not be unsealed (the secret changed)", claimedUntil: null, ...giveUpFields(row, now) })
      .where(eq(emailOutbox.id, row.id));
    return false;
  }
  try {
    await t.sendMail({ from: env().MAIL_FROM, to: row.to, subject: row.subject, text: body.text, html: body.html ?? undefined, headers: body.headers ?? undefined });
  } catch (error) {
    await recordFailure(db, row, error, now);
    return false;
  }
  // Sent: from here until this UPDATE commits, a crash would leave the row claimed but unsent, and it
  // would be sent again once the claim runs out (at-least-once in that narrow window; decision 070).
  try {
    await db
      .update(emailOutbox)
      .set({
        sentAt: clockNow(),
        error: null,
        claimedUntil: null,
        ...redactedBody(row),
      })
      .where(eq(emailOutbox.id, row.id));
  } catch (error) {
    logger.error({ err: error, outboxId: row.id }, "[email] sent, but could not be marked sent; it may be sent again when its claim runs out");
  }
  return true;
}

async function recordFailure(db: Database, row: OutboxRow, error: unknown, now: Date) {
  const message = scrubText(error instanceof Error ? error.message : String(error)).slice(0, 500);
  const giveUp = isTooOldToRetry(row.createdAt, now);
  logger.warn(
    { outboxId: row.id, attempts: row.attempts, code: (error as { code?: unknown } | null)?.code, giveUp },
    giveUp ? "[email] could not be sent; given up" : "[email] could not be sent; it will be retried",
  );
  try {
    await db
      .update(emailOutbox)
      .set({
        error: message,
        claimedUntil: null,
        nextAttemptAt: new Date(now.getTime() + retryDelayMs(row.attempts, retryFirstMs())),
        ...(giveUp ? giveUpFields(row, now) : {}),
      })
      .where(eq(emailOutbox.id, row.id));
  } catch (dbError) {
    // The claim runs out by itself, and the row is tried again then.
    logger.error({ err: dbError, outboxId: row.id }, "[email] could not record a failed attempt");
  }
}

function giveUpFields(row: OutboxRow, now: Date) {
  return {
    failedAt: now,
    ...redactedBody(row),
  };
}

/**
 * Claims the next message due for an attempt: one UPDATE whose subquery locks the row with
 * FOR UPDATE SKIP LOCKED, so two processes (or two runs in one) never claim the same row; the claim
 * lasts CLAIM_MS, after which a crashed sender's row is tried again.
 */
async function claimNext(db: Database, now: Date): Promise<OutboxRow | undefined> {
  const due = sql`(select ${emailOutbox.id} from ${emailOutbox}
    where ${emailOutbox.sentAt} is null and ${emailOutbox.failedAt} is null
      and ${emailOutbox.nextAttemptAt} <= ${now}
      and (${emailOutbox.claimedUntil} is null or ${emailOutbox.claimedUntil} < ${now})
    order by ${emailOutbox.nextAttemptAt}, ${emailOutbox.id}
    limit 1
    for update skip locked)`;
  const [row] = await db
    .update(emailOutbox)
    .set({ claimedUntil: new Date(now.getTime() + CLAIM_MS), attempts: sql`${emailOutbox.attempts} + 1` })
    .where(eq(emailOutbox.id, due))
    .returning();
  return row;
}

/**
 * The retry job: sends every message due (not sent, not given up, its next attempt time reached, not
 * claimed), each claimed before it is sent. Messages older than two days are given up instead.
 * Without SMTP_URL there is nothing to do.
 *
 * The clock is read again for every claim (issue 41): a run that outlasts CLAIM_MS (a slow SMTP
 * server, a long queue) never writes a claim that has already run out, which another process could
 * take and send the same message a second time.
 */
export async function deliverPendingEmails(db: Database, clock: () => Date, options: { limit?: number } = {}): Promise<{ sent: number; failed: number }> {
  const t = getTransport();
  const result = { sent: 0, failed: 0 };
  if (!t) return result;
  const limit = options.limit ?? 100;
  for (let i = 0; i < limit; i++) {
    const now = clock();
    const row = await claimNext(db, now);
    if (!row) break;
    if (isTooOldToRetry(row.createdAt, now)) {
      await db.update(emailOutbox).set({ claimedUntil: null, error: row.error ?? "not sent within two days", ...giveUpFields(row, now) }).where(eq(emailOutbox.id, row.id));
      result.failed++;
      continue;
    }
    if (await attempt(db, t, row, now)) result.sent++;
    else result.failed++;
  }
  return result;
}

/**
 * Housekeeping of the outbox (decision 071): mail not sent within two days (SMTP down for long, or
 * SMTP_URL not set) is given up and its secrets redacted; sent mail older than 30 days and given-up
 * mail older than 90 days is deleted.
 */
export async function pruneOutbox(db: Database, now: Date): Promise<{ gaveUp: number; deleted: number }> {
  const stale = await db
    .select()
    .from(emailOutbox)
    .where(
      and(
        isNull(emailOutbox.sentAt),
        isNull(emailOutbox.failedAt),
        lte(emailOutbox.createdAt, new Date(now.getTime() - GIVE_UP_AFTER_MS)),
        or(isNull(emailOutbox.claimedUntil), lt(emailOutbox.claimedUntil, now)),
      ),
    )
    .limit(500);
  for (const row of stale) {
    await db
      .update(emailOutbox)
      .set({ error: row.error ?? (getTransport() ? "not sent within two days" : "not sent: SMTP_URL is not set"), ...giveUpFields(row, now) })
      .where(and(eq(emailOutbox.id, row.id), isNull(emailOutbox.sentAt), isNull(emailOutbox.failedAt)));
  }
  const deleted = await db
    .delete(emailOutbox)
    .where(
      or(
        and(isNotNull(emailOutbox.sentAt), lt(emailOutbox.sentAt, new Date(now.getTime() - KEEP_SENT_MS))),
        and(isNotNull(emailOutbox.failedAt), lt(emailOutbox.failedAt, new Date(now.getTime() - KEEP_FAILED_MS))),
      ),
    )
    .returning({ id: emailOutbox.id });
  return { gaveUp: stale.length, deleted: deleted.length };
}

/** Environment knobs (fault tests shorten them): the job's interval and the first backoff, in ms. */
const retryEveryMs = () => env().EMAIL_RETRY_EVERY_MS ?? 60_000;
const retryFirstMs = () => env().EMAIL_RETRY_FIRST_MS ?? 60_000;

/** Starts the retry job once per process (only with SMTP_URL; off under NODE_ENV=test or EMAIL_RETRY=off). */
export function startEmailDelivery(db: Database): () => void {
  const e = env();
  if (e.NODE_ENV === "test" || e.EMAIL_RETRY === "off" || !e.SMTP_URL) return () => {};
  const g = globalThis as unknown as { __gatehouseEmailDelivery?: () => void };
  if (g.__gatehouseEmailDelivery) return g.__gatehouseEmailDelivery;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const done = await deliverPendingEmails(db, clockNow);
      if (done.sent || done.failed) logger.info(done, "[email] retry run");
    } catch (error) {
      // An outage (or the pooler waiting for PostgreSQL) is not a bug: one warning line, no stack.
      if (isDatabaseUnavailable(error)) logger.warn({ reason: outageReason(error) }, "[email] database unavailable; the retry run will run again");
      else logger.error({ err: error }, "[email] retry run failed; it will run again");
    } finally {
      running = false;
    }
  };
  const first = setTimeout(tick, Math.min(15_000, retryEveryMs()));
  const every = setInterval(tick, retryEveryMs());
  first.unref();
  every.unref();
  g.__gatehouseEmailDelivery = () => {
    clearTimeout(first);
    clearInterval(every);
  };
  return g.__gatehouseEmailDelivery;
}
