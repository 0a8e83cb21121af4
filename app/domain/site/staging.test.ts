import { describe, expect, it } from "vitest";
import { isStagingHost } from "./staging";

describe("isStagingHost", () => {
  it.each([
    ["staging.gatehousestorage.example", true],
    ["STAGING.gatehousestorage.example:3000", true],
    ["www.staging.gatehousestorage.example", true],
    ["staging.gatehousestorage.example.", true],
    ["www.gatehousestorage.example", false],
    ["localhost:3000", false],
    [undefined, false],
  ])("%s → %s", (host, expected) => {
    expect(isStagingHost(host, "staging.gatehousestorage.example")).toBe(expected);
  });

  it("no staging domain: nothing is staging", () => {
    expect(isStagingHost("localhost", "")).toBe(false);
    expect(isStagingHost("localhost", null)).toBe(false);
  });
});
