import { describe, expect, it } from "vitest";
import { isValidLocationSlug, locationSlug, slugify } from "./slug";

describe("slugify", () => {
  it.each([
    ["Lumberton", "lumberton"],
    ["Seven Springs", "seven-springs"],
    ["  Winston--Salem  ", "winston-salem"],
    ["Coeur d'Alene", "coeur-d-alene"],
    ["São Paulo", "sao-paulo"],
    ["Storage & More", "storage-and-more"],
    ["St. Louis", "st-louis"],
    ["", ""],
  ])("%j → %j", (input, expected) => {
    expect(slugify(input)).toBe(expected);
  });
});

describe("locationSlug: city, state code and postal code, lowercase (spec §2)", () => {
  it.each([
    [{ city: "Lumberton", stateProvince: "NC", postal: "28358" }, "lumberton-nc-28358"],
    [{ city: "Jacksonville", stateProvince: "NC", postal: "28546" }, "jacksonville-nc-28546"],
    [{ city: "Seven Springs", stateProvince: "NC", postal: "28578" }, "seven-springs-nc-28578"],
    [{ city: "Kinston", stateProvince: "nc", postal: "28501" }, "kinston-nc-28501"],
    // ZIP+4 keeps the five-digit ZIP.
    [{ city: "Kinston", stateProvince: "NC", postal: "28501-1234" }, "kinston-nc-28501"],
    [{ city: " Winston-Salem ", stateProvince: "NC", postal: " 27101 " }, "winston-salem-nc-27101"],
  ])("%j → %s", (address, expected) => {
    expect(locationSlug(address)).toBe(expected);
  });
});

describe("isValidLocationSlug", () => {
  it.each([
    ["lumberton-nc-28358", true],
    ["seven-springs-nc-28578", true],
    ["Lumberton-NC-28358", false],
    ["lumberton-nc", false],
    ["lumberton-nc-2835", false],
    ["lumberton--nc-28358", false],
    ["lumberton-north-carolina-28358", false],
    ["-nc-28358", false],
  ])("%s → %s", (slug, ok) => {
    expect(isValidLocationSlug(slug)).toBe(ok);
  });
});
