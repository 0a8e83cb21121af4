/**
 * "Confirm it's you" (decisions 250, 643, 660): the one way every console page and action that needs a
 * second factor given in the last ten minutes asks for it, and comes back.
 *
 * - A page or an export (a GET): `requireFreshFactorForPage` sends the member to
 *   /admin/reauth?next=<this URL>, which comes back to it after the code.
 * - An action (a POST): the route hands its posted form to `formToActOn` with what the action needs
 *   (`StepUp`: its permissions, and whether it needs a fresh factor), and acts on the form it returns.
 *   A stale factor: the form is HELD on the server (its fields, never a card number, a password, a
 *   code or the CSRF token; the URL it was posted to; the member's session; for ten minutes, once)
 *   and the member is sent to "Confirm it's you" with the held action's token. After the code that
 *   page answers 307 to the held URL, so the browser posts again (JavaScript or not), with a CSRF
 *   token of this session that the route checks as it checks every post; `formToActOn` then takes
 *   the held fields once (one conditional UPDATE), checks the member's role again as it is NOW, and
 *   the route completes the action with what was chosen before. A replay, another session's token,
 *   a lapsed one, or a member whose role no longer allows it: nothing is done, and the page says so.
 *
 * Only the token's SHA-256 is kept.
 */
import crypto from "node:crypto";
import { and, eq, gt, isNotNull, isNull, lt, or } from "drizzle-orm";
import { data, redirect } from "react-router";
import type { Database } from "~/db/client.server";
import { staffHeldActions } from "~/db/schema";
import { can, FRESH_FACTOR_MS, type StaffPermission } from "~/domain/staff/roles";
import { HELD_ACTION_FIELD } from "~/domain/staff/forms";
import { CSRF_FIELD } from "../web/csrf.server";
import { FORBIDDEN_MESSAGE, type SignedInStaff } from "./context.server";

/** How long a held action waits for the code. */
const HELD_ACTION_MS = 10 * 60 * 1000;

/** Fields never held: card data, passwords, codes, the CSRF token (a fresh one comes with the re-post). */
const NEVER_HELD = /(card|cvc|cvv|cc_|pan$|^number$|exp_?(month|year)|payment_token|password|web_pw|^code$|otp|secret|token)/i;

/** What a held form may hold: more than this and it is not held (the member comes back to the page and asks again). */
const HELD_MAX_FIELDS = 100;
const HELD_MAX_CHARS = 64_000;

const NO_STORE = { "Cache-Control": "no-store" };

const hashOf = (token: string) => crypto.createHash("sha256").update(token).digest("hex");

/** What the page says when a held action could not be completed (replayed, lapsed, another session's). */
export const HELD_ACTION_GONE = "The action you asked for before confirming it's you was not kept (it waits ten minutes, once): nothing was done. Please ask again.";

/** What the page says when the member's role no longer allows the held action. */
export const HELD_ACTION_NOT_ALLOWED = "What you asked for before confirming it's you was not done: your role no longer allows it. Ask an owner if you need it.";

/** What an action needs of the member, read from the form it acts on (the held one when completing). */
interface StepUp {
  /** The permissions it needs (checked again when a held action is completed). */
  permissions: readonly StaffPermission[];
  /** Whether it needs a second factor given in the last ten minutes. */
  fresh: boolean;
}

function freshFactor(staff: SignedInStaff, now: Date): boolean {
  return now.getTime() - staff.factorAt.getTime() < FRESH_FACTOR_MS;
}

/** The URL an action was posted to, as the server saw it (its path and query: the audit trail's filter). */
function postedPath(request: Request): string {
  const url = new URL(request.url);
  return `${url.pathname}${url.search}`;
}

const reauthUrl = (next: string, token?: string) => `/admin/reauth?next=${encodeURIComponent(next)}${token ? `&${HELD_ACTION_FIELD}=${encodeURIComponent(token)}` : ""}`;

/**
 * For a sensitive page or export (a GET: staff, the audit trail, "Your sign-in", CSV exports of
 * personal data): unless the member gave a second factor in the last ten minutes, a 303 to "Confirm
 * it's you", which comes back to this URL after the code. Actions use `formToActOn`.
 */
export function requireFreshFactorForPage(staff: SignedInStaff, request: Request, now: Date): void {
  if (request.method !== "GET" && request.method !== "HEAD") throw new Error("requireFreshFactorForPage is for pages; an action goes through formToActOn (decision 660)");
  if (freshFactor(staff, now)) return;
  throw redirect(reauthUrl(postedPath(request)), { status: 303, headers: NO_STORE });
}

/** The fields of a form that may be held (strings only; never the sensitive ones); null when too many or too long to hold. */
function heldFields(form: FormData): Array<[string, string]> | null {
  const out: Array<[string, string]> = [];
  let chars = 0;
  for (const [name, value] of form.entries()) {
    if (typeof value !== "string" || name === CSRF_FIELD || name === HELD_ACTION_FIELD || NEVER_HELD.test(name)) continue;
    chars += name.length + value.length;
    out.push([name, value]);
    if (out.length > HELD_MAX_FIELDS || chars > HELD_MAX_CHARS) return null;
  }
  return out;
}

/** Holds the form and sends the member to "Confirm it's you" (throws the 303). */
async function holdAndConfirm(db: Database, staff: SignedInStaff, request: Request, form: FormData, now: Date): Promise<never> {
  const path = postedPath(request);
  const fields = heldFields(form);
  // A form too large to hold: back to its page after the code, to ask again (as before decision 643).
  if (!fields) throw redirect(reauthUrl(path), { status: 303, headers: NO_STORE });
  const token = crypto.randomBytes(24).toString("base64url");
  // Lapsed and used ones go as new ones come (they are good for ten minutes, once).
  await db.delete(staffHeldActions).where(or(lt(staffHeldActions.expiresAt, now), isNotNull(staffHeldActions.usedAt)));
  await db.insert(staffHeldActions).values({ tokenHash: hashOf(token), staffId: staff.staffId, sessionHash: staff.sessionHash, path, fields, expiresAt: new Date(now.getTime() + HELD_ACTION_MS), createdAt: now });
  throw redirect(reauthUrl(path, token), { status: 303, headers: NO_STORE });
}

/** Takes the held action's fields once: this session's, at this URL, unused, not lapsed; else null. */
async function takeHeldAction(db: Database, staff: SignedInStaff, request: Request, token: FormDataEntryValue, now: Date): Promise<Array<[string, string]> | null> {
  if (typeof token !== "string" || token.length < 20 || token.length > 100) return null;
  const [row] = await db
    .update(staffHeldActions)
    .set({ usedAt: now })
    .where(
      and(
        eq(staffHeldActions.tokenHash, hashOf(token)),
        eq(staffHeldActions.staffId, staff.staffId),
        eq(staffHeldActions.sessionHash, staff.sessionHash),
        eq(staffHeldActions.path, postedPath(request)),
        isNull(staffHeldActions.usedAt),
        gt(staffHeldActions.expiresAt, now),
      ),
    )
    .returning({ fields: staffHeldActions.fields });
  return row?.fields ?? null;
}

/**
 * The form an action acts on (after the route checked the post's CSRF token):
 * - the posted one, when it names no held action: the member's role must allow what `needs` says
 *   (else 403), and when it needs a fresh factor and the member's is stale, the form is held and the
 *   member sent to "Confirm it's you" (a 303; nothing is done yet);
 * - the held one, when the post names it (the re-post after the code): taken once, and the role as
 *   it is now must still allow it (else nothing is done and the page says so, 403). A token that is
 *   not this session's, used, lapsed or for another URL: nothing is done, and the page says so (400).
 */
export async function formToActOn(db: Database, staff: SignedInStaff, request: Request, posted: FormData, now: Date, needs: (form: FormData) => StepUp): Promise<FormData> {
  const token = posted.get(HELD_ACTION_FIELD);
  let form = posted;
  if (token !== null) {
    const fields = await takeHeldAction(db, staff, request, token, now);
    if (!fields) throw data({ message: HELD_ACTION_GONE, heading: "Nothing was done", back: new URL(request.url).pathname }, { status: 400, headers: NO_STORE });
    form = new FormData();
    for (const [name, value] of fields) form.append(name, value);
  }
  const need = needs(form);
  if (need.permissions.some((p) => !can(staff.role, p))) {
    throw data(token === null ? { message: FORBIDDEN_MESSAGE } : { message: HELD_ACTION_NOT_ALLOWED, heading: "Nothing was done" }, { status: 403, headers: NO_STORE });
  }
  if (need.fresh && !freshFactor(staff, now)) await holdAndConfirm(db, staff, request, form, now);
  return form;
}

/** The held action's URL, when the token is this session's, unused and not lapsed (the reauth page's 307 goes there). */
export async function heldActionPath(db: Database, staff: Pick<SignedInStaff, "staffId" | "sessionHash">, token: unknown, now: Date): Promise<string | null> {
  if (typeof token !== "string" || token.length < 20 || token.length > 100) return null;
  const [row] = await db
    .select({ path: staffHeldActions.path })
    .from(staffHeldActions)
    .where(and(eq(staffHeldActions.tokenHash, hashOf(token)), eq(staffHeldActions.staffId, staff.staffId), eq(staffHeldActions.sessionHash, staff.sessionHash), isNull(staffHeldActions.usedAt), gt(staffHeldActions.expiresAt, now)));
  return row?.path ?? null;
}
