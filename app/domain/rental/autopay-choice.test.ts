import { describe, expect, it } from "vitest";
import { autopayChoice, FORCED_AUTOPAY_REASON } from "./autopay-choice";
import { parseAccountGlobalSettings } from "../shared/account-settings";

describe("the autopay box at rental (force autopay, autopay pre-checked)", () => {
  it("seed values (force off, pre-checked on): offered, ticked, not required, no reason", () => {
    expect(autopayChoice(parseAccountGlobalSettings({}))).toEqual({ offered: true, required: false, checked: true, reason: null });
  });

  it.each([
    [{ is_force_autopay: false, is_autopay_prechecked: false }, { offered: true, required: false, checked: false, reason: null }],
    [{ is_force_autopay: true, is_autopay_prechecked: false }, { offered: true, required: true, checked: true, reason: FORCED_AUTOPAY_REASON }],
    [{ is_force_autopay: true, is_autopay_prechecked: true }, { offered: true, required: true, checked: true, reason: FORCED_AUTOPAY_REASON }],
    [{ is_autopay_enabled: false }, { offered: false, required: false, checked: false, reason: null }],
    [{ is_autopay_enabled: false, is_force_autopay: true }, { offered: true, required: true, checked: true, reason: FORCED_AUTOPAY_REASON }],
  ])("%j", (flags, expected) => {
    expect(autopayChoice(parseAccountGlobalSettings(flags))).toEqual(expected);
  });
});
