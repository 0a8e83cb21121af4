import { z } from "zod";

/**
 * The account's global_settings: the portal flags and business constants of spec §9.
 * Defaults are the seeded operator's values, so a missing key means what the spec says.
 */
export const accountGlobalSettingsSchema = z.object({
  reservation_days_valid: z.number().int().min(0).default(2),
  portal_prepay_months: z.number().int().min(0).max(24).default(3),
  rental_days_in_advance: z.number().int().min(0).default(0),
  // Portal flags on in the spec.
  is_autopay_enabled: z.boolean().default(true),
  is_payments_enabled: z.boolean().default(true),
  is_prepayments_enabled: z.boolean().default(true),
  is_move_out_enabled: z.boolean().default(true),
  is_phone_form_enabled: z.boolean().default(true),
  is_rentals_enabled: z.boolean().default(true),
  is_reservation_short_form_enabled: z.boolean().default(true),
  is_sitelink_esign_enabled: z.boolean().default(true),
  is_autopay_prechecked: z.boolean().default(true),
  is_rentals_on_sunday_allowed: z.boolean().default(true),
  // Portal flags off in the spec.
  is_reservations_enabled: z.boolean().default(false),
  is_protection_plans_enabled: z.boolean().default(false),
  is_force_autopay: z.boolean().default(false),
  is_id_upload_enabled: z.boolean().default(false),
  is_unit_alarms_enabled: z.boolean().default(false),
  is_web_rates_enabled: z.boolean().default(false),
  is_value_pricing_enabled: z.boolean().default(false),
  // "Insurance is shown but not required."
  is_insurance_shown: z.boolean().default(true),
  is_insurance_required: z.boolean().default(false),
  fake_discount_percentage: z.number().min(0).max(100).default(0),
  // Review requests (issue 40, decision 501): off unless the operator turns them on (per location).
  is_review_request_enabled: z.boolean().default(false),
  review_request_days_after_move_in: z.number().int().min(1).max(365).default(14),
  // Abandoned-rental recovery (issue 40, decision 517): one reminder this many minutes after a renter
  // gave their details and did not pay; on unless the operator turns it off (per location).
  is_rental_recovery_enabled: z.boolean().default(true),
  rental_recovery_delay_minutes: z.number().int().min(30).max(720).default(60),
});
export type AccountGlobalSettings = z.infer<typeof accountGlobalSettingsSchema>;

export function parseAccountGlobalSettings(value: unknown): AccountGlobalSettings {
  return accountGlobalSettingsSchema.parse(value ?? {});
}

/** Spec §8, word for word. */
export const RENTALS_DISABLED_MESSAGE =
  "Rentals are currently under maintenance. Please call the office to make a payment.";

/**
 * The settings that apply at one location (docs/decisions/201): the account's (the website's)
 * global_settings, with each key the location's own global_settings holds taking its place. A key the
 * account's settings do not know, or a value of the wrong kind, is ignored: the account's value stands
 * (`ignoredLocationSettings` names them), so a typo in one location's settings never switches a
 * feature on or off by accident.
 */
export function settingsForLocation(account: AccountGlobalSettings, location: unknown): AccountGlobalSettings {
  const merged: Record<string, unknown> = { ...account };
  for (const [key, value] of validLocationSettings(location).valid) merged[key] = value;
  return merged as AccountGlobalSettings;
}

/** The keys of a location's global_settings that are not applied (unknown, or a value of the wrong kind). */
export function ignoredLocationSettings(location: unknown): string[] {
  return validLocationSettings(location).ignored;
}

function validLocationSettings(location: unknown): { valid: Array<[string, unknown]>; ignored: string[] } {
  const valid: Array<[string, unknown]> = [];
  const ignored: string[] = [];
  if (location === null || typeof location !== "object" || Array.isArray(location)) return { valid, ignored };
  const shape = accountGlobalSettingsSchema.shape;
  for (const [key, value] of Object.entries(location)) {
    const field = Object.hasOwn(shape, key) ? shape[key as keyof typeof shape] : undefined;
    const parsed = field && value !== undefined && value !== null ? field.safeParse(value) : null;
    if (parsed?.success) valid.push([key, parsed.data]);
    else ignored.push(key);
  }
  return { valid, ignored };
}

/**
 * Lists of locations (/view-locations, the home page): whether each one rents online, by its own
 * settings over the account's (a live location with rentals on), without its raw settings.
 */
export function withRentsOnline<T extends { status: string; globalSettings: unknown }>(
  account: AccountGlobalSettings,
  list: readonly T[],
): Array<Omit<T, "globalSettings"> & { rentsOnline: boolean }> {
  return list.map(({ globalSettings, ...rest }) => ({
    ...rest,
    rentsOnline: rest.status === "Live" && settingsForLocation(account, globalSettings).is_rentals_enabled,
  }));
}
