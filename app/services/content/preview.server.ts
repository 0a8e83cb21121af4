/**
 * Preview mode (issue 24, docs/decisions/315-preview-mode.md, 316, 317).
 *
 * - The console lives on an origin of its own (decision 450): the public site never sees the staff
 *   cookie. Turning preview on in the console gives a signed grant (two minutes) that the public
 *   site's /preview/start exchanges for its own cookie `gh_preview` (`__Host-gh_preview` under HTTPS),
 *   signed, HttpOnly, holding the staff session's hash. Preview is on for a request only while that
 *   session is a full one, still valid, of a member whose role has `content.edit` (`readPreview`):
 *   signing out of the console ends it. Any other preview cookie is ignored and cleared.
 * - `withDraftApplied` runs a piece of work (one page's render) inside a transaction that applies the
 *   account's draft and is then ALWAYS rolled back: nothing a preview does is ever written, and the
 *   database's change notification (sent only on commit) never fires for it. The work is bounded in
 *   time (PREVIEW_RENDER_TIMEOUT_MS): on PGlite the transaction holds the one connection.
 * - `turnPreviewOn` (console) and `endPreview` (public site): rate limited, written to the audit trail.
 */
import crypto from "node:crypto";
import { signedCookie } from "~/platform/signed-cookie.server";
import type { Database } from "~/db/client.server";
import { can } from "~/domain/staff/roles";
import { PREVIEW_RENDER_TIMEOUT_MS } from "~/domain/content/preview";
import { env } from "~/platform/env.server";
import { applyChanges, changesOf, currentDraftId } from "./changesets.server";
import { cookieName, hostCookieOptions } from "../web/cookie-names.server";
import { recordAudit } from "../audit/events.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";
import { loadSignedInStaffBySessionHash } from "../staff/session.server";

function previewCookie() {
  const e = env();
  return signedCookie(cookieName("gh_preview", e.secureCookies), { ...hostCookieOptions(e.secureCookies), secrets: e.sessionSecrets });
}

/** Whether a Cookie header carries a preview cookie at all (a cheap test before any database read). */
export function hasPreviewCookie(cookieHeader: string | null | undefined): boolean {
  return !!cookieHeader && /(?:^|;\s*)(?:__Host-)?gh_preview=/.test(cookieHeader);
}

/** How long the console's hand-over to the public site may take (the grant's lifetime). */
const GRANT_MS = 2 * 60 * 1000;
const SESSION_HASH = /^[0-9a-f]{64}$/;
const grantMac = (secret: string, payload: string) => crypto.createHmac("sha256", secret).update(`preview-grant:${payload}`).digest("base64url");

/** A grant for the public site (decision 450): the staff session's hash and an expiry, signed with the first secret. */
function makeGrant(sessionHash: string, now: Date): string {
  const payload = `${sessionHash}.${now.getTime() + GRANT_MS}`;
  return `${payload}.${grantMac(env().sessionSecrets[0]!, payload)}`;
}

/** The staff session hash of a grant whose signature (any secret) and time hold; else null. */
function readGrant(grant: unknown, now: Date): string | null {
  if (typeof grant !== "string" || grant.length > 200) return null;
  const [hash, expires, mac] = grant.split(".");
  if (!hash || !expires || !mac || !SESSION_HASH.test(hash) || !/^\d{1,15}$/.test(expires) || Number(expires) <= now.getTime()) return null;
  const payload = `${hash}.${expires}`;
  const given = Buffer.from(mac);
  const ok = env().sessionSecrets.some((secret) => {
    const expected = Buffer.from(grantMac(secret, payload));
    return expected.length === given.length && crypto.timingSafeEqual(expected, given);
  });
  return ok ? hash : null;
}

type PreviewState =
  | { state: "off" }
  /** A preview cookie without the staff session it was made in (signed out, expired, another member's, forged): clear it. */
  | { state: "ignored" }
  | { state: "on"; staff: SignedInStaff; draftId: number | null };

/**
 * Whether this request (to the public site) is a preview. The cookie names the staff session (its
 * hash, signed): preview is on while that session is a full one of a member with `content.edit`. The
 * public site never sees the staff cookie itself (decision 450).
 */
export async function readPreview(db: Database, request: Request, input: { accountId: number; now: Date; ip: string | null }): Promise<PreviewState> {
  const cookieHeader = request.headers.get("Cookie");
  if (!hasPreviewCookie(cookieHeader)) return { state: "off" };
  const value: unknown = await previewCookie().parse(cookieHeader);
  if (typeof value !== "string" || !SESSION_HASH.test(value)) return { state: "ignored" };
  const staff = await loadSignedInStaffBySessionHash(db, value, input);
  if (!staff || !can(staff.role, "content.edit")) return { state: "ignored" };
  return { state: "on", staff, draftId: await currentDraftId(db, staff.accountId) };
}

/** The Set-Cookie header that clears the preview cookie. */
export function clearPreviewCookieHeader(): Promise<string> {
  return previewCookie().serialize("", { maxAge: 0, expires: new Date(0) });
}

/** Turning preview on or off: at most this many times per member per window. */
const PREVIEW_TOGGLE_LIMIT = 60;
const PREVIEW_TOGGLE_WINDOW_MS = 15 * 60 * 1000;

type PreviewToggleResult = { ok: true; grant: string } | { ok: false; retryAfterMinutes: number };

/**
 * Turns preview on from the console (rate limited, audited `content.preview_on`): a grant, good for
 * two minutes, that the public site's /preview/start takes to set its own preview cookie (the
 * console's origin cannot set a cookie for the public site, decision 450).
 */
export async function turnPreviewOn(db: Database, staff: SignedInStaff, now: Date): Promise<PreviewToggleResult> {
  const limit = await hitRateLimit(db, { key: `preview:staff:${staff.staffId}`, limit: PREVIEW_TOGGLE_LIMIT, windowMs: PREVIEW_TOGGLE_WINDOW_MS, now });
  if (!limit.allowed) return { ok: false, retryAfterMinutes: limit.retryAfterMinutes };
  const draftId = await currentDraftId(db, staff.accountId);
  await db.transaction(async (tx) => {
    await recordAudit(tx, { ...auditActor(staff), action: "content.preview_on", entity: "changeset", entityId: draftId, detail: { changesetId: draftId }, at: now });
  });
  return { ok: true, grant: makeGrant(staff.sessionHash, now) };
}

/** The public site takes a grant: the preview cookie's Set-Cookie, or null (forged, expired, no longer a full session with `content.edit`). */
export async function startPreview(db: Database, grant: unknown, input: { accountId: number; now: Date; ip: string | null }): Promise<string | null> {
  const sessionHash = readGrant(grant, input.now);
  if (!sessionHash) return null;
  const staff = await loadSignedInStaffBySessionHash(db, sessionHash, input);
  if (!staff || !can(staff.role, "content.edit")) return null;
  return previewCookie().serialize(sessionHash);
}

/** The public site leaves preview: clears the cookie; when it was on, audited `content.preview_off` (rate limited like turning it on). */
export async function endPreview(db: Database, request: Request, input: { accountId: number; now: Date; ip: string | null }): Promise<string> {
  const found = await readPreview(db, request, input);
  if (found.state === "on") {
    const limit = await hitRateLimit(db, { key: `preview:staff:${found.staff.staffId}`, limit: PREVIEW_TOGGLE_LIMIT, windowMs: PREVIEW_TOGGLE_WINDOW_MS, now: input.now });
    if (limit.allowed) {
      await db.transaction(async (tx) => {
        await recordAudit(tx, { ...auditActor(found.staff), action: "content.preview_off", entity: "changeset", entityId: found.draftId, detail: { changesetId: found.draftId }, at: input.now });
      });
    }
  }
  return clearPreviewCookieHeader();
}

/** The draft could not be applied (a change that breaks a constraint): nothing to preview. */
export class PreviewApplyError extends Error {
  constructor(cause: unknown) {
    super("The draft cannot be applied to the live site as it is now.", { cause });
    this.name = "PreviewApplyError";
  }
}

/** The work took longer than PREVIEW_RENDER_TIMEOUT_MS: rolled back, refused. */
export class PreviewTimeoutError extends Error {
  constructor() {
    super("The preview took too long.");
    this.name = "PreviewTimeoutError";
  }
}

class RollBack extends Error {}

/**
 * Runs `work` with a database on which the draft is applied, then rolls everything back (see the
 * module comment). `work` must read and write only through the database it is given: on PGlite (one
 * connection) anything sent on another handle waits for this transaction, so `work` is bounded by
 * `timeoutMs`, after which the transaction is rolled back (its handle then refuses every statement).
 */
export async function withDraftApplied<T>(
  db: Database,
  draftId: number,
  work: (previewDb: Database) => Promise<T>,
  options: { timeoutMs?: number } = {},
): Promise<T> {
  let result: { value: T } | undefined;
  try {
    await db.transaction(async (tx) => {
      try {
        await applyChanges(tx, await changesOf(tx, draftId));
      } catch (error) {
        throw new PreviewApplyError(error);
      }
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new PreviewTimeoutError()), options.timeoutMs ?? PREVIEW_RENDER_TIMEOUT_MS);
      });
      try {
        // A transaction has the database's methods (a nested transaction is a savepoint).
        result = { value: await Promise.race([work(tx as unknown as Database), deadline]) };
      } finally {
        clearTimeout(timer);
      }
      throw new RollBack();
    });
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
  }
  return result!.value;
}
