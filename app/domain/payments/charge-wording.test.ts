import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { firstMonthProtectionWording, firstMonthRentWording, periodChargeWording } from "./charge-wording";

// Issue 20 (decision 202): one wording for rent and protection lines, whichever adapter.
describe("charge wording", () => {
  it.each([
    [firstMonthRentWording("2026-11-22", "2026-12-21"), "First month's rent (Nov 22, 2026 to Dec 21, 2026)"],
    [firstMonthProtectionWording(100_000), "Protection plan, $1,000 coverage (first month)"],
    [firstMonthProtectionWording(null), "Protection plan (first month)"],
    [periodChargeWording("Rent", "2026-12-22", "2027-01-21"), "Rent Dec 22, 2026 – Jan 21, 2027"],
    [periodChargeWording("Protection plan", "2026-12-01", "2026-12-31"), "Protection plan Dec 1, 2026 – Dec 31, 2026"],
  ])("%s", (got, want) => {
    expect(got).toBe(want);
  });

  it("is written in app/domain/payments/charge-wording.ts only", () => {
    const app = path.resolve(import.meta.dirname, "..");
    const sources = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const p = path.join(dir, name);
        if (statSync(p).isDirectory()) return sources(p);
        return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
      });
    const offenders = sources(app)
      .filter((f) => !f.endsWith(path.join("domain", "payments", "charge-wording.ts")))
      .filter((f) => /First month's rent|coverage \(first month\)|`Rent \$\{|`Protection plan \$\{/.test(readFileSync(f, "utf8")))
      .map((f) => path.relative(app, f));
    expect(offenders).toEqual([]);
  });
});
