import { date, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { locations } from "./location";
import { staffMembers } from "./staff";
import { REPORT_FREQUENCIES } from "~/domain/console/reports";
import { timestamps } from "./shared";

/**
 * A staff member's report by e-mail (issue 40, decision 610): daily or weekly, at `hour` in each of
 * their locations' time zone (weekly: on `weekday`, 1 = Monday … 7 = Sunday). Removed by "No report"
 * or the e-mail's unsubscribe link. A report is due only for a time at or after `updatedAt` (choosing
 * at 10 am a report at 7 am sends the first one tomorrow).
 */
export const staffReportPreferences = pgTable("staff_report_preferences", {
  staffId: integer()
    .primaryKey()
    .references(() => staffMembers.id, { onDelete: "cascade" }),
  frequency: text({ enum: REPORT_FREQUENCIES }).notNull(),
  hour: integer().notNull(),
  weekday: integer().notNull().default(1),
  ...timestamps,
});

/**
 * Each location's occupancy as first read on each of its calendar days (issue 40, decision 611): the
 * storage software gives only the present count, so the reports' "the week before" is the row kept
 * seven days earlier. Written once a day by the reports job (ON CONFLICT DO NOTHING).
 */
export const locationOccupancyDays = pgTable(
  "location_occupancy_days",
  {
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    day: date({ mode: "string" }).notNull(),
    taken: integer().notNull(),
    total: integer().notNull(),
    readAt: timestamp({ withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.day] })],
);
