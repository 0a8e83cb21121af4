import { date, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./account";
import { locations } from "./location";
import { payments } from "./billing";
import { staffMembers } from "./staff";

export const paymentDifferenceKinds = ["not_recorded", "unknown_to_processor", "amount_differs"] as const;
export type PaymentDifferenceKind = (typeof paymentDifferenceKinds)[number];

/**
 * A difference between the card processor's own list and our payments (issue 35, decision 440),
 * found by the reconciliation of a location's day (the console's page, and housekeeping for
 * yesterday and today). One row per difference (`reference`: the processor's payment id, or
 * `payment:N` for a payment of ours it does not know), kept until a member marks it resolved with a
 * note (audited), or until a later check finds the records agree (`clearedAt`). `locationId` null: money
 * at the processor that names no payment of ours, so no location: owners (every location) see it.
 */
export const paymentDifferences = pgTable(
  "payment_differences",
  {
    id: serial().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    locationId: integer().references(() => locations.id, { onDelete: "cascade" }),
    /** The day (the location's calendar) the money moved on. */
    day: date({ mode: "string" }).notNull(),
    kind: text({ enum: paymentDifferenceKinds }).notNull(),
    reference: text().notNull(),
    /** Cents the processor kept (charged less refunded), when it knows the payment. */
    processorAmount: integer(),
    /** Cents we recorded as kept, when we have the payment. */
    recordedAmount: integer(),
    paymentId: integer().references(() => payments.id, { onDelete: "set null" }),
    /** What the processor shows (card), for the office. */
    detail: text().notNull().default(""),
    foundAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** A later check found the records agree (e.g. the webhook recorded the payment meanwhile). */
    clearedAt: timestamp({ withTimezone: true }),
    resolvedAt: timestamp({ withTimezone: true }),
    resolvedBy: integer().references(() => staffMembers.id, { onDelete: "set null" }),
    resolutionNote: text(),
  },
  (t) => [uniqueIndex("payment_differences_reference_idx").on(t.accountId, t.kind, t.reference), index("payment_differences_open_idx").on(t.accountId, t.resolvedAt, t.clearedAt)],
);
