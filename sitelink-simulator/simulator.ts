/**
 * The simulator's core: state, clock, .NET ticks, authentication, parameter checks and dispatch of
 * one bound SOAP call to its operation. No HTTP here (server.ts), no test controls (control.ts).
 */
import { loadContract, type Contract } from "./contract";
import { demoState } from "./seed";
import type { SimState, SiteRecord, UnitRecord } from "./state";
import { localParts, offsetOf, ticksOf } from "./values";
import type { Bound, ParsedCall, ResultTable } from "./wire";
import { rt } from "./helpers";
import { SoapFaultError } from "./wire";
import { operations } from "./operations/index";

export interface SimulatorOptions {
  /** "demo" (default): the demo corp; "empty": the corp with no sites; or a full state (snapshot). */
  seed?: "demo" | "empty" | SimState;
  /** Base clock (default: the system clock). The control API can fix or advance it. */
  clock?: () => Date;
  /** Write dateTime cells with the site's UTC offset ("2026-11-24T00:00:00-05:00", default) or without. */
  dateTimeOffset?: boolean;
  /** Answer bad credentials with an RT row (default, HTTP 200) or a SOAP Fault (HTTP 500). Decision 107. */
  authFailure?: "rt" | "fault";
  /** Where the simulator writes its log lines (never console.error: tests fail on it). */
  log?: (line: string) => void;
}

export interface OpContext {
  sim: SiteLinkSimulator;
  operation: string;
  /** The site named by sLocationCode; null for a corp-wide call (TenantSearchDetailed with no location). */
  site: SiteRecord | null;
  params: Record<string, Bound>;
  present: Set<string>;
  now: Date;
  /** The site's (or the corp's first site's) wall clock: YYYY-MM-DD and YYYY-MM-DDTHH:MM:SS. */
  today: string;
  nowLocal: string;
}

export type OpHandler = (ctx: OpContext) => ResultTable[];

/** Operations that may be called with an empty sLocationCode (search every site of the corp, S3 §7.102). */
const CORP_WIDE = new Set(["TenantSearchDetailed"]);

/** Ret_Msg of the silent -1 (missing / misspelled parameter), LK-R wording where known. */
const MISSING_PARAM_MESSAGE: Record<string, string> = {
  LedgersByTenantID_v3: "Error retrieving ledger data from the server",
  ChargesAllByLedgerID: "Error retrieving ledger data from the server",
  PaymentsByLedgerID: "Error retrieving ledger data from the server",
  MoveInWithDiscount_v7: "Failed to save move in",
};

export class SiteLinkSimulator {
  readonly contract: Contract = loadContract();
  state: SimState;
  readonly options: Required<Omit<SimulatorOptions, "seed" | "clock" | "log">>;
  private readonly baseClock: () => Date;
  readonly log: (line: string) => void;

  constructor(options: SimulatorOptions = {}) {
    this.baseClock = options.clock ?? (() => new Date());
    this.log = options.log ?? (() => {});
    this.options = { dateTimeOffset: options.dateTimeOffset ?? true, authFailure: options.authFailure ?? "rt" };
    this.startSeed = options.seed ?? "demo";
    this.state = this.initialState(this.startSeed);
  }

  /** What the simulator started from (reset() goes back to it). */
  readonly startSeed: "demo" | "empty" | SimState;

  initialState(seed: "demo" | "empty" | SimState): SimState {
    if (seed === "demo") return demoState(this.baseClock());
    if (seed === "empty") {
      const s = demoState(this.baseClock());
      s.sites = [];
      return s;
    }
    return structuredClone(seed);
  }

  /** The simulator's "now": the base clock, or the fixed time, plus advanceClock offsets. */
  now(): Date {
    const base = this.state.clockFixed ? new Date(this.state.clockFixed) : this.baseClock();
    return new Date(base.getTime() + this.state.clockOffsetMs);
  }

  /** A .NET tick value later than every one handed out before (changes and polls). */
  issueTicks(): string {
    const now = ticksOf(this.now());
    const last = BigInt(this.state.lastTicks);
    const next = now > last ? now : last + 1n;
    this.state.lastTicks = next.toString();
    return this.state.lastTicks;
  }

  /** Marks a unit changed (it will appear in the next incremental UnitsInformation poll). */
  touch(site: SiteRecord, unit: UnitRecord): void {
    unit.updatedTicks = this.issueTicks();
    const l = localParts(this.now(), site.timeZone);
    unit.updatedAt = `${l.date}T${l.time}`;
  }

  site(code: string): SiteRecord | undefined {
    return this.state.sites.find((s) => s.sLocationCode === code);
  }

  localNow(site: SiteRecord | null): { today: string; nowLocal: string } {
    const tz = site?.timeZone ?? this.state.sites[0]?.timeZone ?? "America/New_York";
    const l = localParts(this.now(), tz);
    return { today: l.date, nowLocal: `${l.date}T${l.time}` };
  }

  /** A date ("YYYY-MM-DD") or wall-clock datetime as a DataSet dateTime cell. */
  dt(site: SiteRecord | null, value: string | null | undefined): string | null {
    if (!value) return null;
    const full = value.length === 10 ? `${value}T00:00:00` : value.slice(0, 19);
    if (!this.options.dateTimeOffset) return full;
    const tz = site?.timeZone ?? "America/New_York";
    const approx = new Date(`${full.slice(0, 10)}T12:00:00Z`);
    return `${full}${offsetOf(approx, tz)}`;
  }

  /** Refreshes derived unit flags: a reservation whose dExpires has passed no longer reserves the unit. */
  sweep(site: SiteRecord, nowLocal: string): void {
    for (const unit of site.units) {
      const reserved = site.reservations.some(
        (r) => r.UnitID === unit.UnitID && r.iWaitingStatus === 0 && r.dExpires > nowLocal,
      );
      if (reserved !== unit.waitingListReserved) {
        unit.waitingListReserved = reserved;
        this.touch(site, unit);
      }
    }
  }

  /**
   * Runs one bound call: authentication, location, the silent -1 for a missing parameter, then the
   * operation. Returns the DataSet tables, or throws SoapFaultError.
   */
  execute(call: ParsedCall): ResultTable[] {
    const p = call.params;
    const corp = this.state.corp;
    const credentialsOk =
      p.sCorpCode === corp.corpCode && p.sCorpUserName === `${corp.userName}:::${corp.apiKey}` && p.sCorpPassword === corp.password;
    if (!credentialsOk) {
      this.log(`sitelink-simulator: ${call.operation}: bad corp credentials`);
      if (this.options.authFailure === "fault") {
        throw new SoapFaultError("soap:Server", "Server was unable to process request. ---> Invalid corporate code, user name or password.");
      }
      return [rt(-1, "Invalid corporate code, user name or password.")];
    }
    const code = typeof p.sLocationCode === "string" ? p.sLocationCode : "";
    let site: SiteRecord | null = null;
    if (code === "" && CORP_WIDE.has(call.operation)) site = null;
    else {
      site = this.site(code) ?? null;
      if (!site) return [rt(-1, `Invalid location code: ${code}`)];
    }
    const missing = call.op.params.filter((x) => !x.optional && !this.contract.authParams.includes(x.name) && !call.present.has(x.name));
    if (missing.length) {
      this.log(`sitelink-simulator: ${call.operation}: missing ${missing.map((m) => m.name).join(", ")} -> RT -1`);
      return [rt(-1, MISSING_PARAM_MESSAGE[call.operation] ?? "General failure")];
    }
    const handler = operations[call.operation];
    if (!handler) throw new SoapFaultError("soap:Server", `Server was unable to process request. ---> Operation ${call.operation} is not implemented by the simulator.`);
    const { today, nowLocal } = this.localNow(site);
    for (const s of site ? [site] : this.state.sites) this.sweep(s, nowLocal);
    return handler({ sim: this, operation: call.operation, site, params: p, present: call.present, now: this.now(), today, nowLocal });
  }
}
