import { boolean, date, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { locations } from "./location";
import { accounts } from "./account";
import { tenants } from "./tenant";
import { unitTypes, units } from "./unit";
import { leases } from "./lease";
import { timestamps } from "./shared";

/**
 * "charging": the card is being charged and the move-in recorded (issue 14; see sweepUnrecordedCharges).
 * "confirming": the software did not say whether the move-in went through (a SiteLink timeout); the
 * adapter reads it back (confirmMoveIn) and the visitor sees "we are confirming your rental".
 */
export const rentalStatuses = ["open", "charging", "confirming", "completed", "abandoned"] as const;
export type RentalStatus = (typeof rentalStatuses)[number];

/**
 * An online rental in progress (issue 4). Its id is a random token kept in an HttpOnly cookie; the
 * steps' answers live here, never in the browser. The web password is kept only as a bcrypt hash.
 * `completedLeaseId` makes the final submit idempotent: a second submit finds the lease and shows
 * the confirmation again instead of charging twice.
 */
export const rentals = pgTable(
  "checkouts",
  {
    id: text().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    unitTypeId: integer()
      .notNull()
      .references(() => unitTypes.id, { onDelete: "cascade" }),
    /** The unit held for this rental (units.holdToken = this rental's id). */
    unitId: integer().references(() => units.id, { onDelete: "set null" }),
    status: text({ enum: rentalStatuses }).notNull().default("open"),
    /** The tenant form's answers (no password), as typed after parsing. */
    tenantDetails: jsonb().$type<Record<string, unknown>>(),
    webPwHash: text(),
    /** null: no protection plan chosen yet; "none": declined; otherwise the plan's id. */
    insuranceChoice: text(),
    autopay: boolean(),
    moveInDate: date({ mode: "string" }),
    signedName: text(),
    signedAt: timestamp({ withTimezone: true }),
    signedIp: text(),
    leaseHash: text(),
    /**
     * What a SiteLink move-in sent without an answer needs to be finished by reconciliation and may not
     * be kept in the write journal (issue 19): the tenant as given (no password), the signature, the
     * lease text as signed, the gate code and, under option B with autopay, the gateway's card token.
     * Written with the attempt, removed (null) as soon as the move-in is settled either way.
     */
    pendingMoveIn: jsonb().$type<Record<string, string>>(),
    idempotencyKey: text().notNull(),
    completedLeaseId: integer().references(() => leases.id, { onDelete: "set null" }),
    /**
     * Abandoned-rental recovery (issue 40, decision 517): when its one reminder was claimed (a
     * conditional UPDATE: once across processes), the SHA-256 of the link's token, when its text was
     * settled (sent or given up), and when the renter last came back through the link (the hold's cap
     * counts from then).
     */
    recoverySentAt: timestamp({ withTimezone: true }),
    recoveryTokenHash: text(),
    recoveryTextSettledAt: timestamp({ withTimezone: true }),
    resumedAt: timestamp({ withTimezone: true }),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    ...timestamps,
  },
  (t) => [
    index("checkouts_expires_idx").on(t.expiresAt),
    uniqueIndex("checkouts_idempotency_idx").on(t.idempotencyKey),
    uniqueIndex("checkouts_recovery_token_idx").on(t.recoveryTokenHash),
  ],
);

/**
 * Addresses that asked for no more abandoned-rental reminders (issue 40, decision 518), per account;
 * the e-mail lower-cased. One row per address: a second click changes nothing.
 */
export const rentalRecoveryOptOuts = pgTable(
  "rental_recovery_opt_outs",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    email: text().notNull(),
    /** The rental whose reminder's link was followed. */
    rentalId: text(),
    createdAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("rental_recovery_opt_outs_email_idx").on(t.accountId, t.email)],
);

export const reservationStatuses = ["active", "cancelled", "expired", "converted"] as const;
export type ReservationStatus = (typeof reservationStatuses)[number];

/**
 * A reservation from the short form (issue 4): one unit kept for `reservation_days_valid` days.
 * At most one active reservation per unit (partial unique index). `cancelTokenHash` is the SHA-256
 * of the token in the cancel link that is emailed.
 */
export const reservations = pgTable(
  "reservations",
  {
    id: serial().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    unitTypeId: integer()
      .notNull()
      .references(() => unitTypes.id, { onDelete: "cascade" }),
    unitId: integer()
      .notNull()
      .references(() => units.id, { onDelete: "cascade" }),
    tenantId: integer().references(() => tenants.id, { onDelete: "set null" }),
    firstName: text().notNull(),
    lastName: text().notNull(),
    email: text().notNull(),
    phone: text().notNull(),
    desiredMoveInDate: date({ mode: "string" }).notNull(),
    status: text({ enum: reservationStatuses }).notNull().default("active"),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    cancelTokenHash: text().notNull(),
    confirmationCode: text().notNull(),
    idempotencyKey: text(),
    cancelledAt: timestamp({ withTimezone: true }),
    externalId: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("reservations_active_unit_idx").on(t.unitId).where(sql`${t.status} = 'active'`),
    uniqueIndex("reservations_idempotency_idx").on(t.idempotencyKey),
    index("reservations_expires_idx").on(t.status, t.expiresAt),
  ],
);
