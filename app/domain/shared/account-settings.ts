import { z } from "zod";

const flag = (fallback: boolean) => z.boolean({ error: "Choose yes or no." }).default(fallback);
const count = (min: number, max: number, fallback: number, unit = "") =>
  z
    .number({ error: "Enter a number." })
    .int("Enter a whole number.")
    .min(min, `Enter ${min}${unit} or more.`)
    .max(max, `Enter at most ${max}${unit}.`)
    .default(fallback);

/**
 * The account's global_settings: the portal flags and business constants of spec §9 (the "rental
 * settings"). Defaults are the seeded operator's values, so a missing key means what the spec says.
 * Reading stored settings uses this schema (an unknown key stored before issue 39 is ignored);
 * WRITING uses `rentalSettingsSchema` / `locationSettingsSchema`, which refuse unknown keys
 * (decision 632).
 */
export const accountGlobalSettingsSchema = z.object({
  reservation_days_valid: count(0, 365, 2, " days"),
  portal_prepay_months: count(0, 24, 3, " months"),
  rental_days_in_advance: count(0, 365, 0, " days"),
  // Portal flags on in the spec.
  is_autopay_enabled: flag(true),
  is_payments_enabled: flag(true),
  is_prepayments_enabled: flag(true),
  is_move_out_enabled: flag(true),
  is_phone_form_enabled: flag(true),
  is_rentals_enabled: flag(true),
  is_reservation_short_form_enabled: flag(true),
  is_sitelink_esign_enabled: flag(true),
  is_autopay_prechecked: flag(true),
  is_rentals_on_sunday_allowed: flag(true),
  // Portal flags off in the spec.
  is_reservations_enabled: flag(false),
  is_protection_plans_enabled: flag(false),
  is_force_autopay: flag(false),
  is_id_upload_enabled: flag(false),
  is_unit_alarms_enabled: flag(false),
  is_web_rates_enabled: flag(false),
  is_value_pricing_enabled: flag(false),
  // "Insurance is shown but not required."
  is_insurance_shown: flag(true),
  is_insurance_required: flag(false),
  fake_discount_percentage: z.number({ error: "Enter a number." }).min(0, "Enter 0 or more.").max(100, "Enter at most 100.").default(0),
  // Review requests (issue 40, decision 501): off unless the operator turns them on (per location).
  is_review_request_enabled: flag(false),
  review_request_days_after_move_in: count(1, 365, 14, " days"),
  // Abandoned-rental recovery (issue 40, decision 517): one reminder this many minutes after a renter
  // gave their details and did not pay; on unless the operator turns it off (per location).
  is_rental_recovery_enabled: flag(true),
  rental_recovery_delay_minutes: count(30, 720, 60, " minutes"),
});
export type AccountGlobalSettings = z.infer<typeof accountGlobalSettingsSchema>;

export function parseAccountGlobalSettings(value: unknown): AccountGlobalSettings {
  return accountGlobalSettingsSchema.parse(value ?? {});
}

export type RentalSettingKey = keyof AccountGlobalSettings;
type SettingShape = (typeof accountGlobalSettingsSchema)["shape"];

/**
 * The account's rental settings as written (decision 632): every key of spec §9's settings, each
 * checked by its own rule, and any other key refused ("Unrecognized key"), so a misspelt setting is
 * never saved and silently ignored. The console's form and the draft both parse with it.
 */
export const rentalSettingsSchema = accountGlobalSettingsSchema.strict();

/**
 * A location's own settings as written (decision 632): any of the account's settings, each taking
 * the account's place at this location (decision 201); a key the account's settings do not have is
 * refused.
 */
export const locationSettingsSchema = z
  .object(
    Object.fromEntries(Object.entries(accountGlobalSettingsSchema.shape).map(([key, schema]) => [key, schema.unwrap().optional()])) as {
      [K in keyof SettingShape]: z.ZodOptional<ReturnType<SettingShape[K]["unwrap"]>>;
    },
  )
  .strict();


/**
 * Each setting as the console shows it (decision 632): its label and what it means, in the spec's
 * words where the spec has them (§9: "Reservation days valid: 2. Portal prepay months: 3. Rental days
 * in advance: 0", the portal flags, "Insurance is shown but not required", "Fake discount percentage").
 */
export const RENTAL_SETTINGS: Record<RentalSettingKey, { label: string; hint: string; group: "Renting" | "Tenant portal" | "Protection" | "Prices" | "Reminders" }> = {
  is_rentals_enabled: { group: "Renting", label: "Online rentals", hint: "Renters can rent a unit on the website. Off: the pay steps say “Rentals are currently under maintenance. Please call the office to make a payment.” (spec §8)." },
  is_reservations_enabled: { group: "Renting", label: "Online reservations", hint: "Renters can reserve a unit without paying (off in the spec)." },
  is_reservation_short_form_enabled: { group: "Renting", label: "Short reservation form", hint: "The reservation asks only the fewest details (on in the spec)." },
  reservation_days_valid: { group: "Renting", label: "Days a reservation is held", hint: "How many days a reservation keeps the unit (spec: 2)." },
  rental_days_in_advance: { group: "Renting", label: "Days ahead a move-in may be booked", hint: "How many days after today the move-in date may be (spec: 0, today only)." },
  is_rentals_on_sunday_allowed: { group: "Renting", label: "Move-ins on Sunday", hint: "A move-in date may fall on a Sunday (on in the spec)." },
  is_sitelink_esign_enabled: { group: "Renting", label: "Sign the lease electronically", hint: "The renter signs the lease on the website (SiteLink e-sign; on in the spec)." },
  is_id_upload_enabled: { group: "Renting", label: "ID upload", hint: "The renter uploads a photo ID (off in the spec)." },
  is_phone_form_enabled: { group: "Renting", label: "Phone enquiry form", hint: "Visitors can leave a number for the office to call (on in the spec)." },
  is_autopay_enabled: { group: "Tenant portal", label: "Autopay", hint: "Tenants can turn on automatic payments (on in the spec)." },
  is_autopay_prechecked: { group: "Tenant portal", label: "Autopay ticked by default", hint: "The autopay box starts ticked at the pay step (on in the spec)." },
  is_force_autopay: { group: "Tenant portal", label: "Autopay required", hint: "Renting requires autopay (off in the spec)." },
  is_payments_enabled: { group: "Tenant portal", label: "Online payments", hint: "Tenants can pay their bill in the portal (on in the spec)." },
  is_prepayments_enabled: { group: "Tenant portal", label: "Pay ahead", hint: "Tenants can pay months in advance (on in the spec)." },
  portal_prepay_months: { group: "Tenant portal", label: "Months a tenant may pay ahead", hint: "The most months paid in advance in the portal (spec: 3)." },
  is_move_out_enabled: { group: "Tenant portal", label: "Move-out notice online", hint: "Tenants can give notice of moving out in the portal (on in the spec)." },
  is_unit_alarms_enabled: { group: "Tenant portal", label: "Unit alarms", hint: "Tenants see their unit's alarm (account level, off in the spec)." },
  is_protection_plans_enabled: { group: "Protection", label: "Protection plans", hint: "Renters can choose a protection plan (off in the spec)." },
  is_insurance_shown: { group: "Protection", label: "Show insurance", hint: "The pay step offers the location's insurance (spec: “Insurance is shown but not required”)." },
  is_insurance_required: { group: "Protection", label: "Insurance required", hint: "A renter must choose insurance (off in the spec)." },
  is_web_rates_enabled: { group: "Prices", label: "Web rates", hint: "Pages and SiteLink use the web rate instead of the standard rate (off in the spec)." },
  is_value_pricing_enabled: { group: "Prices", label: "Value pricing", hint: "Prices vary with demand (off in the spec)." },
  fake_discount_percentage: { group: "Prices", label: "Shown discount (percent)", hint: "A percentage shown as a discount next to prices; 0 shows none (spec: 0)." },
  is_review_request_enabled: { group: "Reminders", label: "Review requests", hint: "Tenants are asked for a review after moving in (off unless turned on)." },
  review_request_days_after_move_in: { group: "Reminders", label: "Days after move-in to ask for a review", hint: "1 to 365 days (14 unless changed)." },
  is_rental_recovery_enabled: { group: "Reminders", label: "Abandoned-rental reminder", hint: "One reminder to a renter who gave their details and did not pay (on unless turned off)." },
  rental_recovery_delay_minutes: { group: "Reminders", label: "Minutes before the reminder", hint: "30 to 720 minutes (60 unless changed)." },
};

/** Whether a setting is a yes/no flag (else a number). */
export function isFlagSetting(key: RentalSettingKey): boolean {
  return typeof accountGlobalSettingsSchema.shape[key].parse(undefined) === "boolean";
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

/**
 * The schema the settings forms are parsed with (Conform's `parseWithZod`, decision 632): each
 * control's text turned into the setting's value, then checked by that setting's own rule from
 * `accountGlobalSettingsSchema` (the rule the server writes with). For the account every setting is
 * required (a box: ticked or not; a number); for a location each may be left to the account's value
 * ("" : the same as the website).
 */
export function settingsFormSchema(mode: "account" | "location") {
  const shape = accountGlobalSettingsSchema.shape;
  const fields = Object.fromEntries(
    (Object.keys(shape) as RentalSettingKey[]).map((key) => {
      const rule = shape[key].unwrap() as z.ZodType;
      const flag = isFlagSetting(key);
      const toValue = (raw: unknown): unknown => {
        const text = typeof raw === "string" ? raw.trim() : raw === undefined || raw === null ? "" : String(raw);
        if (flag) return mode === "account" ? text === "on" || text === "yes" : text === "yes" ? true : text === "no" ? false : undefined;
        return text === "" ? undefined : Number(text);
      };
      return [key, z.preprocess(toValue, mode === "account" ? rule : rule.optional())];
    }),
  );
  return z.object(fields);
}
