/**
 * The test control API (study §6.4): never part of the SOAP surface. The same methods are offered
 * in-process (startSiteLinkSimulator().control) and over HTTP under /__sim/ (see handleControl).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { AUTOPAY_DECLINE_CARD, DECLINED_CARDS } from "./cards";
import { Faults, type FaultRule, type FaultRuleInput } from "./faults";
import { balance, postNextPeriod, recordPayment } from "./ledger";
import { addOfficeLedger, addOfficeReservation, addSyntheticTenant, emptySite, newUnit, nextAccessCode, DEMO_SITES, type DemoSiteSpec } from "./seed";
import type { SiteLinkSimulator } from "./simulator";
import { readingsOf, type LedgerRecord, type SimState, type SiteRecord, type UnitRecord } from "./state";
import { addDays, addMonths, localParts, luhnValid } from "./values";

type UnitStatus = "available" | "rented" | "reserved" | "unavailable" | "excluded" | "deleted";

interface CallLogEntry {
  seq: number;
  /** Simulator clock, ISO. */
  at: string;
  operation: string | null;
  soapAction: string;
  locationCode: string | null;
  /** Parameters as received, card and secret fields redacted. */
  params: Record<string, string>;
  httpStatus: number | null;
  retCode: number | null;
  retMsg: string | null;
  /** The injected fault applied to this call, if any. */
  fault: string | null;
  /** Whether the operation ran (and so may have committed). */
  processed: boolean;
}

interface UnitTypeInput {
  typeName: string;
  width: number;
  length: number;
  floor?: number;
  climate?: boolean;
  inside?: boolean;
  /** Cents a month. */
  stdRate: number;
  webRate?: number;
  secDep?: number;
  statuses: UnitStatus[];
}

type SiteConfigPatch = Partial<
  Pick<
    SiteRecord,
    | "sSiteName"
    | "processor"
    | "cardConfig"
    | "adminFee"
    | "adminFeeTax1Rate"
    | "rentTax1Rate"
    | "rentTax2Rate"
    | "billingFrequencies"
    | "daysPastDueDisableOnlinePayments"
    | "paymentTypes"
    | "concessions"
  >
> & { readings?: Partial<SiteRecord["readings"]>; billing?: Partial<SiteRecord["billing"]>; insuranceTax1Rate?: number; chargeDescriptions?: SiteRecord["chargeDescriptions"] };

interface SiteFixture extends SiteConfigPatch {
  name: string;
  sLocationCode: string;
  SiteID: number;
  unitIdBase?: number;
  anniversary?: boolean;
  unitTypes?: UnitTypeInput[];
}

const SECRET = new Set(["sCorpPassword", "sTenantPassword", "sWebPassword", "sCreditCardCVV", "sCCTrack2", "sSSN", "sWebSecurityQA", "sABARoutingNum", "sAccountNum", "sACH_CheckWriterAcctNum", "sACH_ABA_RoutingNum"]);
const CARD_NUMBERS = new Set(["sCreditCardNumber", "sCreditCardNum"]);

/** Redacts card and secret fields for the call log (a card number keeps its last four digits). */
export function redactParams(raw: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (CARD_NUMBERS.has(k)) out[k] = v ? `[redacted …${v.replace(/\D/g, "").slice(-4)}]` : "";
    else if (SECRET.has(k)) out[k] = v ? "[redacted]" : "";
    else if (k === "sCorpUserName") out[k] = v.replace(/:::.*$/, ":::[redacted]");
    else out[k] = v;
  }
  return out;
}

function maskCard(n: string): string {
  return n ? `${"*".repeat(Math.max(0, n.length - 4))}${n.slice(-4)}` : n;
}

export class SimControl {
  readonly faults = new Faults();
  private log: CallLogEntry[] = [];
  private seq = 0;

  constructor(readonly sim: SiteLinkSimulator) {}

  // -------------------------------------------------------------- state

  /** Back to the state the simulator started from (or to the demo corp / an empty corp). */
  reset(seed?: "demo" | "empty"): void {
    this.sim.state = this.sim.initialState(seed ?? this.sim.startSeed);
    this.log = [];
    this.faults.clear();
  }

  /** Adds (or replaces) a site from a fixture: configuration and unit types with unit statuses. */
  seedSite(fixture: SiteFixture): { sLocationCode: string; SiteID: number; units: number } {
    const template: DemoSiteSpec = DEMO_SITES[0]!;
    const site = emptySite({
      name: fixture.name,
      SiteID: fixture.SiteID,
      sLocationCode: fixture.sLocationCode,
      unitIdBase: fixture.unitIdBase ?? 3000,
      anniversary: fixture.anniversary ?? true,
      processor: fixture.processor === undefined ? template.processor : fixture.processor,
      paymentTypes: fixture.paymentTypes ?? template.paymentTypes,
    });
    site.sSiteName = fixture.sSiteName ?? site.sSiteName;
    this.sim.state.sites = this.sim.state.sites.filter((s) => s.sLocationCode !== fixture.sLocationCode);
    this.sim.state.sites.push(site);
    this.configureSite(fixture.sLocationCode, fixture);
    for (const t of fixture.unitTypes ?? []) this.createUnitType(fixture.sLocationCode, t);
    return { sLocationCode: site.sLocationCode, SiteID: site.SiteID, units: site.units.length };
  }

  configureSite(code: string, patch: SiteConfigPatch): SiteRecord {
    const site = this.requireSite(code);
    const keys = [
      "sSiteName",
      "processor",
      "cardConfig",
      "adminFee",
      "adminFeeTax1Rate",
      "rentTax1Rate",
      "rentTax2Rate",
      "billingFrequencies",
      "daysPastDueDisableOnlinePayments",
      "paymentTypes",
      "concessions",
      "chargeDescriptions",
    ] as const;
    for (const k of keys) if (patch[k] !== undefined) (site as unknown as Record<string, unknown>)[k] = structuredClone(patch[k]);
    if (patch.processor !== undefined && patch.cardConfig === undefined) site.cardConfig = patch.processor !== null;
    if (patch.billing) site.billing = { ...site.billing, ...patch.billing };
    if (patch.readings) {
      const next = { ...readingsOf(site), ...patch.readings };
      if (next.payMethod !== "lsetup" && next.payMethod !== "manual") throw new ControlError(400, `readings.payMethod is "lsetup" or "manual", not ${JSON.stringify(next.payMethod)}`);
      if (next.successCode !== "id" && next.successCode !== "zero") throw new ControlError(400, `readings.successCode is "id" or "zero", not ${JSON.stringify(next.successCode)}`);
      if (next.testMode !== "records" && next.testMode !== "nothing") throw new ControlError(400, `readings.testMode is "records" or "nothing", not ${JSON.stringify(next.testMode)}`);
      if (next.discountPlans !== "table" && next.discountPlans !== "empty") throw new ControlError(400, `readings.discountPlans is "table" or "empty", not ${JSON.stringify(next.discountPlans)}`);
      const oneOf = (key: "planMonths" | "planType" | "neverExpires" | "inMonthZero", values: readonly string[]) => {
        if (!values.includes(String(next[key]))) throw new ControlError(400, `readings.${key} is ${values.map((v) => `"${v}"`).join(" or ")}, not ${JSON.stringify(next[key])}`);
      };
      oneOf("planMonths", ["first", "each"]);
      oneOf("planType", ["amtType", "percentFirst"]);
      oneOf("neverExpires", ["recurring", "offer"]);
      oneOf("inMonthZero", ["every", "first"]);
      site.readings = next;
    }
    if (patch.insuranceTax1Rate !== undefined) for (const i of site.insurance) i.tax1Rate = patch.insuranceTax1Rate;
    return site;
  }

  createUnitType(code: string, input: UnitTypeInput): { UnitTypeID: number; units: Array<{ UnitID: number; sUnitName: string; status: UnitStatus }> } {
    const site = this.requireSite(code);
    let type = site.unitTypes.find((t) => t.sTypeName === input.typeName);
    if (!type) {
      type = { UnitTypeID: Math.max(276, ...site.unitTypes.map((t) => t.UnitTypeID)) + 1, sTypeName: input.typeName };
      site.unitTypes.push(type);
    }
    const { today, nowLocal } = this.sim.localNow(site);
    void today;
    const units: Array<{ UnitID: number; sUnitName: string; status: UnitStatus }> = [];
    for (const status of input.statuses) {
      const unit = newUnit(
        site,
        {
          UnitTypeID: type.UnitTypeID,
          sUnitName: "",
          width: input.width,
          length: input.length,
          floor: input.floor ?? 1,
          climate: input.climate ?? false,
          inside: input.inside ?? input.climate ?? false,
          power: false,
          alarm: false,
          stdRate: input.stdRate,
          webRate: input.webRate ?? input.stdRate,
          pushRate: input.stdRate,
          secDep: input.secDep ?? 0,
        },
        this.sim.issueTicks(),
        nowLocal,
      );
      unit.sUnitName = `S${unit.UnitID}`;
      site.units.push(unit);
      this.setUnitStatus(code, unit.UnitID, status);
      units.push({ UnitID: unit.UnitID, sUnitName: unit.sUnitName, status });
    }
    return { UnitTypeID: type.UnitTypeID, units };
  }

  /**
   * What the office would do: rented = a ledger with a synthetic tenant; reserved = a reservation;
   * unavailable = bRentable false (UnitStatusUpdate); excluded = hidden from the website; deleted;
   * available = all of that undone (an active ledger is moved out, reservations cancelled).
   */
  setUnitStatus(code: string, unitId: number, status: UnitStatus): UnitRecord {
    const site = this.requireSite(code);
    const unit = site.units.find((u) => u.UnitID === unitId);
    if (!unit) throw new ControlError(404, `No unit ${unitId} at ${code}`);
    const { today, nowLocal } = this.sim.localNow(site);
    const clearAll = () => {
      for (const l of site.ledgers) if (l.UnitID === unitId && l.active) l.active = false;
      for (const r of site.reservations) if (r.UnitID === unitId && r.iWaitingStatus === 0) r.iWaitingStatus = 2;
      unit.rented = false;
      unit.waitingListReserved = false;
      unit.rentable = true;
      unit.excludeFromWebsite = false;
      unit.deleted = null;
    };
    clearAll();
    if (status === "unavailable") unit.rentable = false;
    if (status === "excluded") unit.excludeFromWebsite = true;
    if (status === "deleted") unit.deleted = nowLocal;
    if (status === "rented" || status === "reserved") {
      const n = site.tenants.length + 1;
      const tenant = addSyntheticTenant(site, { first: "Office", last: `Tenant${n}`, email: `office.tenant${n}@example.com`, at: nowLocal, webPassword: "" });
      if (status === "rented") {
        const paidThru = addDays(addMonths(today, 1), -1);
        addOfficeLedger(site, { TenantID: tenant.TenantID, UnitID: unitId, movedIn: today, paidThru, chargedThru: paidThru, rent: unit.stdRate, accessCode: tenant.accessCode });
        unit.rented = true;
      } else {
        addOfficeReservation(site, this.sim.state, { TenantID: tenant.TenantID, UnitID: unitId, dNeeded: `${today}T00:00:00`, dExpires: `${addDays(today, 30)}T00:00:00`, quotedRate: unit.stdRate, at: nowLocal });
        unit.waitingListReserved = true;
      }
    }
    this.sim.touch(site, unit);
    return unit;
  }

  /**
   * A tenant created at the office (with a web password for TenantLogin), optionally renting a unit:
   * what the portal must prove before it lets an office tenant create a sign-in.
   */
  addOfficeTenant(
    code: string,
    input: { firstName: string; lastName: string; email: string; webPassword?: string; unitId?: number },
  ): { TenantID: number; accessCode: string; LedgerID: number | null } {
    const site = this.requireSite(code);
    const { nowLocal } = this.sim.localNow(site);
    const tenant = addSyntheticTenant(site, { first: input.firstName, last: input.lastName, email: input.email, at: nowLocal, webPassword: input.webPassword ?? "" });
    let ledgerId: number | null = null;
    if (input.unitId !== undefined) {
      const unit = this.setUnitStatus(code, input.unitId, "rented");
      const ledger = site.ledgers.find((l) => l.UnitID === unit.UnitID && l.active)!;
      const synthetic = ledger.TenantID;
      ledger.TenantID = tenant.TenantID;
      ledger.accessCode = tenant.accessCode;
      site.tenants = site.tenants.filter((t) => t.TenantID !== synthetic);
      ledgerId = ledger.LedgerID;
    }
    return { TenantID: tenant.TenantID, accessCode: tenant.accessCode, LedgerID: ledgerId };
  }

  /** The office moves a tenant out: the ledger ends (no longer listed) and the unit is free again. */
  moveOut(code: string, ledgerId: number): void {
    const site = this.requireSite(code);
    const ledger = site.ledgers.find((l) => l.LedgerID === ledgerId && l.active);
    if (!ledger) throw new ControlError(404, `No active ledger ${ledgerId} at ${code}`);
    ledger.active = false;
    const unit = site.units.find((u) => u.UnitID === ledger.UnitID);
    if (unit) {
      unit.rented = false;
      this.sim.touch(site, unit);
    }
  }

  /** Changes a unit's rates (the office's rate change: the next quote and -11 see it). */
  setUnitRates(code: string, unitIds: number[], rates: { stdRate?: number; webRate?: number }): void {
    const site = this.requireSite(code);
    for (const id of unitIds) {
      const unit = site.units.find((u) => u.UnitID === id);
      if (!unit) throw new ControlError(404, `No unit ${id} at ${code}`);
      if (rates.stdRate !== undefined) unit.stdRate = unit.pushRate = rates.stdRate;
      if (rates.webRate !== undefined) unit.webRate = rates.webRate;
      this.sim.touch(site, unit);
    }
  }

  // -------------------------------------------------------------- clock and billing

  /** advanceClock(ms) moves the clock forward; advanceClock({ to }) fixes it (the study's name). */
  advanceClock(by: number | { to: string }): { now: string } {
    return typeof by === "number" ? this.setClock({ advanceMs: by }) : this.setClock({ to: by.to });
  }

  /** Fixes the clock at an instant (ISO) or moves it forward. */
  setClock(input: { to?: string; advanceMs?: number; advanceDays?: number }): { now: string } {
    if (input.to) {
      const t = new Date(input.to);
      if (Number.isNaN(t.getTime())) throw new ControlError(400, `Not a date: ${input.to}`);
      this.sim.state.clockFixed = t.toISOString();
      this.sim.state.clockOffsetMs = 0;
    }
    if (input.advanceMs) this.sim.state.clockOffsetMs += input.advanceMs;
    if (input.advanceDays) this.sim.state.clockOffsetMs += input.advanceDays * 86_400_000;
    return { now: this.sim.now().toISOString() };
  }

  /**
   * SiteLink's nightly run up to `date` (default: today at each site): posts every period that has
   * started, then charges autopay cards for the balance (AUTOPAY_DECLINE_CARD and the decline
   * numbers decline and are recorded on the ledger).
   */
  runBilling(input: { date?: string; location?: string } = {}): { posted: number; autopayments: number; declines: number } {
    let posted = 0;
    let autopayments = 0;
    let declines = 0;
    for (const site of this.sim.state.sites) {
      if (input.location && site.sLocationCode !== input.location) continue;
      const { today, nowLocal } = this.sim.localNow(site);
      const date = input.date ?? today;
      for (const ledger of site.ledgers.filter((l) => l.active)) {
        while (addDays(ledger.chargedThru, 1) <= date) {
          postNextPeriod(site, ledger);
          posted += 1;
        }
        const due = balance(site, ledger);
        const card = ledger.autobill;
        if (due <= 0 || !card || card.iAutoBillType !== 1) continue;
        const number = card.sCreditCardNum;
        if (!site.processor || number === AUTOPAY_DECLINE_CARD || DECLINED_CARDS[number] || !luhnValid(number)) {
          ledger.lastAutopayDecline = nowLocal;
          declines += 1;
          continue;
        }
        recordPayment(site, ledger, {
          amount: due,
          at: nowLocal,
          description: `Autopay ending ${number.slice(-4)}`,
          payMethod: 0,
          cardTypeId: card.iCreditCardTypeID,
          last4: number.slice(-4),
          checkNumber: null,
          testMode: false,
          source: 0,
        });
        autopayments += 1;
      }
    }
    return { posted, autopayments, declines };
  }

  // -------------------------------------------------------------- inspection

  /** The whole state (autopay card numbers masked). */
  inspect(): SimState {
    const copy = structuredClone(this.sim.state);
    for (const s of copy.sites) for (const l of s.ledgers) if (l.autobill) l.autobill.sCreditCardNum = maskCard(l.autobill.sCreditCardNum);
    return copy;
  }

  inspectSite(code: string): SiteRecord {
    this.requireSite(code);
    return this.inspect().sites.find((s) => s.sLocationCode === code)!;
  }

  /** Replaces the whole state (a snapshot from inspect() / a JSON file). */
  load(state: SimState): void {
    this.sim.state = structuredClone(state);
  }

  snapshot(): SimState {
    return structuredClone(this.sim.state);
  }

  // -------------------------------------------------------------- call log

  record(entry: Omit<CallLogEntry, "seq" | "at">): CallLogEntry {
    const full: CallLogEntry = { seq: ++this.seq, at: this.sim.now().toISOString(), ...entry };
    this.log.push(full);
    return full;
  }

  calls(filter: { operation?: string; location?: string } = {}): CallLogEntry[] {
    return this.log
      .filter((c) => (!filter.operation || c.operation === filter.operation) && (!filter.location || c.locationCode === filter.location))
      .map((c) => ({ ...c, params: { ...c.params } }));
  }

  clearCalls(): void {
    this.log = [];
  }

  addFault(rule: FaultRuleInput): FaultRule {
    return this.faults.add(rule);
  }

  listFaults(): FaultRule[] {
    return this.faults.list();
  }

  clearFaults(): void {
    this.faults.clear();
  }

  // -------------------------------------------------------------- helpers

  requireSite(code: string): SiteRecord {
    const site = this.sim.site(code);
    if (!site) throw new ControlError(404, `No site with location code ${code}`);
    return site;
  }

  /** The gate code a new tenant would get (used by tests that set a tenant up by hand). */
  nextAccessCode(code: string): string {
    return nextAccessCode(this.requireSite(code));
  }

  ledger(code: string, ledgerId: number): LedgerRecord | undefined {
    return this.requireSite(code).ledgers.find((l) => l.LedgerID === ledgerId);
  }

  today(code: string): string {
    const site = this.requireSite(code);
    return localParts(this.sim.now(), site.timeZone).date;
  }
}

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

// ------------------------------------------------------------------ HTTP

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
    return value as Record<string, unknown>;
  } catch {
    throw new ControlError(400, "The body must be a JSON object");
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, null, 2);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * /__sim/ routes (JSON in, JSON out):
 *   GET    /__sim/health
 *   POST   /__sim/reset                          {seed?: "demo" | "empty"}
 *   GET    /__sim/state                          whole state (card numbers masked)
 *   PUT    /__sim/state                          load a snapshot
 *   POST   /__sim/sites                          seedSite(fixture)
 *   GET    /__sim/sites/:code                    one site
 *   PATCH  /__sim/sites/:code                    configureSite(patch), e.g. {"readings": {"payMethod": "manual", "successCode": "zero"}}
 *   POST   /__sim/sites/:code/unit-types         createUnitType(input)
 *   POST   /__sim/sites/:code/units/:id/status   {status}
 *   POST   /__sim/sites/:code/units/:id/rates    {stdRate?, webRate?} (cents)
 *   POST   /__sim/sites/:code/tenants            addOfficeTenant({firstName, lastName, email, webPassword?, unitId?})
 *   POST   /__sim/sites/:code/ledgers/:id/move-out  the office moves the tenant out
 *   POST   /__sim/clock                          {to?, advanceMs?, advanceDays?}
 *   POST   /__sim/billing/run                    {date?, location?}
 *   GET    /__sim/calls?operation=&location=     call log (card fields redacted)
 *   DELETE /__sim/calls
 *   GET    /__sim/faults | POST /__sim/faults {operation, kind, nth?, times?, ms?, retCode?, retMsg?} | DELETE /__sim/faults
 */
export async function handleControl(control: SimControl, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const parts = url.pathname.replace(/^\/__sim\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const method = req.method ?? "GET";
  try {
    const body = method === "GET" || method === "DELETE" ? {} : await readJson(req);
    const [a, b, c, d, e] = parts;
    if (a === "health" && method === "GET") return send(res, 200, { ok: true, now: control.sim.now().toISOString() });
    if (a === "reset" && method === "POST") {
      control.reset(body.seed === "empty" || body.seed === "demo" ? body.seed : undefined);
      return send(res, 200, { ok: true });
    }
    if (a === "state" && method === "GET") return send(res, 200, control.inspect());
    if (a === "state" && method === "PUT") {
      control.load(body as unknown as SimState);
      return send(res, 200, { ok: true });
    }
    if (a === "sites" && !b && method === "POST") return send(res, 201, control.seedSite(body as unknown as SiteFixture));
    if (a === "sites" && b && !c && method === "GET") return send(res, 200, control.inspectSite(b));
    if (a === "sites" && b && !c && method === "PATCH") {
      control.configureSite(b, body as SiteConfigPatch);
      return send(res, 200, control.inspectSite(b));
    }
    if (a === "sites" && b && c === "unit-types" && method === "POST") return send(res, 201, control.createUnitType(b, body as unknown as UnitTypeInput));
    if (a === "sites" && b && c === "units" && d && e === "status" && method === "POST") {
      const unit = control.setUnitStatus(b, Number(d), String(body.status) as UnitStatus);
      return send(res, 200, unit);
    }
    if (a === "sites" && b && c === "units" && d && e === "rates" && method === "POST") {
      control.setUnitRates(b, [Number(d)], body as { stdRate?: number; webRate?: number });
      return send(res, 200, { ok: true });
    }
    if (a === "sites" && b && c === "tenants" && !d && method === "POST") {
      return send(res, 201, control.addOfficeTenant(b, body as { firstName: string; lastName: string; email: string; webPassword?: string; unitId?: number }));
    }
    if (a === "sites" && b && c === "ledgers" && d && e === "move-out" && method === "POST") {
      control.moveOut(b, Number(d));
      return send(res, 200, { ok: true });
    }
    if (a === "clock" && method === "POST") return send(res, 200, control.setClock(body as { to?: string; advanceMs?: number; advanceDays?: number }));
    if (a === "billing" && b === "run" && method === "POST") return send(res, 200, control.runBilling(body as { date?: string; location?: string }));
    if (a === "calls" && method === "GET") {
      return send(res, 200, control.calls({ operation: url.searchParams.get("operation") ?? undefined, location: url.searchParams.get("location") ?? undefined }));
    }
    if (a === "calls" && method === "DELETE") {
      control.clearCalls();
      return send(res, 200, { ok: true });
    }
    if (a === "faults" && method === "GET") return send(res, 200, control.listFaults());
    if (a === "faults" && method === "POST") return send(res, 201, control.addFault(body as unknown as FaultRuleInput));
    if (a === "faults" && method === "DELETE") {
      control.clearFaults();
      return send(res, 200, { ok: true });
    }
    return send(res, 404, { error: `No control route ${method} ${url.pathname}` });
  } catch (err) {
    if (err instanceof ControlError) return send(res, err.status, { error: err.message });
    return send(res, 400, { error: err instanceof Error ? err.message : String(err) });
  }
}
