import { describe, expect, it } from "vitest";
import { announcementOf, conflictMessage, formErrorMap, formSchemaFor, toFormValue, withAnnouncement } from "./form";

const parse = (entity: Parameters<typeof formSchemaFor>[0], fields: string[], input: Record<string, unknown>) =>
  formSchemaFor(entity, fields).safeParse(input, { error: formErrorMap });

describe("formSchemaFor: a form's text into the registry's values", () => {
  it.each([
    ["a ticked checkbox", "unitType", "isHiddenOnline", "on", true],
    ["an unticked checkbox (not sent)", "unitType", "isHiddenOnline", undefined, false],
    ["a whole number", "amenity", "index", "20", 20],
    ["an empty time", "hoursItem", "open", "", null],
    ["a list, one a line", "location", "specificUnitTypesToShow", "Climate\n\n Drive-up \n", ["Climate", "Drive-up"]],
    ["JSON", "location", "globalSettings", '{"is_rentals_enabled": false}', { is_rentals_enabled: false }],
    ["a numeric option", "redirect", "statusCode", "302", 302],
    // Decision 670: money typed in dollars, stored in cents.
    ["dollars", "unitType", "promotionAmount", "25", 2500],
    ["dollars and cents", "unitType", "promotionAmount", "25.50", 2550],
    ["a dollar sign", "unitType", "promotionAmount", "$25.00", 2500],
    ["thousands", "unitType", "promotionAmount", " $1,234.5 ", 123450],
    // Decision 671: the plan chosen from a select, a number.
    ["a plan chosen", "unitType", "promotionPlanId", "41", 41],
    ["no plan chosen", "unitType", "promotionPlanId", "", null],
  ] as const)("%s", (_name, entity, field, raw, value) => {
    const r = parse(entity, [field], raw === undefined ? {} : { [field]: raw });
    expect(r.success && r.data).toEqual({ [field]: value });
  });

  it("the days of an hours line, ticked in any order, in the week's order", () => {
    const r = parse("hoursItem", ["days"], { days: ["Sa", "Mo", "Tu"] });
    expect(r.success && r.data).toEqual({ days: "Mo,Tu,Sa" });
  });

  it.each([
    ["hoursItem", "days", [], "Choose at least one day."],
    ["hoursItem", "open", "9am", "Enter a time as HH:MM, for example 09:00."],
    ["amenity", "index", "twenty", "Enter a whole number."],
    ["amenity", "index", "-1", "Enter 0 or more."],
    ["location", "globalSettings", "{oops", "This is not valid JSON"],
    // Decision 632: a key no setting has is refused, never saved and ignored.
    ["location", "globalSettings", '{"is_rental_enabled": false}', "Unrecognized key"],
    ["contentItem", "tag", "Blog", "Choose one of the options."],
    ["unitType", "promotionAmount", "twenty", "Enter an amount in dollars, such as 25 or 25.50."],
    ["unitType", "promotionAmount", "2.505", "Enter an amount in dollars, such as 25 or 25.50."],
    ["unitType", "promotionAmount", "-5", "Enter an amount in dollars, such as 25 or 25.50."],
    ["unitType", "promotionAmount", "", "Enter an amount in dollars, such as 25 or 25.50."],
    ["unitType", "promotionAmount", "100001", "Enter at most $100,000.00."],
  ] as const)("%s.%s %j: %s", (entity, field, raw, message) => {
    const r = parse(entity, [field], { [field]: raw });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toContain(message);
  });
});

describe("toFormValue", () => {
  it.each([
    ["bool", true, "on"],
    ["bool", false, ""],
    ["list", ["a", "b"], "a\nb"],
    ["weekdays", "Mo,Sa", ["Mo", "Sa"]],
    ["time", null, ""],
    ["json", { a: 1 }, '{\n  "a": 1\n}'],
    ["money", 2550, "25.50"],
    ["money", 0, "0.00"],
    ["money", 123450, "1234.50"],
    ["choice", 41, "41"],
  ] as const)("%s %j", (control, value, text) => expect(toFormValue(control, value)).toEqual(text));
});

describe("the announcement bar inside navComponent", () => {
  const nav = { name: "classic", props: [{ name: "logo_position", value: "left" }, { name: "announcement_bar_enabled", value: true }, { name: "announcement_bar_text", value: "Call us" }] };
  it("reads and writes only its three props, keeping the rest", () => {
    expect(announcementOf(nav)).toEqual({ enabled: true, text: "Call us", phone: "" });
    expect(withAnnouncement(nav, { enabled: false, text: "Closed Monday", phone: "910" })).toEqual({
      name: "classic",
      props: [
        { name: "logo_position", value: "left" },
        { name: "announcement_bar_enabled", value: false },
        { name: "announcement_bar_text", value: "Closed Monday" },
        { name: "announcement_bar_phone", value: "910" },
      ],
    });
  });
});

it("conflictMessage shows both values, money in dollars", () => {
  expect(conflictMessage("Description", "Wide door", "")).toBe("Someone else changed Description to «Wide door» since you opened this page; yours was «(empty)». Choose which to keep.");
  expect(conflictMessage("Amount off each month", 2000, 1250, "money")).toBe(
    "Someone else changed Amount off each month to «$20.00» since you opened this page; yours was «$12.50». Choose which to keep.",
  );
});
