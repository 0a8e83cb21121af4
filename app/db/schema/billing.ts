import { date, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { leases } from "./lease";
import { locations } from "./location";
import { tenants } from "./tenant";
import { timestamps } from "./shared";
import { cardBrands } from "~/domain/payments/cards";


/** A card kept for autopay or quick payment: brand, last four and the gateway's token only. */
export const savedCards = pgTable("saved_cards", {
  id: serial().primaryKey(),
  tenantId: integer()
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" }),
  brand: text({ enum: cardBrands }).notNull(),
  last4: text().notNull(),
  expMonth: integer().notNull(),
  expYear: integer().notNull(),
  nameOnCard: text().notNull().default(""),
  gatewayToken: text().notNull(),
  ...timestamps,
});

/**
 * "refunded": approved, then refunded in full from the back office (decision 280). A payment refunded
 * in part stays "approved" with its `refundedAmount` (decision 509).
 */
export const paymentStatuses = ["approved", "declined", "refunded"] as const;
/**
 * Where a payment came from: the online rental (`move_in`), the portal's pay page (`portal`), a
 * prepayment, autopay, or a pay link (`pay_link`: paid without signing in, through a link the office
 * e-mailed, texted or copied, or a bill reminder's; issue 39, decision 508).
 */
export const paymentSources = ["move_in", "portal", "prepay", "autopay", "pay_link"] as const;

/**
 * A card payment attempt. Never the card number or CVV: brand, last four and the gateway's
 * authorisation reference. `idempotencyKey` makes a repeated submission return the first result.
 */
export const payments = pgTable(
  "payments",
  {
    id: serial().primaryKey(),
    tenantId: integer().references(() => tenants.id, { onDelete: "restrict" }),
    leaseId: integer().references(() => leases.id, { onDelete: "restrict" }),
    /**
     * Where the card was tried, for an attempt without a lease (a declined move-in, issue 23's payments
     * list); null otherwise: the lease's location is the payment's.
     */
    locationId: integer().references(() => locations.id, { onDelete: "set null" }),
    amount: integer().notNull(),
    /** Cents given back so far (decision 509): 0 ≤ refundedAmount ≤ amount; all of it when "refunded". */
    refundedAmount: integer().notNull().default(0),
    status: text({ enum: paymentStatuses }).notNull(),
    source: text({ enum: paymentSources }).notNull(),
    cardBrand: text({ enum: cardBrands }).notNull(),
    cardLast4: text().notNull(),
    authReference: text(),
    declineReason: text(),
    idempotencyKey: text().notNull(),
    ...timestamps,
  },
  (t) => [uniqueIndex("payments_idempotency_idx").on(t.idempotencyKey), index("payments_tenant_idx").on(t.tenantId)],
);

export const ledgerEntryKinds = ["charge", "payment", "credit"] as const;
export type LedgerEntryKind = (typeof ledgerEntryKinds)[number];

/**
 * A line of a lease's ledger. Charges are positive amounts owed (tax on its own column); payments
 * and credits are positive amounts paid. Balance = Σ(charge amount + tax) − Σ(payment + credit).
 * `postingKey` makes a posting idempotent (e.g. "rent:2026-12-01"): the billing run can run twice.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: serial().primaryKey(),
    leaseId: integer()
      .notNull()
      .references(() => leases.id, { onDelete: "restrict" }),
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "restrict" }),
    kind: text({ enum: ledgerEntryKinds }).notNull(),
    description: text().notNull(),
    amount: integer().notNull(),
    tax: integer().notNull().default(0),
    periodStart: date({ mode: "string" }),
    periodEnd: date({ mode: "string" }),
    /** Local calendar date the entry belongs to (due date of a charge, date of a payment). */
    entryDate: date({ mode: "string" }).notNull(),
    paymentId: integer().references(() => payments.id, { onDelete: "restrict" }),
    postingKey: text(),
    postedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    ...timestamps,
  },
  (t) => [
    index("ledger_entries_lease_idx").on(t.leaseId, t.entryDate),
    uniqueIndex("ledger_entries_posting_key_idx").on(t.leaseId, t.postingKey),
  ],
);

/**
 * Every processor webhook event taken (issue 25, decision 382): the event's id is the key, so a
 * duplicate or replayed delivery is answered without being acted on twice. `outcome` says what it
 * did ("recorded", "already recorded", "ignored", "needs attention: …") for the office.
 */
export const gatewayEvents = pgTable("gateway_events", {
  id: text().primaryKey(),
  processor: text({ enum: ["stripe"] }).notNull(),
  type: text().notNull(),
  /** Our idempotency key (the PaymentIntent's `gatehouse_key`), when the event has one. */
  idempotencyKey: text(),
  outcome: text().notNull(),
  receivedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
