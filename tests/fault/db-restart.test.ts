/**
 * Fault test (issue 14): the database restarts while people browse and rent.
 *
 * A private PostgreSQL (tests/fault/support/pg-cluster.ts; never the machine's shared one) is
 * migrated and seeded, and the BUILT server runs on it (NODE_ENV=production). Visitors browse and
 * FAULT_RENTERS renters go through whole rentals over HTTP (details, protection, review, e-sign, card)
 * while PostgreSQL is stopped in fast mode for FAULT_DOWN_MS and started again. Renters click again
 * on a 503 (or 500, timeout, refused) until done or the time budget runs out.
 *
 * Then: the server never exited; while the DB was down every answer was 2xx/3xx or 503 (no 500, no
 * hang over 10 s); a page that needs the database (the rental page, never cached) answers 200 again
 * within FAULT_RECOVERY_MS of the DB's return; and in the
 * database nothing was lost or charged twice. A one-line JSON summary is printed (FAULT_SUMMARY …)
 * and, with FAULT_SUMMARY_FILE set, appended to that file (bench/db-restart-runs.mjs reads it).
 *
 * The server runs under a tiny supervisor (restart after 1 s, like systemd Restart=always) so the
 * rest of the run is still measured after a crash; FAULT_SUPERVISE=0 turns that off.
 *
 * The moment of the stop: from FAULT_STOP_AT_MS on, the test watches pg_stat_activity and stops the
 * database the instant a move-in transaction is open (support/stop-moment.ts), else any transaction
 * after FAULT_MOVE_IN_WAIT_MS, else at once after FAULT_ANY_TX_WAIT_MS more (FAULT_STOP_MOMENT=timed:
 * just at FAULT_STOP_AT_MS). The summary says which it was.
 *
 * Knobs (env): FAULT_RENTERS=6 FAULT_STOP_AT_MS=3000 FAULT_MOVE_IN_WAIT_MS=20000 FAULT_ANY_TX_WAIT_MS=2000
 * FAULT_DOWN_MS=6000 FAULT_BUDGET_MS=60000 FAULT_RECOVERY_MS=5000 FAULT_SUPERVISE=1 FAULT_WALK_AWAY=0
 * FAULT_SWEEP_WAIT_MS (30000 with walk-aways)
 * PG_BIN=/usr/lib/postgresql/15/bin; FAULT_VERBOSE=1 prints each renter's trail and the server's
 * output, FAULT_REPORT_DIR=dir writes them to a file.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { LOCATION, prepareDatabase, UNIT_TYPE_PAGE } from "./support/database";
import { clusterSkipReason, createCluster, type PgCluster } from "./support/pg-cluster";
import { startServer, type ServerHandle } from "./support/server";
import { countOutcomes, Recorder, Visitor, type Sample } from "./support/http";
import { rent, renterSpec, type RentalResult } from "./support/rental";
import { baseline, checkInvariants, readGatewayLog, type Baseline, type Findings } from "./support/invariants";
import { sleep } from "./support/ports";
import { waitForStopMoment, type StopMoment } from "./support/stop-moment";

const num = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const RENTERS = num("FAULT_RENTERS", 6);
const STOP_AT_MS = num("FAULT_STOP_AT_MS", 3000);
const DOWN_MS = num("FAULT_DOWN_MS", 6000);
const BUDGET_MS = num("FAULT_BUDGET_MS", 60_000);
const RECOVERY_MS = num("FAULT_RECOVERY_MS", 5000);
/**
 * After FAULT_STOP_AT_MS, how long to wait for a move-in transaction (the first renter paying; later
 * under a loaded machine), then for any transaction, to stop in.
 */
const MOVE_IN_WAIT_MS = num("FAULT_MOVE_IN_WAIT_MS", 20_000);
const ANY_TX_WAIT_MS = num("FAULT_ANY_TX_WAIT_MS", 2000);
const SUPERVISE = process.env.FAULT_SUPERVISE !== "0";
/**
 * Renters (from the first, whose payment is the one the stop is aimed at) who close the tab when their
 * payment gets no answer instead of clicking again. Off by default. With it, whatever the gateway
 * approved for them must end up recorded (or refunded) by the server alone, within FAULT_SWEEP_WAIT_MS
 * of the renters finishing: that is the recovery sweep's job.
 */
const WALK_AWAY = num("FAULT_WALK_AWAY", 0);
const SWEEP_WAIT_MS = num("FAULT_SWEEP_WAIT_MS", WALK_AWAY ? 30_000 : 0);
const VERBOSE = process.env.FAULT_VERBOSE === "1";

const BROWSE = ["/", "/view-locations", `/locations/${LOCATION}`, "/units", UNIT_TYPE_PAGE];

const skip = clusterSkipReason();
if (skip) console.warn(`[fault] db-restart skipped: ${skip}`);

interface Run {
  t0: number;
  stopMoment: StopMoment;
  downFrom: number;
  downTo: number;
  /** ms from the DB's return to the first 200 of GET /rent/:id (null: never within the wait). */
  recoveryMs: number | null;
  readyz: { before: number | string; during: Record<string, number>; after: number | string | null };
  renters: RentalResult[];
  findings: Findings | null;
  durationMs: number;
}

let cluster: PgCluster | undefined;
let server: ServerHandle | undefined;
let runDir = "";
const recorder = new Recorder();
let run: Run | undefined;
let base: Baseline;

describe.skipIf(Boolean(skip))("the server keeps running through a PostgreSQL restart", () => {
  beforeAll(async () => {
    const started = Date.now();
    runDir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-fault-run-"));
    const gatewayLog = path.join(runDir, "gateway.jsonl");
    cluster = await createCluster();

    // Migrate and seed (scripts/db-setup.ts does the same), with stock of its own for the rented type.
    const unitTypeId = await prepareDatabase(cluster.url, { extraUnits: RENTERS + 2 });
    base = await baseline(cluster.url, unitTypeId);

    server = await startServer({
      env: { DATABASE_URL: cluster.url, PAYMENT_GATEWAY_LOG: gatewayLog },
      supervise: SUPERVISE,
    });
    const probe = new Visitor("probe", server.baseUrl, new Recorder());
    // Warm up (first renders compile nothing, but the pool opens its connections).
    for (const p of BROWSE) await probe.request("GET", p);
    const readyBefore = (await probe.request("GET", "/readyz")).outcome;

    // ---------------------------------------------------------------- the scenario
    const t0 = Date.now();
    const deadline = t0 + BUDGET_MS;
    let browsing = true;
    let giveUp = false;
    const runId = crypto.randomBytes(3).toString("hex");
    const think = () => 250 + Math.floor(Math.random() * 500);

    const renters = Array.from({ length: RENTERS }, async (_, i) => {
      await sleep(i * 500);
      const v = new Visitor(`renter-${i}`, server!.baseUrl, recorder);
      return rent(v, renterSpec(i, runId), {
        unitTypeId,
        unitTypePage: UNIT_TYPE_PAGE,
        deadline,
        thinkMs: think,
        shouldStop: () => giveUp,
        walkAwayOnPayFailure: i < WALK_AWAY,
      });
    });

    const browser = (async () => {
      const v = new Visitor("browser", server!.baseUrl, recorder);
      for (let i = 0; browsing && Date.now() < deadline; i++) {
        await v.request("GET", BROWSE[i % BROWSE.length]!);
        await sleep(150);
      }
    })();

    // The fault: fast stop (terminates every connection with 57P01), at a moment a transaction is in
    // flight (support/stop-moment.ts), down for DOWN_MS, started again.
    await sleep(STOP_AT_MS);
    const stopMoment = await waitForStopMoment(cluster.url, { moveInWaitMs: MOVE_IN_WAIT_MS, anyWaitMs: ANY_TX_WAIT_MS });
    const downFrom = Date.now();
    await cluster.stopFastNow();
    const readyDuring: Sample[] = [];
    const readyProbe = new Visitor("readyz", server.baseUrl, new Recorder());
    const downUntil = Date.now() + DOWN_MS;
    while (Date.now() < downUntil) {
      const r = await readyProbe.request("GET", "/readyz");
      readyDuring.push({ who: "readyz", method: "GET", path: "/readyz", start: 0, end: 0, outcome: r.outcome });
      await sleep(Math.min(500, Math.max(0, downUntil - Date.now())));
    }
    await cluster.start();
    const downTo = Date.now();

    // Back: how long until a page that needs the database answers 200 again? The rental page is never
    // cached (no-store) and reads the database, so a cached copy of a public page cannot fake it.
    let recoveryMs: number | null = null;
    const recoveryProbe = new Visitor("recovery", server.baseUrl, recorder);
    while (Date.now() - downTo < Math.max(RECOVERY_MS * 3, 15_000)) {
      const r = await recoveryProbe.request("GET", `/rent/${unitTypeId}`);
      if (r.status === 200) {
        recoveryMs = Date.now() - downTo;
        break;
      }
      await sleep(200);
    }
    // Without a supervisor a dead server never comes back: stop the renters instead of waiting out the budget.
    if (!SUPERVISE && server.exits.length) giveUp = true;
    const results = await Promise.all(renters);
    browsing = false;
    await browser;
    const readyAfter = (await probe.request("GET", "/readyz")).outcome;

    // Renters who walked away leave the server to finish (or give back) their payment by itself.
    let findings = await checkInvariants(cluster.url, base, results, readGatewayLog(gatewayLog));
    const sweepUntil = Date.now() + SWEEP_WAIT_MS;
    while (findings.chargesLost > 0 && Date.now() < sweepUntil) {
      await sleep(1000);
      findings = await checkInvariants(cluster.url, base, results, readGatewayLog(gatewayLog));
    }
    await server.stop();
    findings = await checkInvariants(cluster.url, base, results, readGatewayLog(gatewayLog));
    run = {
      t0,
      stopMoment,
      downFrom,
      downTo,
      recoveryMs,
      readyz: { before: readyBefore, during: countOutcomes(readyDuring), after: readyAfter },
      renters: results,
      findings,
      durationMs: Date.now() - started,
    };
  }, 150_000);

  afterAll(async () => {
    await server?.stop(3000);
    if (run) {
      const s = summary(run);
      console.log(`FAULT_SUMMARY ${JSON.stringify(s)}`);
      if (process.env.FAULT_SUMMARY_FILE) fs.appendFileSync(process.env.FAULT_SUMMARY_FILE, `${JSON.stringify(s)}\n`);
      if (VERBOSE || process.env.FAULT_REPORT_DIR) report(run);
    }
    cluster?.destroy();
    if (runDir) fs.rmSync(runDir, { recursive: true, force: true });
  }, 60_000);

  it("the server process never exits", () => {
    expect(server!.exits.map((e) => `exit code=${e.code} signal=${e.signal}\n${e.lastOutput}`)).toEqual([]);
  });

  it("while the database is down every answer is 2xx/3xx or 503: no 500, no hang, no refused connection", () => {
    const during = recorder.between(run!.downFrom, run!.downTo);
    expect(during.length).toBeGreaterThan(0);
    const bad = during.filter((s) => !(typeof s.outcome === "number" && (s.outcome < 500 || s.outcome === 503)));
    expect(firstOf(bad.map(describeSample))).toEqual([]);
  });

  it("no request answers 500, hangs or is refused at any time", () => {
    const bad = recorder.samples.filter((s) => !(typeof s.outcome === "number" && (s.outcome < 500 || s.outcome === 503)));
    expect(firstOf(bad.map(describeSample))).toEqual([]);
  });

  it(`a page that reads the database answers 200 again within ${RECOVERY_MS} ms of its return`, () => {
    expect(run!.recoveryMs).not.toBeNull();
    expect(run!.recoveryMs!).toBeLessThanOrEqual(RECOVERY_MS);
  });

  it("/readyz answers 200 before, 503 while the database is down, 200 after", () => {
    expect(run!.readyz.before).toBe(200);
    // 503 while the database is unreachable (a 200 from just before the pool noticed is tolerated).
    expect(run!.readyz.during["503"] ?? 0).toBeGreaterThan(0);
    expect(Object.keys(run!.readyz.during).filter((k) => k !== "503" && k !== "200")).toEqual([]);
    expect(run!.readyz.after).toBe(200);
  });

  it("every renter completes the rental and sees the confirmation (but those who walked away)", () => {
    expect(run!.renters.filter((r) => !r.confirmed && !r.walkedAway).map((r) => `${r.spec.email}: ${r.failure}`)).toEqual([]);
  });

  it("in the database nothing is lost or charged twice", () => {
    const f = run!.findings!;
    expect(firstOf(f.violations, 30)).toEqual([]);
    expect(f.chargesDoubled).toBe(0);
    expect(f.chargesLost).toBe(0);
    // One lease per confirmed renter; a renter who walked away may have one too (the sweep recorded the charge).
    const confirmed = run!.renters.filter((r) => r.confirmed).length;
    const walked = run!.renters.filter((r) => r.walkedAway).length;
    expect(f.leasesCreated).toBeGreaterThanOrEqual(confirmed);
    expect(f.leasesCreated).toBeLessThanOrEqual(confirmed + walked);
  });
});

/** At most `max` lines, then how many more (a failure message stays readable). */
function firstOf(lines: string[], max = 15): string[] {
  return lines.length <= max ? lines : [...lines.slice(0, max), `… and ${lines.length - max} more`];
}

function describeSample(s: Sample): string {
  return `${s.who} ${s.method} ${s.path} → ${s.outcome} after ${s.end - s.start} ms${s.error ? ` (${s.error})` : ""}`;
}

function isBad(s: Sample) {
  return !(typeof s.outcome === "number" && (s.outcome < 500 || s.outcome === 503));
}

function summary(r: Run) {
  const all = recorder.samples;
  const during = recorder.between(r.downFrom, r.downTo);
  const f = r.findings;
  return {
    test: "db-restart",
    exits: server?.exits.length ?? null,
    restarts: server?.restarts ?? null,
    requests: all.length,
    http500: all.filter((s) => s.outcome === 500).length,
    http503: all.filter((s) => s.outcome === 503).length,
    otherBad: all.filter((s) => isBad(s) && s.outcome !== 500 && s.outcome !== "timeout").length,
    hangs: all.filter((s) => s.outcome === "timeout").length,
    duringOutage: countOutcomes(during),
    badDuringOutage: during.filter(isBad).length,
    maxLatencyMs: Math.max(0, ...all.map((s) => s.end - s.start)),
    stopMoment: r.stopMoment,
    stopAtMs: r.downFrom - r.t0,
    downMs: r.downTo - r.downFrom,
    recoveryMs: r.recoveryMs,
    readyz: r.readyz,
    rentalsStarted: r.renters.length,
    rentalsCompleted: r.renters.filter((x) => x.confirmed).length,
    walkedAway: r.renters.filter((x) => x.walkedAway).length,
    renterRetries: r.renters.reduce((s, x) => s + x.retries, 0),
    leasesCreated: f?.leasesCreated ?? null,
    chargesDoubled: f?.chargesDoubled ?? null,
    chargesLost: f?.chargesLost ?? null,
    gatewaySameKeyRepeats: f?.gatewaySameKeyRepeats ?? null,
    violations: f?.violations.length ?? null,
    durationMs: r.durationMs,
  };
}

/** The long story, for a person reading a failure: each renter's trail, the violations, the server's last output. */
function report(r: Run) {
  const lines: string[] = [];
  lines.push(`stopped at a ${r.stopMoment} moment; outage ${r.downFrom - r.t0}..${r.downTo - r.t0} ms after start; recovery ${r.recoveryMs} ms`);
  for (const x of r.renters) {
    lines.push(`${x.spec.email}: ${x.confirmed ? `confirmed (gate ${x.gateCode})` : `NOT confirmed: ${x.failure}`}, ${x.retries} retries`);
    for (const t of x.trail) lines.push(`    ${t}`);
  }
  for (const v of r.findings?.violations ?? []) lines.push(`VIOLATION ${v}`);
  for (const e of server?.exits ?? []) lines.push(`EXIT code=${e.code} signal=${e.signal}\n${e.lastOutput}`);
  lines.push("---- server output (last lines)", ...(server?.output().split("\n").slice(-80) ?? []));
  const text = lines.join("\n");
  if (process.env.FAULT_REPORT_DIR) {
    fs.mkdirSync(process.env.FAULT_REPORT_DIR, { recursive: true });
    fs.writeFileSync(path.join(process.env.FAULT_REPORT_DIR, `db-restart-${Date.now()}.txt`), text);
  }
  if (VERBOSE) console.log(text);
}
