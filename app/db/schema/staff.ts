import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { STAFF_ROLES } from "~/domain/staff/roles";
import { accounts } from "./account";
import { locations } from "./location";
import { timestamps } from "./shared";

/**
 * The operator's staff (issue 23, docs/decisions/245-staff-roles-and-scope.md): separate from tenants,
 * with a role and, for every role but owner, the locations it covers (staff_locations). The password
 * (bcrypt) and the TOTP secret (sealed) are set when the invitation is accepted; until then both are
 * null and the member cannot sign in. A disabled member cannot sign in and has no sessions.
 */
export const staffMembers = pgTable(
  "staff_members",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    email: text().notNull(),
    name: text().notNull().default(""),
    role: text({ enum: STAFF_ROLES }).notNull(),
    passwordHash: text(),
    /** The TOTP secret, sealed at rest (app/platform/sealed-box.server.ts); null until enrolled. */
    totpSecretSealed: text(),
    /** The last TOTP time step accepted, so a code is never accepted twice. */
    totpLastStep: integer(),
    disabledAt: timestamp({ withTimezone: true }),
    lastSignInAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [uniqueIndex("staff_members_account_email_idx").on(t.accountId, sql`lower(${t.email})`)],
);

/** The locations a manager, front desk or read-only member covers. Owners cover all. */
export const staffLocations = pgTable(
  "staff_locations",
  {
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.staffId, t.locationId] })],
);

/** One-time invitation links (24 h): the SHA-256 of the token only. */
export const staffInvites = pgTable(
  "staff_invites",
  {
    id: serial().primaryKey(),
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    tokenHash: text().notNull().unique(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    /** Null for the first owner, invited by command. */
    invitedByStaffId: integer().references(() => staffMembers.id, { onDelete: "set null" }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("staff_invites_staff_idx").on(t.staffId)],
);

/**
 * "Forgot password" links of the back office (issue 39, docs/decisions/503-staff-password-reset.md):
 * the SHA-256 of the token only, one hour, once. Using one spends every other open link of the member.
 */
export const staffPasswordResets = pgTable(
  "staff_password_resets",
  {
    id: serial().primaryKey(),
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    tokenHash: text().notNull().unique(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("staff_password_resets_staff_idx").on(t.staffId)],
);

/**
 * Staff sessions: the SHA-256 of the cookie's random id. Idle 30 minutes, at most 12 hours
 * (app/domain/staff/roles.ts). `factorAt` is when a second factor was last given, for the actions
 * that need a fresh one. `passwordOnly` marks a session that has passed the password but not yet the
 * second factor: it opens nothing but the second-factor page.
 */
export const staffSessions = pgTable(
  "staff_sessions",
  {
    id: text().primaryKey(),
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    factorAt: timestamp({ withTimezone: true }),
    passwordOnly: boolean().notNull().default(false),
    /**
     * The pending WebAuthn challenge of this session (docs/decisions/270-passkey-challenges.md), as
     * `purpose:challenge` (register, sign_in, reauth), and when it lapses. Taken (set back to null)
     * by the first response that names it, right or wrong: a challenge is answered once.
     */
    webauthnChallenge: text(),
    webauthnChallengeExpiresAt: timestamp({ withTimezone: true }),
    ip: text(),
    userAgent: text(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("staff_sessions_staff_idx").on(t.staffId)],
);

/** Ten single-use recovery codes per member, bcrypt-hashed. */
export const staffRecoveryCodes = pgTable(
  "staff_recovery_codes",
  {
    id: serial().primaryKey(),
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    codeHash: text().notNull(),
    usedAt: timestamp({ withTimezone: true }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("staff_recovery_codes_staff_idx").on(t.staffId)],
);

/** WebAuthn credentials (passkeys) of a member. */
export const staffPasskeys = pgTable(
  "staff_passkeys",
  {
    id: serial().primaryKey(),
    staffId: integer()
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    /** base64url credential id. */
    credentialId: text().notNull().unique(),
    /** base64url COSE public key. */
    publicKey: text().notNull(),
    counter: integer().notNull().default(0),
    transports: jsonb().$type<string[]>().notNull().default([]),
    name: text().notNull().default("Passkey"),
    lastUsedAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [index("staff_passkeys_staff_idx").on(t.staffId)],
);

/** One field's value before and after a change. Secrets never enter (app/services/audit/events.server.ts). */
export type AuditFieldChange = { before: unknown; after: unknown };

/**
 * The audit trail (issue 24's field history builds on it): every staff sign-in, failed sign-in and
 * action, written in the same transaction as the action. Append-only: a trigger in migration 0008
 * refuses UPDATE, DELETE and TRUNCATE for every database role.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id),
    at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** Null when nobody was signed in (a failed sign-in of an unknown address, the invite command). */
    staffId: integer().references(() => staffMembers.id),
    /** Who, as a person reads it: the member's e-mail, or the e-mail typed at a failed sign-in, or "command line". */
    actor: text().notNull(),
    ip: text(),
    /** e.g. staff.sign_in, staff.sign_in_failed, lead.contacted, tenant.lockout_lifted, pay_link.sent. */
    action: text().notNull(),
    /** The kind of record acted on (tenant, lease, lead, staff_member, …) and its id. */
    entity: text(),
    entityId: text(),
    locationId: integer().references(() => locations.id),
    /** For a change: each field's value before and after. */
    changes: jsonb().$type<Record<string, AuditFieldChange>>(),
    /** Anything else worth keeping (a note, the reason a sign-in failed). Never a secret. */
    detail: jsonb().$type<Record<string, unknown>>(),
  },
  (t) => [
    index("audit_events_account_at_idx").on(t.accountId, t.at),
    index("audit_events_entity_idx").on(t.entity, t.entityId),
  ],
);

export const leadKinds = ["contact", "notify", "abandoned_rental"] as const;

/**
 * A lead the desk has followed up (issue 23): a contact message, a "notify me" request or an abandoned
 * rental, marked contacted by a staff member with a note. One row per lead; the audit trail keeps the
 * history.
 */
export const leadFollowUps = pgTable(
  "lead_follow_ups",
  {
    id: serial().primaryKey(),
    kind: text({ enum: leadKinds }).notNull(),
    /** The contact message's or the rental's id. */
    leadId: text().notNull(),
    contactedAt: timestamp({ withTimezone: true }).notNull(),
    contactedByStaffId: integer()
      .notNull()
      .references(() => staffMembers.id),
    note: text().notNull().default(""),
    ...timestamps,
  },
  (t) => [uniqueIndex("lead_follow_ups_lead_idx").on(t.kind, t.leadId)],
);
