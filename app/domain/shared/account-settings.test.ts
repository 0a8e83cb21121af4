import { describe, expect, it } from "vitest";
import { ignoredLocationSettings, parseAccountGlobalSettings, settingsForLocation } from "./account-settings";

// Issue 20: a location's own global_settings override the account's (the website's), key by key.
const account = parseAccountGlobalSettings({});

describe("settingsForLocation", () => {
  it.each([
    ["no location settings", {}, {}],
    ["null", null, {}],
    ["not an object", "rentals off", {}],
    ["an array", [{ is_rentals_enabled: false }], {}],
    ["rentals off at the location", { is_rentals_enabled: false }, { is_rentals_enabled: false }],
    ["reservations on at the location", { is_reservations_enabled: true }, { is_reservations_enabled: true }],
    ["a number setting", { reservation_days_valid: 5, portal_prepay_months: 6 }, { reservation_days_valid: 5, portal_prepay_months: 6 }],
    ["the e-sign flag", { is_sitelink_esign_enabled: false }, { is_sitelink_esign_enabled: false }],
    ["a wrong kind of value is ignored", { is_rentals_enabled: "false" }, {}],
    ["null is ignored", { is_rentals_enabled: null }, {}],
    ["out of range is ignored", { portal_prepay_months: 99 }, {}],
    ["an unknown key is ignored", { is_rentals_enabled_typo: false }, {}],
    ["good and bad together: the good one applies", { is_payments_enabled: false, is_autopay_enabled: "no" }, { is_payments_enabled: false }],
  ])("%s", (_name, location, changed) => {
    expect(settingsForLocation(account, location)).toEqual({ ...account, ...changed });
  });

  it("the location overrides the account both ways", () => {
    const off = parseAccountGlobalSettings({ is_rentals_enabled: false });
    expect(settingsForLocation(off, { is_rentals_enabled: true }).is_rentals_enabled).toBe(true);
    expect(settingsForLocation(off, {}).is_rentals_enabled).toBe(false);
    expect(settingsForLocation(account, { is_rentals_enabled: false }).is_rentals_enabled).toBe(false);
  });

  it("never changes the account's settings object", () => {
    const before = { ...account };
    settingsForLocation(account, { is_rentals_enabled: false });
    expect(account).toEqual(before);
  });

  it("names what it ignored", () => {
    expect(ignoredLocationSettings({ is_rentals_enabled: "false", foo: 1, is_payments_enabled: false })).toEqual(["is_rentals_enabled", "foo"]);
    expect(ignoredLocationSettings(null)).toEqual([]);
  });
});
