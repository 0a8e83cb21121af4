import { describe, expect, it } from "vitest";
import { leaseText } from "./lease";
import { quoteMoveIn } from "./move-in-quote";

const quote = quoteMoveIn({
  unitType: { name: "Drive-Up", category: "drive_up", standardRate: 5000, webRate: 4500 },
  settings: { isWebRatesEnabled: false, fakeDiscountPercentage: 0, isShowExtraChargesAtCheckout: true, isHideExtraChargesForParkingOrOffice: true },
  charges: [{ id: "LOCK", name: "Lock", amount: 700, tax1Rate: 6.75, tax2Rate: 0, isRecurring: false }],
  insurancePlan: { id: "1", coverage: 100_000, premium: 895 },
  moveInDate: "2026-11-22",
});
const parties = {
  operatorName: "Gatehouse Self Storage",
  location: { name: "Lumberton", address: "4350 Fayetteville Rd, Lumberton, NC 28358", phone: "9105550134" },
  tenant: { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com", cellPhone: "9105550134", addr1: "1 Main St", addr2: null, city: "Lumberton", region: "NC", postalCode: "28358" },
  unit: { description: "Drive-Up", width: 10, length: 10 },
  insurance: { coverage: 100_000, premium: 895 },
  autopayTerms: "By enrolling in autopay you authorise us to charge the card on file.",
};

describe("lease text", () => {
  it("is generated from the tenant, the unit, the rates and the autopay terms", () => {
    const text = leaseText(parties, quote);
    expect(text).toContain("Tenant: Ada Lovelace, 1 Main St, Lumberton, NC 28358. Cell phone (910) 555-0134.");
    expect(text).toContain("one 10' x 10' Drive-Up unit");
    expect(text).toContain("Monthly rent is $50.00");
    expect(text).toContain("paid in full today; the next payment is due on 2026-12-22");
    expect(text).toContain("Total paid at move-in: $66.42");
    expect(text).toContain("$1,000.00 of coverage at $8.95 a month");
    expect(text).toContain(parties.autopayTerms);
  });

  it("is the same text for the same answers (its hash is stable) and changes with them", () => {
    expect(leaseText(parties, quote)).toBe(leaseText(parties, quote));
    expect(leaseText({ ...parties, insurance: null }, quote)).toContain("declined a protection plan");
    expect(leaseText({ ...parties, tenant: { ...parties.tenant, lastName: "Byron" } }, quote)).not.toBe(leaseText(parties, quote));
  });
});
