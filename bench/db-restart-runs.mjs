#!/usr/bin/env node
// Runs the PostgreSQL-restart fault test (tests/fault/db-restart.test.ts) N times and prints the
// totals, for docs/operations.md ("Measured").
//
//   node bench/db-restart-runs.mjs            # 10 runs
//   node bench/db-restart-runs.mjs 3          # 3 runs
//   RUNS=20 node bench/db-restart-runs.mjs
//
// Needs root and the PostgreSQL binaries (the test runs a private cluster; see the test's header).
// The FAULT_* knobs of the test pass through (e.g. FAULT_DOWN_MS=10000). Each run's one-line JSON
// summary is read from FAULT_SUMMARY_FILE; the exit code is 0 only when every run passed.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const runs = Number(process.argv[2] ?? process.env.RUNS ?? 10);
if (!Number.isInteger(runs) || runs < 1) {
  console.error("usage: node bench/db-restart-runs.mjs [runs]");
  process.exit(2);
}
const root = path.resolve(import.meta.dirname, "..");
const summaryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-fault-bench-")), "summaries.jsonl");

const rows = [];
let passed = 0;
for (let i = 1; i <= runs; i++) {
  const before = fs.existsSync(summaryFile) ? fs.readFileSync(summaryFile, "utf8").split("\n").filter(Boolean).length : 0;
  const started = Date.now();
  const r = spawnSync("npx", ["vitest", "run", "--project", "fault", "tests/fault/db-restart.test.ts"], {
    cwd: root,
    env: { ...process.env, FAULT_SUMMARY_FILE: summaryFile, FORCE_COLOR: "0" },
    encoding: "utf8",
    timeout: 300_000,
  });
  const lines = fs.existsSync(summaryFile) ? fs.readFileSync(summaryFile, "utf8").split("\n").filter(Boolean) : [];
  const s = lines.length > before ? JSON.parse(lines.at(-1)) : null;
  const ok = r.status === 0;
  if (ok) passed++;
  rows.push({ ok, s });
  const secs = ((Date.now() - started) / 1000).toFixed(0);
  if (!s) {
    console.log(`run ${i}/${runs}: no summary (vitest exit ${r.status}, ${secs} s)\n${(r.stdout + r.stderr).split("\n").slice(-30).join("\n")}`);
    continue;
  }
  console.log(
    `run ${i}/${runs}: ${ok ? "PASS" : "FAIL"} ${secs} s  exits=${s.exits} 500s=${s.http500} hangs=${s.hangs} refused/other=${s.otherBad} 503s=${s.http503} ` +
      `badWhileDown=${s.badDuringOutage} recovery=${s.recoveryMs}ms rentals=${s.rentalsCompleted}/${s.rentalsStarted} ` +
      `walkedAway=${s.walkedAway ?? 0} doubled=${s.chargesDoubled} lost=${s.chargesLost} violations=${s.violations} ` +
      `sameKeyRepeats=${s.gatewaySameKeyRepeats} stop=${s.stopMoment}@${s.stopAtMs}ms`,
  );
}

const got = rows.map((r) => r.s).filter(Boolean);
const sum = (k) => got.reduce((t, s) => t + (Number(s[k]) || 0), 0);
const recoveries = got.map((s) => s.recoveryMs).filter((v) => v != null).sort((a, b) => a - b);
const totals = {
  runs,
  passed,
  withSummary: got.length,
  exits: sum("exits"),
  runsWithExit: got.filter((s) => s.exits > 0).length,
  http500: sum("http500"),
  hangs: sum("hangs"),
  refusedOrOther: sum("otherBad"),
  http503: sum("http503"),
  badWhileDown: sum("badDuringOutage"),
  rentalsStarted: sum("rentalsStarted"),
  rentalsCompleted: sum("rentalsCompleted"),
  chargesDoubled: sum("chargesDoubled"),
  chargesLost: sum("chargesLost"),
  violations: sum("violations"),
  neverRecovered: got.filter((s) => s.recoveryMs == null).length,
  recoveryMsMedian: recoveries.length ? recoveries[Math.floor(recoveries.length / 2)] : null,
  recoveryMsMax: recoveries.length ? recoveries.at(-1) : null,
  stopMoments: got.reduce((m, s) => ({ ...m, [s.stopMoment]: (m[s.stopMoment] ?? 0) + 1 }), {}),
};
console.log(`\nTOTALS ${JSON.stringify(totals)}`);
console.log(
  `\n| runs | passed | server exits | 500s | hangs >10 s | refused | 503s | rentals completed | charged twice | charges lost | invariant violations (all) | back to 200 (median / max) |\n` +
    `|---|---|---|---|---|---|---|---|---|---|---|---|\n` +
    `| ${runs} | ${passed} | ${totals.exits} (in ${totals.runsWithExit} runs) | ${totals.http500} | ${totals.hangs} | ${totals.refusedOrOther} | ${totals.http503} | ` +
    `${totals.rentalsCompleted}/${totals.rentalsStarted} | ${totals.chargesDoubled} | ${totals.chargesLost} | ${totals.violations} | ${totals.recoveryMsMedian} / ${totals.recoveryMsMax} ms |`,
);
fs.rmSync(path.dirname(summaryFile), { recursive: true, force: true });
process.exit(passed === runs ? 0 : 1);
