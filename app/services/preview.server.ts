/**
 * Preview mode (issue 24, docs/decisions/315-preview-mode.md, 316, 317).
 *
 * - The cookie `gh_preview` (`__Host-gh_preview` under HTTPS) is signed and holds a digest of the
 *   staff session it was set in: it means nothing on its own. Preview is on for a request only when the
 *   same request carries that full staff session, still valid, of a member whose role has
 *   `content.edit` (`readPreview`). Any other preview cookie is ignored and cleared.
 * - `withDraftApplied` runs a piece of work (one page's render) inside a transaction that applies the
 *   account's draft and is then ALWAYS rolled back: nothing a preview does is ever written, and the
 *   database's change notification (sent only on commit) never fires for it. The work is bounded in
 *   time (PREVIEW_RENDER_TIMEOUT_MS): on PGlite the transaction holds the one connection.
 * - `setPreviewMode` turns it on or off: rate limited, written to the audit trail.
 */
import crypto from "node:crypto";
import { signedCookie } from "~/platform/signed-cookie.server";
import type { Database } from "~/db/client.server";
import { can } from "~/domain/staff-roles";
import { PREVIEW_RENDER_TIMEOUT_MS } from "~/domain/preview";
import { env } from "~/env.server";
import { applyChanges, changesOf, currentDraftId } from "./changesets.server";
import { cookieName, hostCookieOptions } from "./cookie-names.server";
import { recordAudit } from "./audit.server";
import { hitRateLimit } from "./rate-limit.server";
import { auditActor, type SignedInStaff } from "./staff-context.server";
import { loadSignedInStaff } from "./staff-session.server";

function previewCookie() {
  const e = env();
  return signedCookie(cookieName("gh_preview", e.secureCookies), { ...hostCookieOptions(e.secureCookies), secrets: e.sessionSecrets });
}

/** Whether a Cookie header carries a preview cookie at all (a cheap test before any database read). */
export function hasPreviewCookie(cookieHeader: string | null | undefined): boolean {
  return !!cookieHeader && /(?:^|;\s*)(?:__Host-)?gh_preview=/.test(cookieHeader);
}

/** What the cookie holds: a digest of the staff session's hash (the session id itself is never in it). */
const bindingOf = (sessionHash: string) => crypto.createHash("sha256").update(`preview:${sessionHash}`).digest("base64url").slice(0, 32);

export type PreviewState =
  | { state: "off" }
  /** A preview cookie without the staff session it was made in (signed out, expired, another member's, forged): clear it. */
  | { state: "ignored" }
  | { state: "on"; staff: SignedInStaff; draftId: number | null };

/** Whether this request is a preview (see the module comment). */
export async function readPreview(db: Database, request: Request, input: { accountId: number; now: Date; ip: string | null }): Promise<PreviewState> {
  const cookieHeader = request.headers.get("Cookie");
  if (!hasPreviewCookie(cookieHeader)) return { state: "off" };
  const value: unknown = await previewCookie().parse(cookieHeader);
  if (typeof value !== "string" || value.length === 0) return { state: "ignored" };
  const staff = await loadSignedInStaff(db, request, input);
  if (!staff || !can(staff.role, "content.edit")) return { state: "ignored" };
  const expected = Buffer.from(bindingOf(staff.sessionHash));
  const given = Buffer.from(value);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return { state: "ignored" };
  return { state: "on", staff, draftId: await currentDraftId(db, staff.accountId) };
}

/** The Set-Cookie header that clears the preview cookie. */
export function clearPreviewCookieHeader(): Promise<string> {
  return previewCookie().serialize("", { maxAge: 0, expires: new Date(0) });
}

/** Turning preview on or off: at most this many times per member per window. */
const PREVIEW_TOGGLE_LIMIT = 60;
const PREVIEW_TOGGLE_WINDOW_MS = 15 * 60 * 1000;

export type PreviewToggleResult = { ok: true; setCookie: string } | { ok: false; retryAfterMinutes: number };

/** Turns preview on (bound to this staff session) or off; rate limited; audited (`content.preview_on` / `_off`). */
export async function setPreviewMode(db: Database, staff: SignedInStaff, on: boolean, now: Date): Promise<PreviewToggleResult> {
  const limit = await hitRateLimit(db, { key: `preview:staff:${staff.staffId}`, limit: PREVIEW_TOGGLE_LIMIT, windowMs: PREVIEW_TOGGLE_WINDOW_MS, now });
  if (!limit.allowed) return { ok: false, retryAfterMinutes: limit.retryAfterMinutes };
  const draftId = await currentDraftId(db, staff.accountId);
  await db.transaction(async (tx) => {
    await recordAudit(tx, {
      ...auditActor(staff),
      action: on ? "content.preview_on" : "content.preview_off",
      entity: "changeset",
      entityId: draftId,
      detail: { changesetId: draftId },
      at: now,
    });
  });
  return { ok: true, setCookie: on ? await previewCookie().serialize(bindingOf(staff.sessionHash)) : await clearPreviewCookieHeader() };
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
