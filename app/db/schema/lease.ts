import { boolean, date, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { locations, insurancePlans } from "./location";
import { tenants } from "./tenant";
import { units } from "./unit";
import { timestamps } from "./shared";

export const leaseStatuses = ["active", "moved_out"] as const;

/**
 * A rental of one unit by one tenant. Money in cents; dates are calendar dates in the location's
 * time zone. `paidThroughDate` is the last day covered; `nextDueDate` the day the next rent is due.
 */
export const leases = pgTable(
  "leases",
  {
    id: serial().primaryKey(),
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "restrict" }),
    unitId: integer()
      .notNull()
      .references(() => units.id, { onDelete: "restrict" }),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "restrict" }),
    status: text({ enum: leaseStatuses }).notNull().default("active"),
    moveInDate: date({ mode: "string" }).notNull(),
    monthlyRate: integer().notNull(),
    insurancePlanId: integer().references(() => insurancePlans.id, { onDelete: "set null" }),
    /** Monthly protection plan premium in cents, 0 when none. */
    insurancePremium: integer().notNull().default(0),
    /**
     * The promotion the lease moved in with (issue 40, decision 602): cents off the rent of each of its
     * first `promotionMonths` months (the first month's at move-in, the others by the billing run), and
     * its wording. 0 / 0 / "" for none.
     */
    promotionDiscount: integer().notNull().default(0),
    promotionMonths: integer().notNull().default(0),
    promotionWording: text().notNull().default(""),
    paidThroughDate: date({ mode: "string" }).notNull(),
    nextDueDate: date({ mode: "string" }).notNull(),
    gateCode: text().notNull(),
    autopayEnabled: boolean().notNull().default(false),
    autopayCardId: integer(),
    moveOutDate: date({ mode: "string" }),
    moveOutNoticeAt: timestamp({ withTimezone: true }),
    /** The lease text as signed, its SHA-256, and the signature record. */
    leaseText: text().notNull(),
    leaseHash: text().notNull(),
    signedName: text().notNull(),
    signedAt: timestamp({ withTimezone: true }).notNull(),
    signedIp: text().notNull().default(""),
    externalId: text(),
    ...timestamps,
  },
  (t) => [
    index("leases_tenant_idx").on(t.tenantId),
    // One active lease per unit: the database refuses a second rental of the same unit.
    uniqueIndex("leases_active_unit_idx").on(t.unitId).where(sql`${t.status} = 'active'`),
  ],
);
