/**
 * The signed-in staff member of a console request (issue 23). The console's layout middleware
 * (routes/admin.layout.tsx, app/services/staff/session.server.ts) checks the staff session before any
 * loader or action under /admin runs and puts the member here; pages read it with `signedInStaff`.
 *
 * Authorisation helpers every console loader and action uses:
 * - `requirePermission(staff, p)`: a 403 when the role may not (the page names no record);
 * - a record whose location is outside the role's locations is a 404, as if it did not exist (the
 *   desk's services filter every query by `scope`);
 * - `auditActor(staff)`: who to write into the audit trail.
 */
import { createContext, data, type RouterContextProvider } from "react-router";
import { can, type LocationScope, type StaffPermission, type StaffRole } from "~/domain/staff/roles";

export interface SignedInStaff {
  staffId: number;
  accountId: number;
  email: string;
  name: string;
  role: StaffRole;
  scope: LocationScope;
  /** When a second factor was last given in this session (for actions that need a fresh one). */
  factorAt: Date;
  /** SHA-256 of the session id (to end this session). */
  sessionHash: string;
  /** The request's address, for the audit trail. */
  ip: string | null;
}

export const signedInStaffContext = createContext<SignedInStaff | null>(null);

type Context = Readonly<RouterContextProvider>;

/** The member the console's middleware found. Only routes under the console's layout may call it. */
export function signedInStaff(context: Context): SignedInStaff {
  const staff = context.get(signedInStaffContext);
  if (!staff) throw new Error("signedInStaff called outside the console's layout");
  return staff;
}

export const FORBIDDEN_MESSAGE = "Your role does not allow this. Ask an owner if you need it.";

/** 403 unless the member's role has the permission. */
export function requirePermission(staff: SignedInStaff, permission: StaffPermission): void {
  if (!can(staff.role, permission)) throw data({ message: FORBIDDEN_MESSAGE }, { status: 403 });
}

/** The audit trail's who/where for an action by this member. */
export function auditActor(staff: SignedInStaff): { accountId: number; staffId: number; actor: string; ip: string | null } {
  return { accountId: staff.accountId, staffId: staff.staffId, actor: staff.email, ip: staff.ip };
}
