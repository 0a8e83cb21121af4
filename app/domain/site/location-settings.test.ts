import { describe, expect, it } from "vitest";
import { locationTimeZoneSchema, parseExtraCharges, reviewSettingsSchema } from "./location-settings";
import { parseAccountGlobalSettings, RENTALS_DISABLED_MESSAGE } from "../shared/account-settings";

describe("parseExtraCharges (the JSON text list of charges_to_show_at_checkout)", () => {
  it("reads the lock fee of spec §9", () => {
    const text = JSON.stringify([
      { sitelink_id: "LOCK", name: "Lock", tax_1_rate: 6.75, tax_2_rate: 0, amount: 7, is_recurring: false },
    ]);
    expect(parseExtraCharges(text)).toEqual({
      ok: true,
      charges: [{ sitelink_id: "LOCK", name: "Lock", tax_1_rate: 6.75, tax_2_rate: 0, amount: 7, is_recurring: false }],
    });
  });

  it.each([
    ["an empty string", "", { ok: true, charges: [] }],
    ["an empty list", "[]", { ok: true, charges: [] }],
    [
      "numbers as text and missing optional fields",
      '[{"name":"Lock","amount":"7.00","tax_1_rate":"6.75"}]',
      { ok: true, charges: [{ sitelink_id: null, name: "Lock", tax_1_rate: 6.75, tax_2_rate: 0, amount: 7, is_recurring: false }] },
    ],
  ])("accepts %s", (_name, text, expected) => {
    expect(parseExtraCharges(text)).toEqual(expected);
  });

  it.each([
    ["bad JSON", "[{", "charges_to_show_at_checkout is not valid JSON"],
    ["an object instead of a list", '{"name":"Lock"}', /expected array/i],
    ["an entry without a name", '[{"amount":7}]', /expected string/i],
    ["a negative amount", '[{"name":"Lock","amount":-7}]', /too small|>=0/i],
    ["a tax rate over 100 %", '[{"name":"Lock","amount":7,"tax_1_rate":675}]', /too big|<=100/i],
  ])("refuses %s", (_name, text, message) => {
    const result = parseExtraCharges(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(message);
  });
});

describe("locationTimeZoneSchema", () => {
  it.each([
    [{ dstOffset: 0, rawOffset: -18000, status: "OK", timeZoneId: "America/New_York", timeZoneName: "Eastern Standard Time" }, true],
    [{ dstOffset: 0, rawOffset: -18000, status: "OK", timeZoneId: "", timeZoneName: "x" }, false],
    [{ dstOffset: 0.5, rawOffset: -18000, status: "OK", timeZoneId: "America/New_York", timeZoneName: "x" }, false],
    [{ timeZoneId: "America/New_York" }, false],
  ])("%j valid: %s", (value, ok) => {
    expect(locationTimeZoneSchema.safeParse(value).success).toBe(ok);
  });
});

describe("reviewSettingsSchema", () => {
  it.each([
    [{ batch_id: null, status: "get-results", total_reviews: 0, rating: 0 }, true],
    [{ batch_id: "b1", status: "get-results", total_reviews: 12, rating: 4.6 }, true],
    [{ batch_id: null, status: "get-results", total_reviews: -1, rating: 0 }, false],
    [{ batch_id: null, status: "get-results", total_reviews: 0, rating: 5.1 }, false],
  ])("%j valid: %s", (value, ok) => {
    expect(reviewSettingsSchema.safeParse(value).success).toBe(ok);
  });
});

describe("parseAccountGlobalSettings (spec §9)", () => {
  it.each([["nothing stored", null], ["an empty object", {}]])("gives the spec's values for %s", (_name, stored) => {
    expect(parseAccountGlobalSettings(stored)).toEqual({
      reservation_days_valid: 2,
      portal_prepay_months: 3,
      rental_days_in_advance: 0,
      is_autopay_enabled: true,
      is_payments_enabled: true,
      is_prepayments_enabled: true,
      is_move_out_enabled: true,
      is_phone_form_enabled: true,
      is_rentals_enabled: true,
      is_reservation_short_form_enabled: true,
      is_sitelink_esign_enabled: true,
      is_autopay_prechecked: true,
      is_rentals_on_sunday_allowed: true,
      is_reservations_enabled: false,
      is_protection_plans_enabled: false,
      is_force_autopay: false,
      is_id_upload_enabled: false,
      is_unit_alarms_enabled: false,
      is_web_rates_enabled: false,
      is_value_pricing_enabled: false,
      is_insurance_shown: true,
      is_insurance_required: false,
      fake_discount_percentage: 0,
      // Not in the spec (decision 501): off until the operator turns them on.
      is_review_request_enabled: false,
      review_request_days_after_move_in: 14,
      is_rental_recovery_enabled: true,
      rental_recovery_delay_minutes: 60,
    });
  });

  it("keeps stored values over the defaults", () => {
    const s = parseAccountGlobalSettings({ is_rentals_enabled: false, portal_prepay_months: 6 });
    expect([s.is_rentals_enabled, s.portal_prepay_months, s.reservation_days_valid]).toEqual([false, 6, 2]);
  });

  it.each([
    [{ portal_prepay_months: "3" }],
    [{ reservation_days_valid: -1 }],
    [{ fake_discount_percentage: 101 }],
    [{ is_rentals_enabled: "yes" }],
  ])("refuses %j", (stored) => {
    expect(() => parseAccountGlobalSettings(stored)).toThrow();
  });

  it("has the rentals-disabled message of spec §8 word for word", () => {
    expect(RENTALS_DISABLED_MESSAGE).toBe("Rentals are currently under maintenance. Please call the office to make a payment.");
  });
});
