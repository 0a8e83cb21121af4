/**
 * Staff roles and what each may do (issue 23, docs/decisions/245-staff-roles-and-scope.md). Pure.
 *
 * - owner: everything, at every location, including staff and roles and the audit trail;
 * - manager: everything for the locations given, except staff, roles and the audit trail;
 * - front desk: the desk's lists and desk actions for the locations given;
 * - read-only: the desk's lists (no exports of personal data, no actions) for the locations given.
 *
 * A role's locations scope every list, record, action and export: a record at a location outside
 * the scope is answered 404, as if it did not exist; an action the role may not take is a 403.
 */
export const STAFF_ROLES = ["owner", "manager", "front_desk", "read_only"] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export const STAFF_ROLE_LABELS: Record<StaffRole, string> = {
  owner: "Owner",
  manager: "Manager",
  front_desk: "Front desk",
  read_only: "Read-only",
};

/** Everything a console route or action may require. */
export const STAFF_PERMISSIONS = [
  /** Open the desk's lists and records (rentals, reservations, leads, tenants, payments, journal). */
  "desk.view",
  /** Desk actions: mark a lead contacted, lift a lockout, resend an e-mail, send a pay link. */
  "desk.act",
  /** CSV exports of personal data (a fresh second factor is also required). */
  "desk.export",
  /** Retry a SiteLink write or mark it resolved. */
  "journal.act",
  /** Refunds and voids (a fresh second factor is also required). */
  "payments.refund",
  /** Invite staff, change roles and locations, end sessions, disable accounts. */
  "staff.manage",
  /** Read and export the audit trail. */
  "audit.view",
  /** Edit the website's settings and pages (issue 24). */
  "content.edit",
] as const;
export type StaffPermission = (typeof STAFF_PERMISSIONS)[number];

const ROLE_PERMISSIONS: Record<StaffRole, ReadonlySet<StaffPermission>> = {
  owner: new Set(STAFF_PERMISSIONS),
  manager: new Set<StaffPermission>(["desk.view", "desk.act", "desk.export", "journal.act", "payments.refund", "content.edit"]),
  front_desk: new Set<StaffPermission>(["desk.view", "desk.act"]),
  read_only: new Set<StaffPermission>(["desk.view"]),
};

export function can(role: StaffRole, permission: StaffPermission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}

/**
 * Staff and role changes, exports of personal data, refunds and the audit trail need a second factor
 * given within this long (`requireFreshFactor` in app/services/staff/admin.server.ts).
 */
export const FRESH_FACTOR_MS = 10 * 60 * 1000;

/** Which locations a staff member sees: every location (owners), or the ids given. */
export type LocationScope = { all: true } | { all: false; locationIds: readonly number[] };

export function scopeFor(role: StaffRole, locationIds: readonly number[]): LocationScope {
  return role === "owner" ? { all: true } : { all: false, locationIds: [...locationIds] };
}

export function inScope(scope: LocationScope, locationId: number | null | undefined): boolean {
  if (scope.all) return true;
  return locationId != null && scope.locationIds.includes(locationId);
}

/** Staff sessions end after 30 minutes without a request, and 12 hours after sign-in in any case. */
export const STAFF_SESSION_IDLE_MS = 30 * 60 * 1000;
export const STAFF_SESSION_MAX_MS = 12 * 60 * 60 * 1000;
/** An invitation link (and the first owner's) works for 24 hours, once. */
export const STAFF_INVITE_TTL_MS = 24 * 60 * 60 * 1000;
/** Ten single-use recovery codes, stored hashed. */
export const RECOVERY_CODE_COUNT = 10;
