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
import { DEFAULT_PAY_METHOD_IDS, locations, sitelinkGoLiveChecks, sitelinkSites } from "~/db/schema";
import { formatGoLiveReport, goLiveState, testTenantEmail, verifySiteLinkLocation, type GoLiveReport } from "~/storage-software/index.server";
import { DEMO_CORP } from "../../../sitelink-simulator/index";
import { DEFAULT_READINGS, PAY_METHOD_IDS, startSiteLinkTestbed, useReadings, type Readings, type SiteLinkTestbed } from "../support/sitelink-testbed";

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


const verify = (slug: string, options: { tenantId?: string; testModeMoveIn?: boolean; say?: (line: string) => void } = {}) => verifySiteLinkLocation(bed.handle.db, slug, { now: NOW, ...options });

function expectNoSecret(report: GoLiveReport) {
  for (const text of [formatGoLiveReport(report), JSON.stringify(report)]) {
    expect(text).not.toContain(DEMO_CORP.password);
    expect(text).not.toContain(DEMO_CORP.apiKey);
    expect(text).not.toContain(DEMO_CORP.userName);
    expect(text).not.toContain("4111111111111111");
  }
}

/** Every SOAP call the simulator received that was a write (card fields redacted by the simulator). */
const writesSent = () => bed.sim.control.calls().filter((c) => c.operation && !/^(Site|Unit|Insurance|Charge|Payment(s|Types)|MoveInCost|Tenant(Search|Info|Login$|BillingInfoBy)|Ledgers|Customer|Reservation(List)|DiscountPlans)/.test(c.operation));
const rentedUnits = (code: string) => bed.sim.control.inspectSite(code).units.filter((u) => u.rented).map((u) => u.UnitID);
const locationId = async (slug: string) => (await bed.handle.db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, slug)))[0]!.id;
const live = async (slug: string) => (await goLiveState(bed.handle.db, await locationId(slug))).live;
/** An office tenant with a lease at the site, made once: its records (the ledger's too) are read with --tenant-id. */
const holders = new Map<string, string>();
function leaseHolder(code: string): string {
  if (!holders.has(code)) {
    const free = bed.sim.control.inspectSite(code).units.find((u) => !u.rented)!;
    const t = bed.sim.control.addOfficeTenant(code, { firstName: "Lease", lastName: "Holder", email: `lease.holder.${code.toLowerCase()}@example.com`, unitId: free.UnitID });
    holders.set(code, String(t.TenantID));
  }
  return holders.get(code)!;
}
/** A fresh start for verify's own test tenant (a new site state per test would cost a sync). */
async function forgetTestTenants(slug: string) {
  await bed.handle.db.delete(sitelinkGoLiveChecks).where(eq(sitelinkGoLiveChecks.locationId, await locationId(slug)));
}

describe.each(READINGS)("sitelink:verify, $name", (reading) => {
  // The sites answer by this reading (test mode writing nothing); the locations carry the matching pay-method ids.
  beforeEach(async () => {
    await useReadings(bed, reading.readings);
    for (const code of ["L001", "L002"]) bed.sim.control.configureSite(code, { readings: { testMode: "nothing" } });
  });

  it("reads only, without --test-mode-move-in: NOT READY, naming each item it did not check and the flag that checks it; the location stays off", async () => {
    bed.sim.control.clearCalls();
    const report = await verify(LUMBERTON);
    expect(report.differs).toEqual([]);
    expect(report.ok).toBe(false);
    const byOp = Object.fromEntries(report.operations.map((o) => [o.operation, o]));
    for (const op of ["SiteInformation", "UnitTypePriceList_v2", "UnitsInformation_v3", "UnitsInformationByUnitID", "InsuranceCoverageRetrieve_V2", "ChargeDescriptionsRetrieve", "MoveInCostRetrieveWithDiscount_v4", "PaymentTypesRetrieve"]) {
      expect(["ok", "warning"], `${op}: ${byOp[op]?.notes.join("; ")}`).toContain(byOp[op]!.status);
    }
    expect(byOp.MoveInWithDiscount_v7!.status).toBe("not sent");
    expect(byOp.LedgersByTenantID_v3!.status).toBe("not checked");
    expect(report.notChecked).toEqual(
      expect.arrayContaining([
        "pay method (MoveInWithDiscount_v7) (--test-mode-move-in)",
        "billing frequency (MoveInWithDiscount_v7) (--test-mode-move-in)",
        "TenantLogin (--test-mode-move-in (verify's own test tenant, whose web password it knows))",
        ...["TenantInfoByTenantID", "LedgersByTenantID_v3", "CustomerAccountsBalanceDetailsWithPrepayment", "TenantBillingInfoByTenantID_v3"].map((op) => expect.stringMatching(new RegExp(`^${op} \\(--test-mode-move-in`))),
        ...["ChargesAllByLedgerID", "PaymentsByLedgerID"].map((op) => expect.stringMatching(new RegExp(`^${op} \\(--tenant-id <TenantID of a tenant with a lease`))),
      ]),
    );
    expect(report.cardTypes).toMatchObject({ status: "ok", configured: { mastercard: 5, visa: 6, discover: 8 } });
    // How each write's answer is read comes from answers.ts (one rule per operation).
    expect(report.successCodes.ScheduleMoveOut).toMatch(/^not seen .*; the adapter reads: success code in no source: Ret_Code > 0 is success; 0, none, -1: read back/);
    expect(report.successCodes.ReservationUpdate_v4).toMatch(/the adapter reads: success: Ret_Code >= 0 \(0 included\)/);
    expect(writesSent()).toEqual([]);
    const text = formatGoLiveReport(report);
    expect(text).toMatch(/Result: NOT READY\. Not checked: .*TenantLogin, pay method, billing frequency\./);
    expect(text).toContain("  - pay method (MoveInWithDiscount_v7) (--test-mode-move-in)");
    expect(await live(LUMBERTON)).toBe(false);
    expectNoSecret(report);
  });

  it("--test-mode-move-in: its own test tenant, one move-in in test mode, the pay method and the reading; READY and the location live; no unit rented; a second run uses the same tenant", async () => {
    await forgetTestTenants(LUMBERTON);
    leaseHolder("L001");
    const rentedBefore = rentedUnits("L001");
    // The first reading's run makes the test tenant; the later ones find it again by its address.
    const made = !bed.sim.control.inspectSite("L001").tenants.some((t) => t.fields.sEmail === testTenantEmail("L001"));
    bed.sim.control.clearCalls();
    const said: string[] = [];
    const report = await verify(LUMBERTON, { testModeMoveIn: true, tenantId: leaseHolder("L001"), say: (line) => said.push(line) });
    expect(report.differs).toEqual([]);
    expect(report.notChecked).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.testTenantId).toMatch(/^\d+$/);
    expect(report.payMethod).toMatchObject({ status: "ok", configured: PAY_METHOD_IDS[reading.readings.payMethod], works: reading.card.payMethod, reading: reading.card.reading });
    expect(report.billingFrequency.status).toBe("ok");
    const byOp = Object.fromEntries(report.operations.map((o) => [o.operation, o]));
    for (const op of ["TenantLogin", "TenantInfoByTenantID", "LedgersByTenantID_v3", "ChargesAllByLedgerID", "PaymentsByLedgerID", "CustomerAccountsBalanceDetailsWithPrepayment", "TenantBillingInfoByTenantID_v3", "MoveInWithDiscount_v7", ...(made ? ["TenantNewDetailed_v3"] : [])]) {
      expect(["ok", "warning"], `${op}: ${byOp[op]?.notes.join("; ")}`).toContain(byOp[op]!.status);
    }
    // Option A: said before anything was sent that a test card goes to the site's processor.
    expect(said).toEqual([expect.stringMatching(/^Option A: the test-mode move-in sends a \w+ test card \(ending \d{4}\) through SiteLink to this site's card processor/)]);
    // LSETUP's sites refuse 0 ("none") without writing before 1 is taken; the manual's take 0.
    const sent = reading.card.payMethod === 0 ? ["0"] : ["0", "1"];
    expect(writesSent().map((c) => [c.operation, c.params.bTestMode ?? null, c.params.iPayMethod ?? null])).toEqual([...(made ? [["TenantNewDetailed_v3", null, null]] : []), ...sent.map((m) => ["MoveInWithDiscount_v7", "true", m])]);
    expect(report.testMoveIn!.notes.join(" ")).toContain("test mode recorded nothing, no unit is rented");
    expect(rentedUnits("L001")).toEqual(rentedBefore);
    expect(await live(LUMBERTON)).toBe(true);
    expectNoSecret(report);

    // The next run: the same test tenant, no new one.
    bed.sim.control.clearCalls();
    const again = await verify(LUMBERTON, { testModeMoveIn: true, tenantId: leaseHolder("L001") });
    expect(again.ok).toBe(true);
    expect(again.testTenantId).toBe(report.testTenantId);
    expect(writesSent().map((c) => c.operation)).not.toContain("TenantNewDetailed_v3");
    expect(rentedUnits("L001")).toEqual(rentedBefore);
  });

  it("the location's pay-method ids are the other reading's: fails naming MoveInWithDiscount_v7's pay method, says how to fix it, and the location cannot be switched on", async () => {
    const other = reading.readings.payMethod === "lsetup" ? "manual" : "lsetup";
    await useReadings(bed, { ...reading.readings, testMode: "nothing" }, PAY_METHOD_IDS[other]);
    const report = await verify(LUMBERTON, { testModeMoveIn: true, tenantId: leaseHolder("L001") });
    expect(report.ok).toBe(false);
    expect(report.differs).toEqual(["pay method (MoveInWithDiscount_v7)"]);
    expect(report.payMethod).toMatchObject({ status: "differs", configured: PAY_METHOD_IDS[other], works: reading.card.payMethod, reading: reading.card.reading });
    const ids = PAY_METHOD_IDS[reading.readings.payMethod];
    const text = formatGoLiveReport(report);
    expect(text).toContain(`the adapter sends iPayMethod ${PAY_METHOD_IDS[other].card} for a card`);
    expect(text).toContain(`--pay-method card=${ids.card},cash=${ids.cash},check=${ids.check}`);
    expect(text).toContain("Result: NOT READY. Differs: pay method (MoveInWithDiscount_v7).");
    expect(await live(LUMBERTON)).toBe(false);
    expectNoSecret(report);
  });

  it("option B (our gateway, cash in SiteLink): the cash pay method works, no card is announced", async () => {
    await forgetTestTenants(JACKSONVILLE);
    const said: string[] = [];
    const report = await verify(JACKSONVILLE, { testModeMoveIn: true, tenantId: leaseHolder("L002"), say: (line) => said.push(line) });
    expect(report.differs).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.payMethod).toMatchObject({ status: "ok", works: 2, reading: null });
    expect(said).toEqual([]);
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

describe("sitelink:verify against the manual's reading with the default pay-method ids (issue 37)", () => {
  it("the location cannot be switched on: verify names the pay method; with the manual's ids it passes and rents nothing", async () => {
    await useReadings(bed, { payMethod: "manual", successCode: "id", testMode: "nothing" }, DEFAULT_PAY_METHOD_IDS);
    await forgetTestTenants(LUMBERTON);
    leaseHolder("L001");
    const rentedBefore = rentedUnits("L001");
    const wrong = await verify(LUMBERTON, { testModeMoveIn: true, tenantId: leaseHolder("L001") });
    expect(wrong.ok).toBe(false);
    expect(wrong.differs).toEqual(["pay method (MoveInWithDiscount_v7)"]);
    expect(formatGoLiveReport(wrong)).toContain("--pay-method card=0,cash=2,check=1");
    expect(await live(LUMBERTON)).toBe(false);

    await useReadings(bed, { payMethod: "manual", successCode: "id", testMode: "nothing" });
    // useReadings records the test bed's own pass: the location is off again until verify passes.
    await forgetTestTenants(LUMBERTON);
    expect(await live(LUMBERTON)).toBe(false);
    const right = await verify(LUMBERTON, { testModeMoveIn: true, tenantId: leaseHolder("L001") });
    expect(right.ok).toBe(true);
    expect(await live(LUMBERTON)).toBe(true);
    expect(rentedUnits("L001")).toEqual(rentedBefore);
  });
});

describe("sitelink:verify where test mode records the move-in (the simulator's default)", () => {
  it("the test unit's move-out is scheduled (as far as the API goes); the next run takes no second unit and is NOT READY until the office moves the tenant out", async () => {
    await useReadings(bed, { ...DEFAULT_READINGS, testMode: "records" });
    await forgetTestTenants(LUMBERTON);
    bed.sim.control.clearCalls();
    const first = await verify(LUMBERTON, { testModeMoveIn: true });
    expect(first.ok).toBe(true);
    const ledger = first.testMoveIn!.ledgerId!;
    expect(first.testMoveIn!.notes.join(" ")).toMatch(new RegExp(`SiteLink recorded ledger ${ledger} .* its move-out is scheduled for 2026-11-22`));
    expect(bed.sim.control.calls({ operation: "ScheduleMoveOut" }).map((c) => c.params.iLedgerID)).toEqual([ledger]);
    expect(bed.sim.control.ledger("L001", Number(ledger))!.schedOut).toBe("2026-11-22");

    bed.sim.control.clearCalls();
    const second = await verify(LUMBERTON, { testModeMoveIn: true });
    expect(second.testTenantId).toBe(first.testTenantId);
    expect(bed.sim.control.calls({ operation: "MoveInWithDiscount_v7" })).toEqual([]);
    expect(second.ok).toBe(false);
    expect(second.notChecked).toContain("pay method (MoveInWithDiscount_v7) (--test-mode-move-in)");
    expect(formatGoLiveReport(second)).toContain(`still holds unit ${first.testMoveIn!.unitId} (ledger ${ledger}), from an earlier test move-in: no second unit is taken`);
    expect(await live(LUMBERTON)).toBe(false);

    // The office moves the test tenant out: the next run checks again (one more test unit, moved out again).
    bed.sim.control.moveOut("L001", Number(ledger));
    const third = await verify(LUMBERTON, { testModeMoveIn: true });
    expect(third.ok).toBe(true);
    expect(third.testTenantId).toBe(first.testTenantId);
    expect(await live(LUMBERTON)).toBe(true);
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
    expect(report.differs).toEqual([]);
    expect(report.operations.find((o) => o.operation === "ChargeDescriptionsRetrieve")).toMatchObject({ status: "warning", notes: [expect.stringContaining("bRecurring (the adapter falls back)")] });
  });

  it("a column a contact change sends back as read is missing from the tenant read: a difference naming the column (issue 37)", async () => {
    const tenant = bed.sim.control.addOfficeTenant("L001", { firstName: "Verify", lastName: "Extras", email: "verify.extras@example.com" });
    bed.sim.reshapeAnswers({ operation: "TenantInfoByTenantID", dropColumn: { table: "Table", column: "sWebPassword" } });
    const report = await verify(LUMBERTON, { tenantId: String(tenant.TenantID) });
    expect(report.ok).toBe(false);
    expect(report.differs).toEqual(["TenantInfoByTenantID"]);
    expect(report.operations.find((o) => o.operation === "TenantInfoByTenantID")).toMatchObject({ status: "differs", notes: [expect.stringMatching(/^Table lacks sWebPassword \(a contact change sends them back as read: none is sent/)] });
    expect(formatGoLiveReport(report)).toMatch(/Result: NOT READY\. Differs: TenantInfoByTenantID\./);
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
