import { describe, expect, it } from "vitest";
import { fillUnitTemplate, oneLineAddress, unitPageTexts } from "./units-template";

const values = {
  width: 10,
  length: 15,
  unitType: "Climate Controlled",
  locationName: "Lumberton",
  locationAddress: "4350 Fayetteville Rd, Lumberton, NC 28358",
};

describe("fillUnitTemplate", () => {
  it.each([
    ["{width}' x {length}' {unit_type} Storage Unit in {location_name}", "10' x 15' Climate Controlled Storage Unit in Lumberton"],
    ["Rent a {width}x{length} at {location_name}, {location_address}.", "Rent a 10x15 at Lumberton, 4350 Fayetteville Rd, Lumberton, NC 28358."],
    ["{{ WIDTH }}x{{length}} {Unit_Type}", "10x15 Climate Controlled"],
    ["{unit_width}x{unit_length} {type} in {location} at {address}", "10x15 Climate Controlled in Lumberton at 4350 Fayetteville Rd, Lumberton, NC 28358"],
    ["{width}x{length} {promo} unit in {location_name} {nonsense}.", "10x15 unit in Lumberton."],
    ["No placeholders", "No placeholders"],
    ["", ""],
  ])("%j", (template, expected) => {
    expect(fillUnitTemplate(template, values)).toBe(expected);
  });

  it("writes fractional feet without trailing zeros", () => {
    expect(fillUnitTemplate("{width}x{length}", { ...values, width: 7.5, length: 10 })).toBe("7.5x10");
  });
});

describe("unitPageTexts", () => {
  it("uses the website's templates", () => {
    expect(unitPageTexts({ title: "{width}x{length} in {location_name}", meta: "At {location_address}" }, values)).toEqual({
      title: "10x15 in Lumberton",
      description: "At 4350 Fayetteville Rd, Lumberton, NC 28358",
    });
  });
  it("falls back to defaults when a template is empty", () => {
    const texts = unitPageTexts({ title: " ", meta: "" }, values);
    expect(texts.title).toBe("10' x 15' Climate Controlled Storage Unit in Lumberton");
    expect(texts.description).toContain("4350 Fayetteville Rd, Lumberton, NC 28358");
  });
});

describe("oneLineAddress", () => {
  it("joins the parts, skipping an empty second line", () => {
    expect(oneLineAddress({ street1: "1 Main St", street2: null, city: "Kinston", stateProvince: "NC", postal: "28501" })).toBe("1 Main St, Kinston, NC 28501");
    expect(oneLineAddress(null)).toBe("");
  });
});
