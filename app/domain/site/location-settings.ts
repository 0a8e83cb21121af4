import { z } from "zod";

/** Location time_zone as the operator's software reports it (spec §3). */
export const locationTimeZoneSchema = z.object({
  dstOffset: z.number().int(),
  rawOffset: z.number().int(),
  status: z.string(),
  timeZoneId: z.string().min(1),
  timeZoneName: z.string(),
});
export type LocationTimeZone = z.infer<typeof locationTimeZoneSchema>;

/** Review settings: status "get-results" is the only value seen (spec §4). */
export const reviewSettingsSchema = z.object({
  batch_id: z.string().nullable(),
  status: z.string(),
  total_reviews: z.number().int().min(0),
  rating: z.number().min(0).max(5),
});
export type ReviewSettings = z.infer<typeof reviewSettingsSchema>;

/** An extra charge entry (spec §3). Rates are percentages (6.75 means 6.75 %); amount is in dollars as stored. */
export const extraChargeSchema = z.object({
  sitelink_id: z.union([z.string(), z.number()]).nullable().default(null),
  name: z.string().min(1),
  tax_1_rate: z.coerce.number().min(0).max(100).default(0),
  tax_2_rate: z.coerce.number().min(0).max(100).default(0),
  amount: z.coerce.number().min(0),
  is_recurring: z.boolean().default(false),
});
export type ExtraCharge = z.infer<typeof extraChargeSchema>;

/**
 * Parses the JSON text list of extra charges. Bad JSON or a bad entry is an operator data
 * error: it is reported, never shown to visitors as a half-list.
 */
export function parseExtraCharges(
  text: string,
): { ok: true; charges: ExtraCharge[] } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text || "[]");
  } catch {
    return { ok: false, error: "charges_to_show_at_checkout is not valid JSON" };
  }
  const parsed = z.array(extraChargeSchema).safeParse(raw);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
  return { ok: true, charges: parsed.data };
}
