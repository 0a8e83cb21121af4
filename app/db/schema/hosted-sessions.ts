import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { tenants } from "./tenant";

/**
 * The processor's hosted payment pages we sent a tenant to (Stripe Checkout Sessions, decision 442),
 * recorded when they start, so that a page the tenant cancels is expired at once through the API
 * (nothing can be paid on it afterwards) — the cancel address does not carry the session's id.
 */
export const hostedSessions = pgTable(
  "hosted_sessions",
  {
    /** The processor's id (`cs_…`). */
    id: text().primaryKey(),
    /** The form's idempotency key (the session's `gatehouse_key`). */
    idempotencyKey: text().notNull(),
    tenantId: integer().references(() => tenants.id, { onDelete: "cascade" }),
    flow: text().notNull(),
    startedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** When we expired it (the tenant cancelled), else null. */
    expiredAt: timestamp({ withTimezone: true }),
  },
  (t) => [index("hosted_sessions_key_idx").on(t.idempotencyKey)],
);
