import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatCents, formatWholeDollars } from "~/domain/money";

const APP = path.resolve(import.meta.dirname, "../../app");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

describe("money is formatted in one place (app/domain/money.ts)", () => {
  it("no other module formats cents as dollars", () => {
    const offenders = sources(APP)
      .filter((f) => !f.endsWith(path.join("domain", "money.ts")))
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
