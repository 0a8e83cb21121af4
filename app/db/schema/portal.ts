import { date, index, integer, pgTable, primaryKey, serial, text, timestamp } from "drizzle-orm/pg-core";
import { tenants } from "./tenant";
import { leases } from "./lease";
import { timestamps } from "./shared";

/**
 * A signed-in tenant's session (issue 5). The cookie carries the random id (signed); the row lets
 * sign-out and expiry end it on the server as well.
 */
export const tenantSessions = pgTable(
  "tenant_sessions",
  {
    id: text().primaryKey(),
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    userAgent: text(),
    ip: text(),
    ...timestamps,
  },
  (t) => [index("tenant_sessions_tenant_idx").on(t.tenantId)],
);

/** A "forgot password" link: single use (`usedAt`), expiring; only the SHA-256 of the token is kept. */
export const passwordResetTokens = pgTable(
  "password_reset_tokens",
  {
    id: serial().primaryKey(),
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    tokenHash: text().notNull().unique(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    ...timestamps,
  },
);

/**
 * Fixed-window counters for rate limits shared by every server process (sign-in per account and
 * per IP, payment writes). `key` is e.g. "signin:ip:1.2.3.4"; the window ends at `resetAt`.
 */
export const rateLimitHits = pgTable("rate_limit_hits", {
  key: text().primaryKey(),
  count: integer().notNull().default(0),
  resetAt: timestamp({ withTimezone: true }).notNull(),
});

/** A move-out notice given in the portal, recorded for the office. */
export const moveOutNotices = pgTable(
  "move_out_notices",
  {
    id: serial().primaryKey(),
    leaseId: integer()
      .notNull()
      .references(() => leases.id, { onDelete: "cascade" }),
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    moveOutDate: date({ mode: "string" }).notNull(),
    reason: text(),
    ...timestamps,
  },
  (t) => [index("move_out_notices_lease_idx").on(t.leaseId)],
);

/**
 * One row per billing day: the daily run claims its date with an insert (or a row lock), so two
 * processes or two runs on the same day do the work once. Postings are idempotent on their own too
 * (ledger_entries.posting_key).
 */
export const billingRuns = pgTable("billing_runs", {
  runDate: date({ mode: "string" }).primaryKey(),
  startedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  finishedAt: timestamp({ withTimezone: true }),
  chargesPosted: integer().notNull().default(0),
  autopayCharged: integer().notNull().default(0),
  autopayDeclined: integer().notNull().default(0),
});

export const payLinkSentBy = ["staff", "billing_reminder"] as const;
export type PayLinkSentBy = (typeof payLinkSentBy)[number];

/**
 * "Pay without a password" (issue 23, decision 240): a signed, single-use link that pays one lease's
 * balance due. Only the SHA-256 of the token is kept, never the token. `usedAt` and `paymentId` are set
 * by the payment it made; `claimKey`/`claimedUntil` hold the link for one form (its idempotency key)
 * while its card is being charged, so two tabs cannot pay twice. `createdByStaffId` is the staff
 * member who sent it (no foreign key yet: the staff table belongs to the console's work).
 */
export const payLinks = pgTable(
  "pay_links",
  {
    id: serial().primaryKey(),
    tokenHash: text().notNull().unique(),
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    leaseId: integer()
      .notNull()
      .references(() => leases.id, { onDelete: "cascade" }),
    sentBy: text({ enum: payLinkSentBy }).notNull(),
    createdByStaffId: integer(),
    expiresAt: timestamp({ withTimezone: true }).notNull(),
    usedAt: timestamp({ withTimezone: true }),
    /** The storage software's payment id (ours, or SiteLink's receipt): the receipt number shown. */
    paymentId: text(),
    claimKey: text(),
    claimedUntil: timestamp({ withTimezone: true }),
    ...timestamps,
  },
  (t) => [index("pay_links_lease_idx").on(t.leaseId), index("pay_links_tenant_idx").on(t.tenantId)],
);

/**
 * The bill-due reminders the billing run sent (issue 23, decision 281): one per lease and billing
 * date, so a repeated or concurrent run sends none again. The row is written in the transaction that
 * queues the e-mail (and creates its pay link).
 */
export const billReminders = pgTable(
  "bill_reminders",
  {
    leaseId: integer()
      .notNull()
      .references(() => leases.id, { onDelete: "cascade" }),
    billDate: date({ mode: "string" }).notNull(),
    outboxId: integer().notNull(),
    payLinkId: integer(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.leaseId, t.billDate] })],
);
