import { describe, expect, it } from "vitest";
import { formatCents } from "../shared/money";
import { actionWords, changeSentences, fieldWords, recordWords } from "./words";

const names = { locations: new Map([[1, "Lumberton"], [2, "Jacksonville"]]), staff: new Map([[1, "Olive Owner (olive@example.com)"]]) };
const instant = (iso: string) => `at ${iso}`;

describe("the audit trail in the operator's words (decision 644)", () => {
  it.each([
    ["pay_link.sent", "Sent a pay link"],
    ["staff.access_changed", "Changed a staff member's access"],
    ["something_new.happened", "Something new happened"],
  ])("action %s reads %s", (action, words) => expect(actionWords(action)).toBe(words));

  it.each([
    ["contacted_by_staff_id", "Contacted by"],
    ["leaseBalance", "Lease balance"],
    ["cellPhone", "Phone"],
    ["postalCode", "ZIP code"],
  ])("field %s reads %s", (field, words) => expect(fieldWords(field)).toBe(words));

  it("says each change as a sentence: locations by name, money in dollars, staff by name, nothing as none", () => {
    expect(
      changeSentences(
        {
          locations: { before: null, after: [1] },
          refunded: { before: 0, after: 725 },
          contacted_by_staff_id: { before: null, after: 1 },
          city: { before: "Lumberton", after: "Pembroke" },
          contacted_at: { before: "2026-11-28T14:25:00.000Z", after: "2026-11-29T14:25:00.000Z" },
          disabled: { before: false, after: true },
        },
        names,
        formatCents,
        instant,
      ),
    ).toEqual([
      "Locations changed from every location to Lumberton.",
      "Refunded changed from $0.00 to $7.25.",
      "Contacted by set to Olive Owner (olive@example.com).",
      "City changed from “Lumberton” to “Pembroke”.",
      "Contacted at changed from at 2026-11-28T14:25:00.000Z to at 2026-11-29T14:25:00.000Z.",
      "Disabled changed from no to yes.",
    ]);
  });

  it("names a record, else says its kind in words", () => {
    expect(recordWords("staff_member", "1", "Olive Owner (olive@example.com)")).toBe("Olive Owner (olive@example.com)");
    expect(recordWords("sitelink_write", "abc", null)).toBe("Sitelink write abc");
    expect(recordWords(null, null, null)).toBe("");
  });
});
