import { z } from "zod";

/**
 * The schemas of the website's publishing forms (/admin/changes, restoring a version, reverting a
 * field from the audit trail), parsed with Conform (decision 342). What needs the database (the
 * account's time zones, a moment in the future, the draft still there) stays in the services.
 */
export const DATE_MESSAGE = "Enter a date as YYYY-MM-DD, for example 2025-12-01.";
export const TIME_MESSAGE = "Enter a time as HH:MM, for example 00:00.";
const ZONE_MESSAGE = "Choose the time zone of one of your locations.";
export const NO_DRAFT_MESSAGE = "There is no draft: it was published or discarded meanwhile.";

/** A calendar date written YYYY-MM-DD that exists (no 2025-02-30). */
export function isCalendarDate(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
}

const changesetId = z.number({ error: NO_DRAFT_MESSAGE }).int(NO_DRAFT_MESSAGE).positive(NO_DRAFT_MESSAGE);

/** "Schedule the publish": a date and a time in one of the account's time zones. */
export const scheduleSchema = z.object({
  changesetId,
  date: z.string({ error: DATE_MESSAGE }).trim().max(20, DATE_MESSAGE).refine(isCalendarDate, DATE_MESSAGE),
  time: z.string({ error: TIME_MESSAGE }).trim().regex(/^([01]\d|2[0-3]):[0-5]\d$/, TIME_MESSAGE),
  timeZone: z.string({ error: ZONE_MESSAGE }).max(80, ZONE_MESSAGE),
});

/**
 * Publish now, discard, unschedule: hidden fields and the button. A discard is asked first (decision
 * 630): without `confirmed=yes` the page asks, naming what would be thrown away.
 */
export const changesetActionSchema = z.object({
  intent: z.enum(["publish", "discard", "unschedule"], { error: "Choose an action." }),
  changesetId,
  confirmed: z.literal("yes").optional(),
});

/** "Revert" beside a field of an audited change (hidden fields: the event and the field's name). */
export const revertFieldSchema = z.object({
  eventId: z.number().int().positive(),
  field: z
    .string()
    .trim()
    .transform((f) => f.slice(0, 100)),
});
