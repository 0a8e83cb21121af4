import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP, appSources } from "./app-sources";
import { formatCents, formatWholeDollars } from "~/domain/shared/money";

describe("money is formatted in one place (app/domain/shared/money.ts)", () => {
  it("no other module formats cents as dollars", () => {
    const offenders = appSources()
      .filter((f) => !f.endsWith(path.join("domain", "shared", "money.ts")))
      .filter((f) => {
        const text = readFileSync(f, "utf8");
        return /currency:\s*"USD"/.test(text) || /\/\s*100\)\.toLocaleString|Math\.floor\(\w+\s*\/\s*100\)/.test(text);
      })
      .map((f) => path.relative(APP, f));
    expect(offenders).toEqual([]);
  });

  it.each([
    [100_000, "$1,000", "$1,000.00"],
    [895, "$8.95", "$8.95"],
    [-1250, "-$12.50", "-$12.50"],
  ])("%i cents → %s (whole dollars) / %s", (cents, whole, exact) => {
    expect(formatWholeDollars(cents)).toBe(whole);
    expect(formatCents(cents)).toBe(exact);
  });
});
