import type { RouterContextProvider } from "react-router";
import type { Database } from "~/db/client.server";
import { staffLocations, staffMembers } from "~/db/schema";
import { FRESH_FACTOR_MS, scopeFor, type StaffRole } from "~/domain/staff/roles";
import { now as clockNow } from "~/platform/clock.server";
import { signedInStaffContext, type SignedInStaff } from "~/services/staff/context.server";
import { createStaffSession, getStaffSession } from "~/services/staff/session.server";
import { loadContext } from "./route-helpers";

let seq = 0;

export interface TestStaffMember {
  staffId: number;
  email: string;
  role: StaffRole;
  locationIds: number[];
  /** The `gh_staff=…` pair for a Cookie header: a full (second factor given) session. */
  cookie: string;
  /** What the console's middleware puts in the request context for this member. */
  signedIn: SignedInStaff;
}

/**
 * A staff member of the role and locations given, signed in with a full session made directly through
 * the session service (no sign-in form, no TOTP): what the console's middleware sees after a real
 * two-factor sign-in. `factorAgeMs` backdates the session (and its second factor): past
 * FRESH_FACTOR_MS the factor is stale, so sensitive pages ask to confirm again.
 */
export async function signedInStaffMember(
  db: Database,
  input: { accountId: number; role: StaffRole; locationIds?: number[]; factorAgeMs?: number; name?: string },
): Promise<TestStaffMember> {
  const name = input.name ?? `${input.role}-${++seq}`;
  const email = `${name}.${process.pid}.${seq}@office.example`;
  const locationIds = input.locationIds ?? [];
  const [row] = await db.insert(staffMembers).values({ accountId: input.accountId, email, name, role: input.role, passwordHash: "not-used-by-these-tests" }).returning({ id: staffMembers.id });
  const staffId = row!.id;
  if (locationIds.length) await db.insert(staffLocations).values(locationIds.map((locationId) => ({ staffId, locationId })));
  const at = new Date(clockNow().getTime() - (input.factorAgeMs ?? 0));
  const setCookie = await createStaffSession(db, { staffId, now: at, passwordOnly: false, ip: "127.0.0.1" });
  const cookie = setCookie.split(";")[0]!;
  const session = await getStaffSession(db, new Request("http://localhost/admin", { headers: { Cookie: cookie } }), at);
  return {
    staffId,
    email,
    role: input.role,
    locationIds,
    cookie,
    signedIn: { staffId, accountId: input.accountId, email, name, role: input.role, scope: scopeFor(input.role, locationIds), factorAt: at, sessionHash: session!.sessionHash, ip: "127.0.0.1" },
  };
}

/** A factor age past the fresh-factor window (sensitive pages send to /admin/reauth). */
export const STALE_FACTOR_MS = FRESH_FACTOR_MS + 60_000;

/**
 * A staff member row (with its locations) and what the console's middleware would put in the request
 * context for it, without a session: for tests that call route modules directly (the desk's).
 */
export async function deskMember(db: Database, input: { accountId: number; email: string; role: StaffRole; locationIds: number[]; ip: string }): Promise<SignedInStaff> {
  const { accountId, email, role, locationIds, ip } = input;
  const [row] = await db.insert(staffMembers).values({ accountId, email, name: email, role }).returning();
  if (locationIds.length) await db.insert(staffLocations).values(locationIds.map((locationId) => ({ staffId: row!.id, locationId })));
  return { staffId: row!.id, accountId, email, name: email, role, scope: scopeFor(role, locationIds), factorAt: new Date(), sessionHash: "x", ip };
}

/** The request context of a console request once the layout's middleware has set the member. */
export function staffContext(db: Database, who: SignedInStaff, ip: string): RouterContextProvider {
  const context = loadContext(db, ip);
  context.set(signedInStaffContext, who);
  return context;
}

export type Answer = { status: number; data: unknown; headers: Headers };

/** What a loader or action answered or threw (a Response, or data() with its status). */
export async function answer(run: () => unknown): Promise<Answer> {
  const settle = (v: unknown): Answer => {
    if (v instanceof Response) return { status: v.status, data: null, headers: v.headers };
    const d = v as { type?: string; data?: unknown; init?: ResponseInit | null };
    if (d && d.type === "DataWithResponseInit") return { status: d.init?.status ?? 200, data: d.data, headers: new Headers(d.init?.headers) };
    return { status: 200, data: v, headers: new Headers() };
  };
  try {
    return settle(await run());
  } catch (thrown) {
    if (thrown instanceof Response || (thrown as { type?: string })?.type === "DataWithResponseInit") return settle(thrown);
    throw thrown;
  }
}
