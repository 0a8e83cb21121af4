/**
 * Issue 20 (decision 202): the demo corp's office leases come with the history SiteLink keeps, so the
 * portal never shows a paid-through date beside an empty ledger (seen on `npm run start:sitelink`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoState } from "./seed";
import { chargeTotal } from "./ledger";
import { startSiteLinkSimulator, type RunningSimulator } from "./server";
import { soapCall } from "./test-client";

const NOW = new Date("2026-11-22T15:00:00Z");

describe("the demo corp's office leases", () => {
  it("every one has its monthly charges from the move-in through chargedThru, paid by payments of the same total", () => {
    const state = demoState(NOW);
    const ledgers = state.sites.flatMap((site) => site.ledgers.map((ledger) => ({ site, ledger })));
    expect(ledgers.length).toBeGreaterThan(0);
    for (const { site, ledger } of ledgers) {
      const charges = site.charges.filter((c) => c.LedgerID === ledger.LedgerID);
      const rent = charges.filter((c) => c.sChgCategory === "Rent").sort((a, b) => a.start.localeCompare(b.start));
      expect(rent.length, `ledger ${ledger.LedgerID}`).toBeGreaterThan(0);
      expect(rent[0]!.start).toBe(ledger.movedIn);
      expect(rent[0]!.moveIn).toBe(true);
      expect(rent.at(-1)!.end).toBe(ledger.chargedThru);
      expect(ledger.paidThru).toBe(ledger.chargedThru);
      const owed = charges.reduce((s, c) => s + chargeTotal(c), 0);
      const paid = site.payments.filter((p) => p.LedgerID === ledger.LedgerID).reduce((s, p) => s + p.amount, 0);
      expect(paid).toBe(owed);
      expect(charges.every((c) => c.paid === chargeTotal(c))).toBe(true);
    }
  });

  describe("over SOAP", () => {
    let sim: RunningSimulator;
    beforeAll(async () => {
      sim = await startSiteLinkSimulator({ port: 0, clock: () => NOW });
    });
    afterAll(() => sim.close());

    it("Pat Office's ledger lists charges and payments and nothing is due, paid through the last charged day", async () => {
      const login = await soapCall(sim.url, "TenantSearchDetailed", { sEmail: "pat.office@example.com" });
      const tenantId = login.tables.Table?.[0]?.TenantID ?? login.tables.RT?.[0]?.TenantID;
      expect(tenantId).toBeTruthy();
      const ledger = (await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: String(tenantId) })).tables.Ledgers![0]!;
      const charges = (await soapCall(sim.url, "ChargesAllByLedgerID", { ledgerId: ledger.LedgerID! })).tables.Table ?? [];
      const payments = (await soapCall(sim.url, "PaymentsByLedgerID", { sLedgerID: ledger.LedgerID! })).tables.PmtHistory ?? [];
      expect(charges.length).toBeGreaterThan(0);
      expect(payments.length).toBeGreaterThan(0);
      expect(Number(ledger.dcTotalDue)).toBe(0);
      const lastRentEnd = charges.filter((c) => c.sChgDesc === "Rent").map((c) => c.dChgEnd!.slice(0, 10)).sort().at(-1);
      expect(ledger.dPaidThru!.slice(0, 10)).toBe(lastRentEnd);
    });
  });
});
