/**
 * "Confirm it's you" keeps the action it interrupted (issue 39, decision 643). A sensitive form (a
 * refund) posted with a stale second factor is held on the server: its fields (never a card number,
 * a password, a code or the CSRF token), the path it was posted to, the member's session, for ten
 * minutes and once. The member is sent to /admin/reauth with the held action's token; after the
 * code, that page answers 307 to the held path, so the browser posts again (JavaScript or not) and
 * the route completes the held action with what was chosen.
 *
 * Only the token's SHA-256 is kept; the token is good only for the session that held it, only at its
 * path, only once (taken by a conditional UPDATE) and only until it lapses.
 */
import crypto from "node:crypto";
import { and, eq, gt, isNull, lt, or, isNotNull } from "drizzle-orm";
import { redirect } from "react-router";
import type { Database } from "~/db/client.server";
import { staffHeldActions } from "~/db/schema";
import { FRESH_FACTOR_MS } from "~/domain/staff/roles";
import { HELD_ACTION_FIELD } from "~/domain/staff/forms";
import { CSRF_FIELD } from "../web/csrf.server";
import type { SignedInStaff } from "./context.server";


/** How long a held action waits for the code. */
const HELD_ACTION_MS = 10 * 60 * 1000;

/** Fields never held: card data, passwords, codes, the CSRF token (a fresh one comes with the re-post). */
const NEVER_HELD = /(card|cvc|cvv|cc_|pan$|^number$|exp_?(month|year)|payment_token|password|web_pw|^code$|otp|secret|token)/i;

const hashOf = (token: string) => crypto.createHash("sha256").update(token).digest("hex");

/** The fields of a form that may be held (strings only; never the sensitive ones). */
function heldFields(form: FormData): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of form.entries()) {
    if (typeof value !== "string" || name === CSRF_FIELD || name === HELD_ACTION_FIELD || NEVER_HELD.test(name)) continue;
    out.push([name, value.slice(0, 2000)]);
    if (out.length >= 50) break;
  }
  return out;
}

function fresh(staff: SignedInStaff, now: Date): boolean {
  return now.getTime() - staff.factorAt.getTime() < FRESH_FACTOR_MS;
}

/**
 * For a sensitive form's POST: unless the member gave a second factor in the last ten minutes, the
 * form is held and the member is sent to "Confirm it's you" (a 303), which completes it after the code.
 */
export async function requireFreshFactorForForm(db: Database, staff: SignedInStaff, request: Request, form: FormData, now: Date): Promise<void> {
  if (fresh(staff, now)) return;
  const url = new URL(request.url);
  const token = crypto.randomBytes(24).toString("base64url");
  // Lapsed ones go as new ones come (they are good for ten minutes only).
  await db.delete(staffHeldActions).where(or(lt(staffHeldActions.expiresAt, now), isNotNull(staffHeldActions.usedAt)));
  await db.insert(staffHeldActions).values({
    tokenHash: hashOf(token),
    staffId: staff.staffId,
    sessionHash: staff.sessionHash,
    path: url.pathname,
    fields: heldFields(form),
    expiresAt: new Date(now.getTime() + HELD_ACTION_MS),
    createdAt: now,
  });
  const back = `${url.pathname}`;
  throw redirect(`/admin/reauth?next=${encodeURIComponent(back)}&${HELD_ACTION_FIELD}=${encodeURIComponent(token)}`, { status: 303, headers: { "Cache-Control": "no-store" } });
}

/** The held action's path, when the token is this session's, unused and not lapsed (the reauth page's 307 goes there). */
export async function heldActionPath(db: Database, staff: Pick<SignedInStaff, "staffId" | "sessionHash">, token: unknown, now: Date): Promise<string | null> {
  if (typeof token !== "string" || token.length < 20 || token.length > 100) return null;
  const [row] = await db
    .select({ path: staffHeldActions.path })
    .from(staffHeldActions)
    .where(and(eq(staffHeldActions.tokenHash, hashOf(token)), eq(staffHeldActions.staffId, staff.staffId), eq(staffHeldActions.sessionHash, staff.sessionHash), isNull(staffHeldActions.usedAt), gt(staffHeldActions.expiresAt, now)));
  return row?.path ?? null;
}

type HeldForm = { kind: "none"; form: FormData } | { kind: "resumed"; form: FormData } | { kind: "gone"; form: FormData };

/**
 * The form a route acts on: the posted one, or (when it names a held action) the held fields, taken
 * once. `gone`: it named one that is not this session's, used, lapsed or for another page: nothing is
 * done, and the route says to ask again.
 */
export async function formOrHeldAction(db: Database, staff: SignedInStaff, request: Request, posted: FormData, now: Date): Promise<HeldForm> {
  const token = posted.get(HELD_ACTION_FIELD);
  if (token === null) return { kind: "none", form: posted };
  if (typeof token !== "string" || token.length < 20 || token.length > 100) return { kind: "gone", form: posted };
  const [row] = await db
    .update(staffHeldActions)
    .set({ usedAt: now })
    .where(
      and(
        eq(staffHeldActions.tokenHash, hashOf(token)),
        eq(staffHeldActions.staffId, staff.staffId),
        eq(staffHeldActions.sessionHash, staff.sessionHash),
        eq(staffHeldActions.path, new URL(request.url).pathname),
        isNull(staffHeldActions.usedAt),
        gt(staffHeldActions.expiresAt, now),
      ),
    )
    .returning({ fields: staffHeldActions.fields });
  if (!row) return { kind: "gone", form: posted };
  const form = new FormData();
  for (const [name, value] of row.fields) form.append(name, value);
  return { kind: "resumed", form };
}

/** What the page says when a held action could not be completed. */
export const HELD_ACTION_GONE = "The action you asked for before confirming it's you was not kept (it waits ten minutes, once): nothing was done. Please ask again.";
