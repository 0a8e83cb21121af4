/**
 * Issue 20: `npm run sitelink:verify` against the simulator. It passes on the default simulator, and
 * fails naming the operation when the simulator answers differently from what the adapter reads (a
 * column left out, a table renamed: the simulator's test-only answer knob). It never prints a secret
 * and writes nothing outside test mode.
 *
 * READINGS loops over the simulator's per-site readings of the evidence (decision 180): iPayMethod as
 * LSETUP or the manual has it, success code an id or 0 for the writes no source shows. Under each, verify
 * passes when the location's pay-method ids (sitelink:configure --pay-method) are the site's, fails
 * naming MoveInWithDiscount_v7's pay method (and the fix) when they are not, and fails naming the
 * operation when an answer is reshaped.
 */
import { spawnSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { sitelinkSites } from "~/db/schema";
import { formatGoLiveReport, verifySiteLinkLocation, type GoLiveReport } from "~/storage-software/index.server";
import { DEMO_CORP } from "../../sitelink-simulator/index";
import { DEFAULT_READINGS, PAY_METHOD_IDS, startSiteLinkTestbed, useReadings, type Readings, type SiteLinkTestbed } from "./sitelink-testbed";

const NOW = new Date("2026-11-22T15:00:00Z");
const LUMBERTON = "lumberton-nc-28358";
const JACKSONVILLE = "jacksonville-nc-28546";

interface Reading {
  name: string;
  /** The simulator's sites answer by these. */
  readings: Readings;
  /** The iPayMethod a card is taken with, and the reading verify should name. */
  card: { payMethod: number; reading: "manual" | "lsetup" };
}

const READINGS: Reading[] = (["lsetup", "manual"] as const).flatMap((payMethod) =>
  (["id", "zero"] as const).map((successCode) => ({
    name: `iPayMethod ${payMethod}, success code ${successCode}`,
    readings: { payMethod, successCode },
    card: { payMethod: PAY_METHOD_IDS[payMethod].card, reading: payMethod },
  })),
);

let bed: SiteLinkTestbed;
beforeAll(async () => {
  bed = await startSiteLinkTestbed({ clock: () => NOW });
});
afterAll(() => bed?.close());
afterEach(() => {
  bed.sim.clearReshapes();
  bed.sim.control.clearFaults();
});

const tag = (r: Reading) => `${r.readings.payMethod}.${r.readings.successCode}`;

const verify = (slug: string, options: { tenantId?: string; testModeMoveIn?: boolean } = {}) => verifySiteLinkLocation(bed.handle.db, slug, { now: NOW, ...options });

function expectNoSecret(report: GoLiveReport) {
  for (const text of [formatGoLiveReport(report), JSON.stringify(report)]) {
    expect(text).not.toContain(DEMO_CORP.password);
    expect(text).not.toContain(DEMO_CORP.apiKey);
    expect(text).not.toContain("4111111111111111");
  }
}

/** Every SOAP call the simulator received that was a write (card fields redacted by the simulator). */
const writesSent = () => bed.sim.control.calls().filter((c) => c.operation && !/^(Site|Unit|Insurance|Charge|Payment(s|Types)|MoveInCost|Tenant(Search|Info|Login|BillingInfoBy)|Ledgers|Customer|Reservation(List))/.test(c.operation));

describe.each(READINGS)("sitelink:verify, $name", (reading) => {
  // The sites answer by this reading; the locations carry the matching pay-method ids.
  beforeEach(() => useReadings(bed, reading.readings));

  it("option A: reads only; every operation the adapter reads answers as it reads it; card types, success codes; nothing differs", async () => {
    bed.sim.control.clearCalls();
    const report = await verify(LUMBERTON);
    expect(report.differs).toEqual([]);
    expect(report.ok).toBe(true);
    const byOp = Object.fromEntries(report.operations.map((o) => [o.operation, o]));
    for (const op of ["SiteInformation", "UnitTypePriceList_v2", "UnitsInformation_v3", "UnitsInformationByUnitID", "InsuranceCoverageRetrieve_V2", "ChargeDescriptionsRetrieve", "MoveInCostRetrieveWithDiscount_v4", "PaymentTypesRetrieve"]) {
      expect(["ok", "warning"], `${op}: ${byOp[op]?.notes.join("; ")}`).toContain(byOp[op]!.status);
    }
    expect(byOp.MoveInWithDiscount_v7!.status).toBe("not sent");
    expect(byOp.LedgersByTenantID_v3!.status).toBe("not checked");
    expect(report.cardTypes).toMatchObject({ status: "ok", configured: { mastercard: 5, visa: 6, discover: 8 } });
    expect(report.cardTypes.site.map((t) => t.id)).toEqual(expect.arrayContaining(["5", "6", "8"]));
    // How each write's answer is read comes from answers.ts (one rule per operation).
    expect(report.successCodes.ScheduleMoveOut).toMatch(/^not seen .*; the adapter reads: success code in no source: Ret_Code > 0 is success; 0, none, -1: read back/);
    expect(report.successCodes.ReservationUpdate_v4).toMatch(/the adapter reads: success: Ret_Code >= 0 \(0 included\)/);
    expect(report.successCodes.TenantNewDetailed_v3).toMatch(/Ret_Code 1 with the id in RT\.TenantID/);
    expect(writesSent()).toEqual([]);
    const text = formatGoLiveReport(report);
    expect(text).toContain("Result: nothing the adapter relies on differs.");
    expectNoSecret(report);
  });

  it("with a test tenant and --test-mode-move-in: one move-in in test mode; the pay method that works and the reading the site follows; the tenant's records read", async () => {
    const tenant = bed.sim.control.addOfficeTenant("L001", { firstName: "Verify", lastName: "Tester", email: `verify.tester.${tag(reading)}@example.com` });
    bed.sim.control.clearCalls();
    const report = await verify(LUMBERTON, { tenantId: String(tenant.TenantID), testModeMoveIn: true });
    expect(report.differs).toEqual([]);
    expect(report.payMethod).toMatchObject({ status: "ok", configured: PAY_METHOD_IDS[reading.readings.payMethod], works: reading.card.payMethod, reading: reading.card.reading });
    expect(report.billingFrequency.status).toBe("ok");
    expect(report.successCodes.MoveInWithDiscount_v7).toMatch(/^\d+; the adapter reads: success: Ret_Code > 0, the new id/);
    const byOp = Object.fromEntries(report.operations.map((o) => [o.operation, o]));
    for (const op of ["TenantInfoByTenantID", "LedgersByTenantID_v3", "ChargesAllByLedgerID", "PaymentsByLedgerID", "CustomerAccountsBalanceDetailsWithPrepayment", "TenantBillingInfoByTenantID_v3", "MoveInWithDiscount_v7"]) {
      expect(["ok", "warning"], `${op}: ${byOp[op]?.notes.join("; ")}`).toContain(byOp[op]!.status);
    }
    // LSETUP's sites refuse 0 ("none") without writing before 1 is taken; the manual's take 0.
    const writes = writesSent();
    const sent = reading.card.payMethod === 0 ? ["0"] : ["0", "1"];
    expect(writes.map((c) => [c.operation, c.params.bTestMode, c.params.iPayMethod])).toEqual(sent.map((m) => ["MoveInWithDiscount_v7", "true", m]));
    expect(report.testMoveIn!.notes.join(" ")).toMatch(/ledger/);
    expectNoSecret(report);
  });

  it("the location's pay-method ids are the other reading's: fails naming MoveInWithDiscount_v7's pay method, and says how to fix it", async () => {
    const other = reading.readings.payMethod === "lsetup" ? "manual" : "lsetup";
    await useReadings(bed, reading.readings, PAY_METHOD_IDS[other]);
    const tenant = bed.sim.control.addOfficeTenant("L001", { firstName: "Verify", lastName: "Wrong", email: `verify.wrong.${tag(reading)}@example.com` });
    const report = await verify(LUMBERTON, { tenantId: String(tenant.TenantID), testModeMoveIn: true });
    expect(report.ok).toBe(false);
    expect(report.differs).toEqual(["pay method (MoveInWithDiscount_v7)"]);
    expect(report.payMethod).toMatchObject({ status: "differs", configured: PAY_METHOD_IDS[other], works: reading.card.payMethod, reading: reading.card.reading });
    const ids = PAY_METHOD_IDS[reading.readings.payMethod];
    const text = formatGoLiveReport(report);
    expect(text).toContain(`the adapter sends iPayMethod ${PAY_METHOD_IDS[other].card} for a card`);
    expect(text).toContain(`--pay-method card=${ids.card},cash=${ids.cash},check=${ids.check}`);
    expect(text).toContain("Result: NOT READY. Differs: pay method (MoveInWithDiscount_v7).");
    expectNoSecret(report);
  });

  it("option B (our gateway, cash in SiteLink): the cash pay method works", async () => {
    const tenant = bed.sim.control.addOfficeTenant("L002", { firstName: "Verify", lastName: "Cash", email: `verify.cash.${tag(reading)}@example.com` });
    const report = await verify(JACKSONVILLE, { tenantId: String(tenant.TenantID), testModeMoveIn: true });
    expect(report.differs).toEqual([]);
    expect(report.payMethod).toMatchObject({ status: "ok", works: 2, reading: null });
    expectNoSecret(report);
  });

  it("fails naming the operation when a column the adapter reads is missing", async () => {
    bed.sim.reshapeAnswers({ operation: "UnitsInformation_v3", dropColumn: { table: "Table", column: "bRented" } });
    const report = await verify(LUMBERTON);
    expect(report.ok).toBe(false);
    expect(report.differs).toEqual(["UnitsInformation_v3"]);
    const text = formatGoLiveReport(report);
    expect(text).toMatch(/DIFFERS\s+UnitsInformation_v3\s+Table lacks bRented/);
    expect(text).toContain("Result: NOT READY. Differs: UnitsInformation_v3.");
  });
});

/** Reshaped answers do not depend on the reading: once, on the default one. */
describe("sitelink:verify and reshaped answers", () => {
  beforeAll(() => useReadings(bed, DEFAULT_READINGS));

  it("fails naming the operation when a table is renamed (the control API's answer knob)", async () => {
    const tenant = bed.sim.control.addOfficeTenant("L001", { firstName: "Verify", lastName: "Ledgers", email: "verify.ledgers@example.com", unitId: undefined });
    const posted = await fetch(`${bed.sim.origin}/__sim/answers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ operation: "LedgersByTenantID_v3", renameTable: { from: "Ledgers", to: "Table" } }),
    });
    expect(posted.status).toBe(201);
    const report = await verify(LUMBERTON, { tenantId: String(tenant.TenantID) });
    expect(report.differs).toEqual(["LedgersByTenantID_v3"]);
    expect(formatGoLiveReport(report)).toMatch(/DIFFERS\s+LedgersByTenantID_v3\s+no table Ledgers \(the answer has Table\)/);
  });

  it("a column the adapter reads with a fallback is a warning, not a failure", async () => {
    bed.sim.reshapeAnswers({ operation: "ChargeDescriptionsRetrieve", dropColumn: { table: "Table", column: "bRecurring" } });
    const report = await verify(LUMBERTON);
    expect(report.ok).toBe(true);
    expect(report.operations.find((o) => o.operation === "ChargeDescriptionsRetrieve")).toMatchObject({ status: "warning", notes: [expect.stringContaining("bRecurring (the adapter falls back)")] });
  });

  it("a column a contact change sends back as read (a v3 extra) is missing: a warning that it would go back blank", async () => {
    const tenant = bed.sim.control.addOfficeTenant("L001", { firstName: "Verify", lastName: "Extras", email: "verify.extras@example.com" });
    bed.sim.reshapeAnswers({ operation: "TenantInfoByTenantID", dropColumn: { table: "Table", column: "sTaxID" } });
    const report = await verify(LUMBERTON, { tenantId: String(tenant.TenantID) });
    expect(report.ok).toBe(true);
    expect(report.operations.find((o) => o.operation === "TenantInfoByTenantID")).toMatchObject({ status: "warning", notes: ["Table lacks sTaxID (a contact change would send them blank)"] });
  });
});

describe("sitelink:verify and the settings", () => {
  it("refused settings or a wrong password: nothing else is checked, the report says so, never the secret", async () => {
    const [lumberton] = await bed.handle.db.select().from(sitelinkSites).where(eq(sitelinkSites.endpoint, bed.sim.url)).limit(1);
    const env = { ...process.env, NODE_ENV: "production" } as NodeJS.ProcessEnv;
    const refused = await verifySiteLinkLocation(bed.handle.db, LUMBERTON, { now: NOW, env });
    expect(refused.differs).toEqual(["settings"]);
    expect(formatGoLiveReport(refused)).toMatch(/https:\/\/ in production/);
    expect(lumberton).toBeDefined();
    bed.sim.control.clearCalls();
    const wrong = await verifySiteLinkLocation(bed.handle.db, LUMBERTON, { now: NOW, env: { ...process.env, SITELINK_TEST_PASSWORD: "not-the-password" } });
    expect(wrong.ok).toBe(false);
    expect(wrong.differs).toContain("SiteInformation");
    expect(JSON.stringify(wrong) + formatGoLiveReport(wrong)).not.toContain("not-the-password");
  });
});

describe("npm run sitelink:verify: usage", () => {
  const run = (...args: string[]) => spawnSync("npx", ["tsx", "scripts/sitelink-verify.ts", ...args], { encoding: "utf8", timeout: 60_000 });

  it("--help prints the usage (exit 0); an unknown option is wrong usage (exit 2), without a stack trace", () => {
    const help = run("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: npm run sitelink:verify -- --location <url_slug>");
    const wrong = run("--location", LUMBERTON, "--nope");
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("Unknown option '--nope'");
    expect(wrong.stderr).toContain("Usage:");
    expect(wrong.stderr).not.toMatch(/\bat .*parse_args/);
  });
});
