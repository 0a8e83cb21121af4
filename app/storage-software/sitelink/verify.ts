/**
 * `npm run sitelink:verify -- --location <slug>` (issue 20, decision 188): a check of the operator's own
 * SiteLink account before a location is switched on. Reads only; with `testModeMoveIn` (and a test
 * tenant the operator names) one MoveInWithDiscount_v7 with `bTestMode` true per candidate pay method
 * until one is taken. The go-live report: each operation the adapter uses and whether its answer has
 * the tables and columns the adapter reads (./adapter-reads.ts, the one list shared with its guard
 * test), the site's card-type ids, the billing frequency, the pay method that works and which reading
 * of iPayMethod the site follows, the success codes seen. `ok` is false when anything the adapter
 * relies on differs. Never a secret in the report: no password, API key or user name (it carries the
 * API key); SiteLink's messages are redacted of both.
 */
import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, sitelinkSites } from "~/db/schema";
import type { SiteLinkGoLiveSaw } from "~/db/schema";
import { ADAPTER_READS } from "./adapter-reads";
import { ANSWER_RULES, describeAnswerRule, readAnswer, tenantIdFromLogin, type RuledOperation } from "./answers";
import { lastTestTenant, recordGoLiveCheck } from "./go-live";
import { goLiveItems, goLiveSuggestions } from "./go-live-words";
import { PAY_METHOD_READINGS, type CheckStatus, type GoLiveReport, type OperationCheck } from "./verify-report";
import { searchTenantsByEmail, tenantParams } from "./tenant-records";
import { rows, siteLinkDate } from "./calls";
import { type Row } from "./dataset";
import { createSiteLinkClient, redactValues, type SiteLinkCall } from "./client";
import { schemaTables, type SoapAnswer } from "./dataset";
import type { OperationContract } from "./contract";
import { SiteLinkCallError } from "./errors";
import contractJson from "./operations.json";
import { centsToDecimal, isTrue, requiredTotal } from "./quote";
import { channelTypeAt, loadSiteLinkSettings, settingsProblems, type SiteLinkSettings } from "./settings";
import { rentableNow } from "./sync";
import { rawEnv, type EnvSource } from "~/platform/env.server";

const contract = contractJson as unknown as OperationContract;

// The report's shape and the two readings of iPayMethod: ./verify-report.ts (also read by ./go-live-words.ts).
export type { GoLiveReport } from "./verify-report";

interface VerifyOptions {
  now: Date;
  /** SiteLink TenantID of a tenant whose records are read (one with a lease: its ledger too); nothing is written for it. */
  tenantId?: string | null;
  /** SiteLink UnitID for the test-mode move-in (default: the first free unit). */
  unitId?: string | null;
  testModeMoveIn?: boolean;
  env?: EnvSource;
  fetch?: typeof fetch;
  /** Told before anything is sent that the operator should know of first (a test card to the site's processor). */
  say?: (line: string) => void;
  /** Keep the result as the location's go-live check (default true; issue 37, decision 470). */
  record?: boolean;
}

/**
 * Which flag checks an item a run did not see (issue 37): the tenant's records and the login come with
 * the test tenant of `--test-mode-move-in`, the pay method and billing frequency with its move-in.
 */
const FLAG_FOR: Record<string, string> = {
  TenantInfoByTenantID: "--test-mode-move-in (or --tenant-id <TenantID of a test tenant>)",
  LedgersByTenantID_v3: "--test-mode-move-in (or --tenant-id <TenantID of a test tenant>)",
  CustomerAccountsBalanceDetailsWithPrepayment: "--test-mode-move-in (or --tenant-id <TenantID of a test tenant>)",
  TenantBillingInfoByTenantID_v3: "--test-mode-move-in (or --tenant-id <TenantID of a test tenant>)",
  ChargesAllByLedgerID: "--tenant-id <TenantID of a tenant with a lease, read only>",
  PaymentsByLedgerID: "--tenant-id <TenantID of a tenant with a lease, read only>",
  TenantLogin: "--test-mode-move-in (verify's own test tenant, whose web password it knows)",
  UnitsInformationByUnitID: "--unit-id <a free SiteLink UnitID>",
  MoveInCostRetrieveWithDiscount_v4: "--unit-id <a free SiteLink UnitID>",
};

/** The e-mail address of verify's own test tenant at a site (found again by the next run). */
export const testTenantEmail = (locationCode: string) => `gatehouse-verify-${locationCode.toLowerCase().replace(/[^a-z0-9]/g, "")}@example.com`;

/** Its web password: derived from the corp password, so it is never stored and the next run knows it. */
function testTenantPassword(corpPassword: string, locationCode: string): string {
  return crypto.createHmac("sha256", corpPassword).update(`gatehouse sitelink:verify test tenant ${locationCode}`).digest("base64url").slice(0, 10);
}

// The answer's own schema (`schemaTables`): dataset.ts, also read by the contact change's read-modify-write.

/** Compares one answer with what the adapter reads of it. */
function checkAnswer(operation: string, answer: SoapAnswer, schema: Record<string, Set<string>>): OperationCheck {
  const reads = ADAPTER_READS[operation];
  const check: OperationCheck = { operation, kind: reads?.kind ?? "read", status: "ok", notes: [] };
  if (!reads) return check;
  const worse = (s: CheckStatus) => {
    const rank: CheckStatus[] = ["ok", "not checked", "warning", "differs"];
    if (rank.indexOf(s) > rank.indexOf(check.status)) check.status = s;
  };
  const dataTables = [...new Set([...Object.keys(answer.tables), ...Object.keys(schema)])].filter((t) => t !== "RT");
  const hasData = dataTables.some((t) => (answer.tables[t]?.length ?? 0) > 0);
  if (answer.retCode !== null && answer.retCode < 0 && !hasData) {
    worse("differs");
    check.notes.push(`answered Ret_Code ${answer.retCode}${answer.retMsg ? ` "${answer.retMsg}"` : ""}`);
    return check;
  }
  for (const [table, t] of Object.entries(reads.tables)) {
    if (table === "RT" && reads.kind === "read" && operation !== "TenantLogin") continue;
    const present = table in answer.tables || table in schema;
    const rowsOfTable = answer.tables[table] ?? [];
    if (!present) {
      if (t.needsRows || dataTables.length) {
        worse("differs");
        check.notes.push(`no table ${table} (the answer has ${dataTables.length ? dataTables.join(", ") : "no tables"})`);
      } else {
        worse("not checked");
        check.notes.push(`no rows, so no ${table} columns to check`);
      }
      continue;
    }
    if (t.needsRows && rowsOfTable.length === 0) {
      worse("differs");
      check.notes.push(`no ${table} rows`);
    }
    const columns = new Set([...(schema[table] ?? []), ...rowsOfTable.flatMap((r) => Object.keys(r))]);
    if (!schema[table] && rowsOfTable.length === 0) {
      worse("not checked");
      check.notes.push(`no ${table} rows and no schema: columns not checked`);
      continue;
    }
    const missing = t.columns.filter((c) => !columns.has(c));
    if (missing.length) {
      worse("differs");
      check.notes.push(`${table} lacks ${missing.join(", ")}`);
    }
    const missingOptional = (t.optional ?? []).filter((c) => !columns.has(c));
    if (missingOptional.length) {
      worse("warning");
      check.notes.push(`${table} lacks ${missingOptional.join(", ")} (the adapter falls back)`);
    }
    const listed = new Set([...t.columns, ...(t.optional ?? [])]);
    const missingKept = (t.keptAsRead ?? []).filter((c) => !listed.has(c) && !columns.has(c));
    if (missingKept.length) {
      // A read-modify-write sends back only what it read (issue 37): while the read lacks one, no contact
      // change is sent to SiteLink (the office makes it), so it differs from what the adapter relies on.
      worse("differs");
      check.notes.push(`${table} lacks ${missingKept.join(", ")} (a contact change sends them back as read: none is sent to SiteLink while the read lacks them; the office makes it)`);
    }
  }
  return check;
}

// ------------------------------------------------------------------ the check

const TEST_CARDS: Record<string, string> = { visa: "4111111111111111", mastercard: "5555555555554444", discover: "6011111111111117", amex: "378282246310005" };

function localDate(now: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

export async function verifySiteLinkLocation(db: Database, slug: string, options: VerifyOptions): Promise<GoLiveReport> {
  const env = options.env ?? rawEnv();
  const [loc] = await db.select().from(locations).where(eq(locations.urlSlug, slug.toLowerCase()));
  if (!loc) throw new Error(`No location with the URL slug "${slug}".`);
  const locationId = loc.id;
  const [row] = await db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, loc.id));
  if (!row) throw new Error(`${loc.name} has no SiteLink settings: run npm run sitelink:configure first.`);
  const report: GoLiveReport = {
    generatedAt: options.now.toISOString(),
    location: { id: loc.id, name: loc.name, slug: loc.urlSlug },
    endpoint: row.endpoint,
    corpCode: row.corpCode,
    locationCode: row.locationCode,
    cardChargedBy: row.cardChargedBy,
    settings: { status: "ok", notes: [] },
    operations: [],
    cardTypes: { status: "not checked", site: [], configured: row.cardTypeIds ?? {}, notes: [] },
    billingFrequency: { configured: row.billingFrequency, status: "not checked", note: "only a move-in shows it (--test-mode-move-in)" },
    payMethod: { status: "not checked", configured: null, works: null, reading: null, notes: ["only a move-in shows it (--test-mode-move-in)"] },
    successCodes: {},
    testMoveIn: null,
    ok: false,
    differs: [],
    notChecked: [],
    testTenantId: null,
    unreachable: null,
  };
  const record = options.record ?? true;
  const finish = async () => {
    report.differs = [
      ...(report.settings.status === "differs" ? ["settings"] : []),
      ...report.operations.filter((o) => o.status === "differs").map((o) => o.operation),
      ...(report.cardTypes.status === "differs" ? ["card types (PaymentTypesRetrieve)"] : []),
      ...(report.billingFrequency.status === "differs" ? ["billing frequency (MoveInWithDiscount_v7)"] : []),
      ...(report.payMethod.status === "differs" ? ["pay method (MoveInWithDiscount_v7)"] : []),
    ];
    report.differs = [...new Set(report.differs)];
    // Never ready on what was not seen (issue 37): each item the adapter relies on, with its flag.
    if (report.unreachable) {
      report.differs = [];
      report.notChecked = ["every item: SiteLink could not be reached"];
    }
    else if (report.settings.status !== "differs") {
      report.notChecked = [
        ...report.operations.filter((o) => o.status === "not checked").map((o) => `${o.operation} (${FLAG_FOR[o.operation] ?? "no rows to check at this site"})`),
        ...(report.payMethod.status === "not checked" ? ["pay method (MoveInWithDiscount_v7) (--test-mode-move-in)"] : []),
        ...(report.billingFrequency.status === "not checked" ? ["billing frequency (MoveInWithDiscount_v7) (--test-mode-move-in)"] : []),
        ...(report.cardTypes.status === "not checked" ? ["card types (PaymentTypesRetrieve)"] : []),
      ];
    }
    report.ok = report.differs.length === 0 && report.notChecked.length === 0;
    if (record) {
      await recordGoLiveCheck(db, {
        locationId: loc.id,
        passed: report.ok,
        source: "sitelink:verify",
        now: options.now,
        testTenantId: report.testTenantId,
        saw: goLiveSaw(report, { ranFrom: "command", ranBy: null }),
      });
    }
    return report;
  };

  // 1. Settings the server would refuse, or secrets that do not resolve: nothing is sent.
  const refused = settingsProblems(row, env);
  if (refused.length) {
    report.settings = { status: "differs", notes: refused };
    return finish();
  }
  let settings: SiteLinkSettings;
  try {
    // Quoted and moved in with the ChannelType the adapter sends (the web-rates flag), not the row's column.
    settings = { ...(await loadSiteLinkSettings(db, loc.id, env))!, channelType: await channelTypeAt(db, loc.id) };
  } catch (error) {
    report.settings = { status: "differs", notes: [error instanceof Error ? error.message : String(error)] };
    return finish();
  }
  report.payMethod.configured = { ...settings.payMethodIds };
  // The corp user name is never printed either (it carries the API key in the envelope).
  const secrets = [settings.credentials.password, settings.credentials.apiKey ?? "", settings.credentials.corpUser].filter(Boolean);
  const clean = (text: string) => redactValues(text, secrets);

  // The client, with the raw answer kept for its schema.
  let lastXml = "";
  const baseFetch = options.fetch ?? fetch;
  const capturing: typeof fetch = async (input, init) => {
    const response = await baseFetch(input, init);
    lastXml = await response.clone().text();
    return response;
  };
  const silent = { debug() {}, info() {}, warn() {} };
  const { call } = createSiteLinkClient({
    endpoint: settings.endpoint,
    credentials: settings.credentials,
    contract,
    readTimeoutMs: settings.readTimeoutMs,
    writeTimeoutMs: settings.writeTimeoutMs,
    fetch: capturing,
    log: silent,
  });

  const checked = new Map<string, OperationCheck>();
  const add = (c: OperationCheck) => {
    c.notes = c.notes.map(clean);
    checked.set(c.operation, c);
  };
  const seen = (operation: string, answer: SoapAnswer) => {
    if (answer.retCode !== null && !(operation in report.successCodes)) report.successCodes[operation] = String(answer.retCode);
  };
  /** Ret_Code seen per write (only the test-mode move-in sends one). */
  const writesSeen: Partial<Record<RuledOperation, string>> = {};
  /** One read: its answer compared with what the adapter reads; null when there was no usable answer. */
  async function read(operation: string, params: Record<string, string | number | boolean>, c: SiteLinkCall = call): Promise<SoapAnswer | null> {
    try {
      lastXml = "";
      const answer = await c(operation, params, { write: false });
      const check = checkAnswer(operation, answer, schemaTables(lastXml, operation));
      if (check.status === "ok" || check.status === "warning") seen(operation, answer);
      add(check);
      return answer;
    } catch (error) {
      if (operation === "SiteInformation") siteInformationFailure = error;
      add({ operation, kind: "read", status: "differs", notes: [`no usable answer: ${error instanceof Error ? error.message : String(error)}`] });
      return null;
    }
  }
  const notChecked = (operation: string, note: string) => {
    if (!checked.has(operation)) checked.set(operation, { operation, kind: ADAPTER_READS[operation]?.kind ?? "read", status: "not checked", notes: [note] });
  };

  // 2. Site-wide reads. The first one tells whether SiteLink answers at all: when it does not (a network
  // error, a timeout, an HTTP error, a page that is not SiteLink's; not a SOAP Fault, which is SiteLink
  // answering), nothing else is sent and the run says so rather than listing twenty failures (decision 681).
  let siteInformationFailure: unknown = null;
  const site = await read("SiteInformation", {});
  if (!site && siteInformationFailure instanceof SiteLinkCallError && siteInformationFailure.failure !== "fault") {
    report.unreachable = clean(`${report.endpoint} did not answer as SiteLink (${siteInformationFailure.failure}): ${siteInformationFailure.message}`);
    report.operations = [checked.get("SiteInformation")!];
    return finish();
  }
  if (site && checked.get("SiteInformation")!.status === "differs") {
    checked.get("SiteInformation")!.notes.push("the corp code, location code, user, password or API key may be wrong");
  }
  await read("UnitTypePriceList_v2", {});
  const unitsAnswer = await read("UnitsInformation_v3", { lngLastTimePolled: "0", bReturnExcludedFromWebsiteUnits: true });
  const unitRows = unitsAnswer ? rows(unitsAnswer, "Table").filter((r) => r.UnitID) : [];
  const freeUnits = unitRows.filter((r) => rentableNow(r));
  const probeUnit = options.unitId ?? freeUnits[0]?.UnitID ?? unitRows[0]?.UnitID ?? null;
  if (probeUnit) await read("UnitsInformationByUnitID", { UnitID: Number(probeUnit) });
  else notChecked("UnitsInformationByUnitID", "the site lists no unit to read");
  await read("InsuranceCoverageRetrieve_V2", {});
  // The site's discount plans a promotion names (issue 40): no plan at all is fine, the columns are checked.
  await read("DiscountPlansRetrieve", {});
  await read("ChargeDescriptionsRetrieve", {});
  const payTypes = await read("PaymentTypesRetrieve", {});
  const today = localDate(options.now, loc.timeZone.timeZoneId);
  const quoteUnit = options.unitId ?? freeUnits[0]?.UnitID ?? null;
  let costRows: Row[] = [];
  if (quoteUnit) {
    const cost = await read("MoveInCostRetrieveWithDiscount_v4", {
      iUnitID: Number(quoteUnit),
      dMoveInDate: siteLinkDate(today),
      InsuranceCoverageID: -999,
      ConcessionPlanID: -999,
      iPromoGlobalNum: 0,
      ChannelType: settings.channelType,
      bApplyInsuranceCredit: false,
    });
    costRows = cost ? rows(cost, "Table") : [];
  } else notChecked("MoveInCostRetrieveWithDiscount_v4", "no free unit to quote");
  await read("TenantSearchDetailed", { sEmailAddress: "sitelink-verify@example.invalid" });
  await read("ReservationList_v3", { iGlobalWaitingNum: 0, WaitingID: 0 });

  // 3. Card types: every brand configured must be one of the site's payment types.
  if (payTypes) {
    report.cardTypes.site = rows(payTypes, "Table").map((r) => ({ id: r.PmtTypeID ?? "", description: r.sPmtTypeDesc ?? "", category: r.sCategory ?? "" }));
    const ids = new Set(report.cardTypes.site.map((t) => t.id));
    const wrong = Object.entries(report.cardTypes.configured).filter(([, id]) => !ids.has(String(id)));
    report.cardTypes.status = wrong.length ? "differs" : "ok";
    for (const [brand, id] of wrong) report.cardTypes.notes.push(`${brand}=${id} is not one of the site's payment types`);
    if (settings.cardChargedBy === "sitelink" && !Object.keys(report.cardTypes.configured).length) {
      report.cardTypes.status = "differs";
      report.cardTypes.notes.push("no card type configured: option A cannot take a card (sitelink:configure --card-type brand=PmtTypeID)");
    }
  }

  // 4. The test tenant and the test-mode move-in (issue 37): verify's own test tenant (made once, found
  // again by the next run); one move-in in test mode for it, never a second unit.
  let ledgerId: string | null = null;
  let ownTenant: string | null = null;
  let loginChecked = false;
  if (options.testModeMoveIn) {
    report.testMoveIn = { unitId: quoteUnit ?? "", ledgerId: null, notes: [] };
    ownTenant = await ownTestTenant(report.testMoveIn.notes);
    report.testTenantId = ownTenant;
    if (ownTenant) loginChecked = await checkLogin(ownTenant);
    if (!ownTenant) {
      report.testMoveIn.notes.push("no test tenant: no move-in sent");
    } else if (!quoteUnit || !costRows.length) {
      report.testMoveIn.notes.push("no free unit with a quote: no move-in sent");
    } else {
      const held = await unitHeldBy(ownTenant);
      if (held) {
        report.testMoveIn = {
          unitId: held.unitId,
          ledgerId: held.ledgerId,
          notes: [
            ...report.testMoveIn.notes,
            `the test tenant ${ownTenant} still holds unit ${held.unitId} (ledger ${held.ledgerId}), from an earlier test move-in: no second unit is taken. Have the office move the test tenant out of it (and void its test payment), then run again.`,
          ],
        };
        report.payMethod.notes = ["not checked: the test tenant holds a unit already, so no move-in was sent (see the test-mode move-in)"];
      } else {
        ledgerId = await testMoveIn(ownTenant, quoteUnit, costRows);
      }
    }
  }
  if (!loginChecked) notChecked("TenantLogin", "needs a web login this run knows: verify's own test tenant's");

  // 5. A tenant's records: the one --tenant-id names (read only), else the test tenant's.
  const readTenant = options.tenantId ?? ownTenant;
  if (readTenant) {
    const id = readTenant;
    await read("TenantInfoByTenantID", { iTenantID: Number(id) });
    const ledgers = await read("LedgersByTenantID_v3", { sTenantID: id });
    const ledger = (id === ownTenant ? ledgerId : null) ?? (ledgers ? rows(ledgers, "Ledgers")[0]?.LedgerID : undefined) ?? null;
    await read("CustomerAccountsBalanceDetailsWithPrepayment", { iTenantID: Number(id), iNumberOfMonthsPrepay: 0 });
    await read("TenantBillingInfoByTenantID_v3", { iTenantID: Number(id) });
    if (ledger) {
      await read("ChargesAllByLedgerID", { ledgerId: Number(ledger) });
      await read("PaymentsByLedgerID", { sLedgerID: ledger });
    } else {
      notChecked("ChargesAllByLedgerID", `tenant ${id} has no ledger`);
      notChecked("PaymentsByLedgerID", `tenant ${id} has no ledger`);
    }
  } else {
    for (const op of ["TenantInfoByTenantID", "LedgersByTenantID_v3", "CustomerAccountsBalanceDetailsWithPrepayment", "TenantBillingInfoByTenantID_v3", "ChargesAllByLedgerID", "PaymentsByLedgerID"]) {
      notChecked(op, "no tenant's records read");
    }
  }

  // 6. Every operation the adapter uses, in the contract's order of ADAPTER_READS.
  for (const [op, reads] of Object.entries(ADAPTER_READS)) {
    if (checked.has(op)) continue;
    checked.set(op, { operation: op, kind: reads.kind, status: "not sent", notes: ["a write: sitelink:verify never sends it"] });
  }
  report.operations = Object.keys(ADAPTER_READS).map((op) => checked.get(op)!);
  // Each write: the code seen (if sent) and the rule the adapter reads its answer by (answers.ts).
  for (const op of Object.keys(ANSWER_RULES) as RuledOperation[]) {
    // A write verify does not send: the adapter does not rely on its code, since every answer that is
    // not a clear success is read back (answers.ts), never taken as done.
    report.successCodes[op] = `${writesSeen[op] ?? "not seen (a write sitelink:verify does not send; an answer that is not a clear success is read back)"}; the adapter reads: ${describeAnswerRule(op)}`;
  }
  return finish();

  /**
   * verify's own test tenant at this site: the one an earlier run used (still there), or the one with
   * its e-mail address, or a new one (TenantNewDetailed_v3, its web password derived, never stored).
   */
  async function ownTestTenant(notes: string[]): Promise<string | null> {
    const email = testTenantEmail(settings.credentials.locationCode);
    const known = await lastTestTenant(db, locationId);
    if (known) {
      const info = await call("TenantInfoByTenantID", { iTenantID: Number(known) }, { write: false }).catch(() => null);
      if (info && rows(info, "Table")[0]) {
        notes.push(`the test tenant ${known} of an earlier run is used again`);
        return known;
      }
    }
    const found = (await searchTenantsByEmail(call, email).catch(() => [])).find((r) => r.TenantID);
    if (found?.TenantID) {
      notes.push(`the test tenant ${found.TenantID} (${email}) is used again`);
      return found.TenantID;
    }
    const params = {
      ...tenantParams(
        { firstName: "Gatehouse", lastName: "Verify", email, cellPhone: "9105550100", webPwHash: "", addr1: "1 Test Street", addr2: null, city: "Test", region: "NC", postalCode: "28358", isMilitary: false, isCompany: false, isCommercial: false },
        email,
        "Gatehouse sitelink:verify test tenant: not a customer",
      ),
      sWebPassword: testTenantPassword(settings.credentials.password, settings.credentials.locationCode),
    };
    try {
      lastXml = "";
      const answer = await call("TenantNewDetailed_v3", params, { write: true });
      writesSeen.TenantNewDetailed_v3 = String(answer.retCode ?? "none");
      const outcome = readAnswer("TenantNewDetailed_v3", answer);
      if (outcome.kind === "ok") {
        add({ ...checkAnswer("TenantNewDetailed_v3", answer, schemaTables(lastXml, "TenantNewDetailed_v3")), notes: [`the test tenant was made: Ret_Code ${answer.retCode}, TenantID ${outcome.id}`] });
        notes.push(`a test tenant was made: TenantID ${outcome.id} (${email})`);
        return outcome.id;
      }
      const again = outcome.kind === "unclear" ? (await searchTenantsByEmail(call, email).catch(() => [])).find((r) => r.TenantID) : undefined;
      add({ operation: "TenantNewDetailed_v3", kind: "write", status: "differs", notes: [clean(`the test tenant: answered ${outcome.message}${again ? `; found again as ${again.TenantID}` : ""}`)] });
      return again?.TenantID ?? null;
    } catch (error) {
      add({ operation: "TenantNewDetailed_v3", kind: "write", status: "differs", notes: [clean(`the test tenant: no usable answer: ${error instanceof Error ? error.message : String(error)}`)] });
      return null;
    }
  }

  /** TenantLogin with the test tenant's own e-mail and web password: its TenantID must come back. */
  async function checkLogin(id: string): Promise<boolean> {
    const password = testTenantPassword(settings.credentials.password, settings.credentials.locationCode);
    try {
      lastXml = "";
      // The answer carries the web password in clear: only the check's notes leave this function.
      const answer = await call("TenantLogin", { sTenantLogin: testTenantEmail(settings.credentials.locationCode), sTenantPassword: password }, { write: false });
      const check = checkAnswer("TenantLogin", answer, schemaTables(lastXml, "TenantLogin"));
      const answered = tenantIdFromLogin(answer);
      if (check.status !== "differs" && answered !== id) {
        check.status = "differs";
        check.notes.push(answered ? `the test tenant's login answered TenantID ${answered}, not ${id}` : "the test tenant's login answered no TenantID");
      }
      add({ ...check, notes: check.notes.map((n) => redactValues(n, [password])) });
      return true;
    } catch (error) {
      add({ operation: "TenantLogin", kind: "read", status: "differs", notes: [clean(`no usable answer: ${error instanceof Error ? error.message : String(error)}`)] });
      return true;
    }
  }

  /** A unit the tenant holds (an active ledger), or null. */
  async function unitHeldBy(id: string): Promise<{ unitId: string; ledgerId: string } | null> {
    const answer = await call("LedgersByTenantID_v3", { sTenantID: id }, { write: false }).catch(() => null);
    const ledger = answer ? rows(answer, "Ledgers").find((l) => l.LedgerID) : undefined;
    return ledger ? { unitId: ledger.UnitID ?? "?", ledgerId: ledger.LedgerID! } : null;
  }

  /** One move-in in test mode per candidate pay method, until one is taken. Returns the LedgerID when SiteLink kept it. */
  async function testMoveIn(tenantId: string, unitId: string, cost: Row[]): Promise<string | null> {
    const notes: string[] = report.testMoveIn?.notes ?? [];
    report.testMoveIn = { unitId, ledgerId: null, notes };
    const fresh = await call("UnitsInformationByUnitID", { UnitID: Number(unitId) }, { write: false }).catch(() => null);
    const unitRow = fresh ? (rows(fresh, "Table").find((r) => r.UnitID === unitId) ?? null) : null;
    if (!unitRow || !rentableNow(unitRow)) {
      notes.push(`unit ${unitId} is not free: no move-in sent`);
      return null;
    }
    const info = await call("TenantInfoByTenantID", { iTenantID: Number(tenantId) }, { write: false }).catch(() => null);
    const accessCode = info ? (rows(info, "Table")[0]?.sAccessCode ?? "") : "";
    const start = cost.find((r) => isTrue(r.bMoveInRequired) && /\brent\b/i.test(r.ChargeDescription ?? "")) ?? cost[0]!;
    const byCard = settings.cardChargedBy === "sitelink";
    const brand = (["visa", "mastercard", "discover", "amex"] as const).find((b) => settings.cardTypeIds[b]);
    if (byCard && !brand) {
      notes.push("no card type configured: no move-in sent");
      return null;
    }
    const configured = settings.payMethodIds;
    // A card: 0 first (LSETUP refuses it as "none" without writing; the manual's sites take it as a
    // card), then 1 (LSETUP's card), then the location's own card id if it is neither. Option B: the
    // location's cash id (2 in both readings).
    const candidates = byCard ? [...new Set([PAY_METHOD_READINGS.manual.ids.card, PAY_METHOD_READINGS.lsetup.ids.card, configured.card])] : [configured.cash];
    const expiry = `${options.now.getUTCFullYear() + 2}-12-31T23:59:59`;
    if (byCard) {
      // Said before anything is sent (issue 37): under option A the card goes to the site's processor.
      const line = `Option A: the test-mode move-in sends a ${brand} test card (ending ${TEST_CARDS[brand!]!.slice(-4)}) through SiteLink to this site's card processor, with bTestMode true.`;
      options.say?.(line);
      notes.push(line);
    }
    for (const payMethod of candidates) {
      const params = {
        TenantID: Number(tenantId),
        sAccessCode: accessCode,
        UnitID: Number(unitId),
        dStartDate: start.StartDate?.slice(0, 19) ?? siteLinkDate(today),
        dEndDate: start.EndDate?.slice(0, 19) ?? siteLinkDate(today),
        dcPaymentAmount: centsToDecimal(requiredTotal(cost)),
        iCreditCardType: byCard ? settings.cardTypeIds[brand!]! : 0,
        sCreditCardNumber: byCard ? TEST_CARDS[brand!]! : "",
        sCreditCardCVV: byCard ? (brand === "amex" ? "1234" : "123") : "",
        sCCTrack2: "",
        dExpirationDate: byCard ? expiry : siteLinkDate(today),
        sBillingName: "SiteLink Verify",
        sBillingAddress: "",
        sBillingZipCode: "",
        InsuranceCoverageID: -999,
        ConcessionPlanID: -999,
        iSource: 5,
        sSource: "Gatehouse sitelink:verify (test mode)",
        bUsePushRate: false,
        iPayMethod: payMethod,
        sABARoutingNum: "",
        sAccountNum: "",
        iAccountType: 0,
        iKeypadZoneID: -1,
        iTimeZoneID: -1,
        iBillingFrequency: settings.billingFrequency,
        WaitingID: -999,
        ChannelType: settings.channelType,
        bTestMode: true,
        bApplyInsuranceCredit: false,
      };
      let answer: SoapAnswer;
      try {
        lastXml = "";
        answer = await call("MoveInWithDiscount_v7", params, { write: true });
      } catch (error) {
        const unknown = error instanceof SiteLinkCallError && error.outcomeUnknown;
        add({ operation: "MoveInWithDiscount_v7", kind: "write", status: "differs", notes: [`test mode, iPayMethod ${payMethod}: no usable answer${unknown ? " (it may have been recorded: check the unit at the office)" : ""}: ${error instanceof Error ? error.message : String(error)}`] });
        return null;
      }
      const code = answer.retCode ?? 0;
      const message = `${answer.retCode ?? "no Ret_Code"}${answer.retMsg ? ` "${answer.retMsg}"` : ""}`;
      writesSeen.MoveInWithDiscount_v7 = String(answer.retCode ?? "none");
      // Read as the adapter reads it (answers.ts): the LedgerID in Ret_Code.
      const outcome = readAnswer("MoveInWithDiscount_v7", answer);
      if (outcome.kind === "ok") {
        const ledger = outcome.id!;
        const check = checkAnswer("MoveInWithDiscount_v7", answer, schemaTables(lastXml, "MoveInWithDiscount_v7"));
        check.notes.unshift(`test mode, iPayMethod ${payMethod}: Ret_Code ${ledger} (the LedgerID)`);
        add(check);
        report.billingFrequency = { configured: settings.billingFrequency, status: "ok", note: "accepted by the test-mode move-in" };
        report.payMethod.works = payMethod;
        report.payMethod.notes = [`iPayMethod ${payMethod} was taken${byCard ? ` with a ${brand} test card (card type ${settings.cardTypeIds[brand!]})` : " (cash)"}`];
        if (byCard) {
          const reading = payMethod === PAY_METHOD_READINGS.manual.ids.card ? "manual" : payMethod === PAY_METHOD_READINGS.lsetup.ids.card ? "lsetup" : null;
          report.payMethod.reading = reading;
          report.payMethod.notes.push(reading ? `the site follows ${PAY_METHOD_READINGS[reading].label}` : "the site follows neither reading of the sources (evidence §4.9)");
          if (configured.card !== payMethod) {
            report.payMethod.status = "differs";
            const ids = reading ? PAY_METHOD_READINGS[reading].ids : { ...configured, card: payMethod };
            report.payMethod.notes.push(
              `the adapter sends iPayMethod ${configured.card} for a card (this location's pay-method ids card=${configured.card},cash=${configured.cash},check=${configured.check}); this site takes a card as ${payMethod}`,
              `fix: npm run sitelink:configure -- --location ${report.location.slug} … --pay-method card=${ids.card},cash=${ids.cash},check=${ids.check} (with the location's other settings)`,
            );
          } else report.payMethod.status = "ok";
        } else {
          report.payMethod.status = "ok";
          report.payMethod.notes.push("a cash move-in does not show which reading of iPayMethod the site follows (both sources have cash at 2)");
        }
        report.testMoveIn!.ledgerId = ledger;
        const after = await call("LedgersByTenantID_v3", { sTenantID: tenantId }, { write: false }).catch(() => null);
        if (after && rows(after, "Ledgers").some((l) => l.LedgerID === ledger)) {
          // Reversed as far as the API goes: a move-out scheduled for today (no operation moves a tenant
          // out or voids a payment).
          let scheduled = "its move-out could not be scheduled";
          try {
            const out = await call("ScheduleMoveOut", { iLedgerID: Number(ledger), dScheduledOut: siteLinkDate(today) }, { write: true });
            writesSeen.ScheduleMoveOut = String(out.retCode ?? "none");
            const o = readAnswer("ScheduleMoveOut", out);
            scheduled = o.kind === "refused" ? clean(`scheduling its move-out was refused (${o.message})`) : `its move-out is scheduled for ${today} (ScheduleMoveOut answered ${out.retCode ?? "no code"})`;
          } catch (error) {
            scheduled = clean(`scheduling its move-out got no usable answer: ${error instanceof Error ? error.message : String(error)}`);
          }
          notes.push(
            `SiteLink recorded ledger ${ledger} for unit ${unitId} although bTestMode was true: ${scheduled}, the furthest the API goes. The office must move the test tenant out and void the test payment; until then the next run takes no other unit.`,
          );
          return ledger;
        }
        notes.push(`SiteLink answered ledger ${ledger} and lists no such ledger for the tenant: test mode recorded nothing, no unit is rented`);
        return null;
      }
      if (outcome.kind === "unclear") {
        // 0, no code or -1: the adapter would read the unit and ledgers back rather than believe it.
        add({ operation: "MoveInWithDiscount_v7", kind: "write", status: "differs", notes: [clean(`test mode, iPayMethod ${payMethod}: answered ${message}, not a LedgerID (the adapter reads: ${describeAnswerRule("MoveInWithDiscount_v7")})`)] });
        notes.push("the answer may mean the move-in was recorded: check the unit at the office");
        return null;
      }
      if (code === -28) {
        report.billingFrequency = { configured: settings.billingFrequency, status: "differs", note: clean(`the move-in answered ${message}: the site does not take billing frequency ${settings.billingFrequency}`) };
        add({ operation: "MoveInWithDiscount_v7", kind: "write", status: "differs", notes: [clean(`test mode: ${message}`)] });
        return null;
      }
      if ((code === -2 || code === -5) && payMethod !== candidates.at(-1)) {
        notes.push(clean(`iPayMethod ${payMethod} answered ${message} for a unit that is free: not a card on this site`));
        continue;
      }
      add({ operation: "MoveInWithDiscount_v7", kind: "write", status: "differs", notes: [clean(`test mode, iPayMethod ${payMethod}: ${message}`)] });
      report.payMethod.status = "differs";
      report.payMethod.notes = [clean(`no candidate pay method was taken (last: iPayMethod ${payMethod} answered ${message})`)];
      return null;
    }
    return null;
  }
}

// ------------------------------------------------------------------ what a check keeps

/**
 * What a run is kept with (table sitelink_go_live_checks, decisions 470 and 681): the summary lines
 * sitelink:status shows, and each item in the operator's words with what to fix, which the console's
 * go-live page lists, whoever ran it. Never a secret (the report has none).
 */
export function goLiveSaw(report: GoLiveReport, by: { ranFrom: "command" | "console"; ranBy: string | null }): SiteLinkGoLiveSaw {
  return {
    differs: report.differs,
    notChecked: report.notChecked,
    checked: report.operations.filter((o) => o.status === "ok" || o.status === "warning").map((o) => `${o.operation}: ${o.status}`),
    payMethod: { configured: report.payMethod.configured, works: report.payMethod.works, reading: report.payMethod.reading },
    testMoveIn: report.testMoveIn ? [`unit ${report.testMoveIn.unitId}${report.testMoveIn.ledgerId ? `, ledger ${report.testMoveIn.ledgerId}` : ""}`, ...report.testMoveIn.notes] : [],
    ...(report.unreachable ? { unreachable: report.unreachable } : {}),
    items: goLiveItems(report),
    suggested: goLiveSuggestions(report),
    ranFrom: by.ranFrom,
    ranBy: by.ranBy,
  };
}

// ------------------------------------------------------------------ the report as text

const LABEL: Record<CheckStatus, string> = { ok: "ok", differs: "DIFFERS", warning: "warning", "not checked": "not checked", "not sent": "write" };

export function formatGoLiveReport(r: GoLiveReport): string {
  const lines: string[] = [];
  lines.push(`SiteLink go-live check: ${r.location.name} (${r.location.slug}) at ${r.generatedAt}`);
  lines.push(`  endpoint ${r.endpoint}; corp ${r.corpCode}, location ${r.locationCode}; card charged by ${r.cardChargedBy === "sitelink" ? "SiteLink's processor (A)" : "our gateway, recorded as cash (B)"}`);
  lines.push("", `Settings: ${LABEL[r.settings.status]}${r.settings.notes.length ? "" : " (accepted; secrets resolve)"}`);
  for (const n of r.settings.notes) lines.push(`  - ${n}`);
  if (r.operations.length) {
    lines.push("", "Operations the adapter uses (tables and columns it reads):");
    const width = Math.max(...r.operations.map((o) => o.operation.length));
    for (const o of r.operations) lines.push(`  ${LABEL[o.status].padEnd(11)} ${o.operation.padEnd(width)}  ${o.notes.join("; ") || (o.kind === "read" ? "answer as the adapter reads it" : "")}`);
  }
  if (r.settings.status !== "differs" || r.operations.length) {
    lines.push("", `Card types (PaymentTypesRetrieve): ${LABEL[r.cardTypes.status]}`);
    lines.push(`  site:       ${r.cardTypes.site.map((t) => `${t.id} ${t.description}${t.category ? ` (${t.category})` : ""}`).join(", ") || "none read"}`);
    lines.push(`  configured: ${Object.entries(r.cardTypes.configured).map(([b, id]) => `${b}=${id}`).join(" ") || "none"}`);
    for (const n of r.cardTypes.notes) lines.push(`  - ${n}`);
    lines.push("", `Billing frequency ${r.billingFrequency.configured}: ${LABEL[r.billingFrequency.status]} (${r.billingFrequency.note})`);
    lines.push("", `Pay method: ${LABEL[r.payMethod.status]}${r.payMethod.works !== null ? `, iPayMethod ${r.payMethod.works} works` : ""}`);
    if (r.payMethod.configured) lines.push(`  configured: card=${r.payMethod.configured.card} cash=${r.payMethod.configured.cash} check=${r.payMethod.configured.check} (what the adapter sends)`);
    for (const n of r.payMethod.notes) lines.push(`  - ${n}`);
    if (r.testMoveIn) {
      lines.push("", `Test-mode move-in (unit ${r.testMoveIn.unitId}):`);
      for (const n of r.testMoveIn.notes) lines.push(`  - ${n}`);
    }
    lines.push("", "Success codes (Ret_Code seen; for each write, how the adapter reads it):");
    for (const [op, code] of Object.entries(r.successCodes)) lines.push(`  ${op}: ${code}`);
  }
  if (r.notChecked.length) {
    lines.push("", "Not checked (the adapter relies on each; the flag that checks it):");
    for (const n of r.notChecked) lines.push(`  - ${n}`);
  }
  if (r.unreachable) {
    lines.push("", `Result: NOT CHECKED. SiteLink could not be reached: ${r.unreachable}. Nothing was checked; the location's go-live state is as it was.`);
    return lines.join("\n");
  }
  const why = [r.differs.length ? `Differs: ${r.differs.join(", ")}.` : "", r.notChecked.length ? `Not checked: ${r.notChecked.map((n) => n.replace(/ \(.*$/, "")).join(", ")}.` : ""].filter(Boolean).join(" ");
  lines.push("", r.ok ? "Result: READY. Every item the adapter relies on was checked and nothing differs." : `Result: NOT READY. ${why}`);
  return lines.join("\n");
}
