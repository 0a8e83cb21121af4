import { describe, expect, it } from "vitest";
import { quoteMoveIn } from "~/domain/rental/move-in-quote";
import { inSiteWording, quoteFromCostRows } from "./quote";

// Issue 20 (decision 202): SiteLink's move-in rows say "Rent" and "Insurance"; the review step, the
// lease and the receipt at a SiteLink location say what a local move-in says.
const row = (ChargeDescription: string, amount: string, start: string, end: string, discount = "0") => ({
  ChargeDescription,
  ChargeAmount: amount,
  TaxAmount: "0",
  dcDiscount: discount,
  dcTotal: (Number(amount) - Number(discount)).toFixed(4),
  bMoveInRequired: "true",
  StartDate: `${start}T00:00:00`,
  EndDate: `${end}T00:00:00-05:00`,
});

const ctx = { moveInDate: "2026-11-22", standardRate: 5000, monthlyRate: 5000, insurancePlanId: "101", insurancePremium: 895 };

describe("inSiteWording", () => {
  it("anniversary billing: the same rent and protection wording as a local move-in of the same unit", () => {
    const sitelink = inSiteWording(
      quoteFromCostRows([row("Rent", "50", "2026-11-22", "2026-12-21"), row("Lock", "7", "2026-11-22", "2026-11-22"), row("Insurance", "8.95", "2026-11-22", "2026-12-21")], ctx),
      100_000,
    );
    const local = quoteMoveIn({
      unitType: { name: "Drive-Up", category: "drive_up", standardRate: 5000, webRate: 0 },
      settings: { isWebRatesEnabled: false, fakeDiscountPercentage: 0, isShowExtraChargesAtCheckout: false, isHideExtraChargesForParkingOrOffice: false },
      insurancePlan: { id: "101", coverage: 100_000, premium: 895 },
      charges: [],
      moveInDate: "2026-11-22",
    } as unknown as Parameters<typeof quoteMoveIn>[0]);
    const words = (q: { lines: Array<{ kind: string; description: string }> }, kind: string) => q.lines.filter((l) => l.kind === kind).map((l) => l.description);
    expect(words(sitelink, "rent")).toEqual(words(local, "rent"));
    expect(words(sitelink, "insurance")).toEqual(words(local, "insurance"));
    expect(words(sitelink, "rent")).toEqual(["First month's rent (Nov 22, 2026 to Dec 21, 2026)"]);
    expect(words(sitelink, "insurance")).toEqual(["Protection plan, $1,000 coverage (first month)"]);
    // The site's own charge names stay.
    expect(words(sitelink, "charge")).toEqual(["Lock"]);
  });

  it("billing on the 1st: the prorated first month, then the next month's rent and protection as the monthly charges say them; discounts follow", () => {
    const q = inSiteWording(
      quoteFromCostRows(
        [
          row("Rent", "15", "2026-11-22", "2026-11-30", "1"),
          row("Second Monthly Rent Fee", "50", "2026-12-01", "2026-12-31"),
          row("Insurance", "2.69", "2026-11-22", "2026-11-30"),
          row("Insurance", "8.95", "2026-12-01", "2026-12-31"),
        ],
        ctx,
      ),
      null,
    );
    expect(q.lines.map((l) => [l.kind, l.description])).toEqual([
      ["rent", "First month's rent (Nov 22, 2026 to Nov 30, 2026)"],
      ["discount", "Discount (First month's rent (Nov 22, 2026 to Nov 30, 2026))"],
      ["rent", "Rent Dec 1, 2026 – Dec 31, 2026"],
      ["insurance", "Protection plan (first month)"],
      ["insurance", "Protection plan Dec 1, 2026 – Dec 31, 2026"],
    ]);
    expect(q.total).toBe(1500 - 100 + 5000 + 269 + 895);
  });
});
