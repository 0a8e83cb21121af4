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
});
export type AccountGlobalSettings = z.infer<typeof accountGlobalSettingsSchema>;

export function parseAccountGlobalSettings(value: unknown): AccountGlobalSettings {
  return accountGlobalSettingsSchema.parse(value ?? {});
}

/** Spec §8, word for word. */
export const RENTALS_DISABLED_MESSAGE =
  "Rentals are currently under maintenance. Please call the office to make a payment.";
