// `npm test`: every check and test, in stages (docs/decisions/286-npm-test-in-stages.md). The steps
// of a stage run at the same time (their output is held and printed whole as each ends); a stage
// starts when the one before it has passed. Prints how long each step and stage took, the CPU time
// of the stage's own processes, and the machine's CPU time over each stage (all processes, so other
// work on the machine shows too). docs/testing.md has the times measured.
//
// The same steps as the separate scripts (typecheck, lint, test:unit, test:integration, test:e2e,
// test:fault), without running `react-router typegen` twice or two typegens at once.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * A step is [label, command, args, env?, after?]: `after` is the label of a step of the same stage it
 * waits for (it starts when that one has passed, and does not run if it failed).
 * @type {Array<{ name: string; steps: Array<[string, string, string[], Record<string, string>?, string?]> }>}
 */
const STAGES = [
  { name: "route types", steps: [["react-router typegen", "react-router", ["typegen"]]] },
  // Alone: some unit tests start processes with time limits, which a starved CPU would miss. Two
  // workers (vitest.config.ts), so the stage uses both cores (decision 520).
  { name: "unit", steps: [["unit (vitest)", "vitest", ["run", "--project", "unit"]]] },
  {
    // Single-threaded tools without time limits, side by side; the integration tests start as soon as
    // the build is there (the built server's files import it) and fill what the tools leave of the two
    // cores, and the tools fill the integration tests' waits on PostgreSQL and their tail (decision 524).
    name: "static checks, build and integration",
    steps: [
      ["build (react-router build)", "react-router", ["build"]],
      ["typecheck (tsc)", "tsc", []],
      ["lint (eslint)", "eslint", ["."]],
      ["lint (knip)", "knip", []],
      // Both drivers' files share two workers and the PostgreSQL server.
      ["integration (vitest, both drivers)", "vitest", ["run", "--project", "integration*"], undefined, "build (react-router build)"],
    ],
  },
  // Alone: CPU-bound (decision 285), and a starved browser turns its waits into flaky failures.
  { name: "browser", steps: [["browser (playwright)", "playwright", ["test"], { E2E_WORKERS: process.env.E2E_WORKERS ?? "2" }]] },
  // Alone, two files at a time (decision 701): its checks have time limits (no hang over 10 s, a change
  // seen within 5 s), and beside the unit tests on a loaded machine one of them was missed (decision 520).
  { name: "fault", steps: [["fault (vitest)", "vitest", ["run", "--project", "fault"]]] },
];

/**
 * CPU seconds used so far by this script's finished children and everything they waited for (Linux:
 * cutime + cstime of /proc/self/stat), or null: the tests' own CPU time, whatever else the machine runs.
 */
function ownCpuSeconds() {
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    // The fields after the command name (which may hold spaces), from field 3 on: cutime and cstime are fields 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
    return (fields[13] + fields[14]) / 100;
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine so far (Linux), or null. */
function machineCpuSeconds() {
  try {
    const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    return (user + nice + system + irq + softirq + (steal ?? 0)) / 100;
  } catch {
    return null;
  }
}

function run([label, command, args, env], buffered) {
  return new Promise((resolve) => {
    const started = Date.now();
    const PATH = `${path.resolve("node_modules/.bin")}${path.delimiter}${process.env.PATH ?? ""}`;
    const child = spawn(command, args, { env: { ...process.env, PATH, ...env }, stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit" });
    const chunks = [];
    if (buffered) {
      child.stdout.on("data", (c) => chunks.push(c));
      child.stderr.on("data", (c) => chunks.push(c));
    }
    const done = (code) => {
      const seconds = (Date.now() - started) / 1000;
      if (buffered) {
        process.stdout.write(`\n===== ${label}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${seconds.toFixed(1)} s =====\n`);
        process.stdout.write(Buffer.concat(chunks));
      }
      resolve({ label, code, seconds });
    };
    child.on("error", (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      done(127);
    });
    child.on("exit", (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

const results = [];
let failed = false;
const total = Date.now();
for (const stage of STAGES) {
  const started = Date.now();
  const cpu = machineCpuSeconds();
  const own = ownCpuSeconds();
  process.stdout.write(`\n##### ${stage.name} #####\n`);
  /** @type {Map<string, Promise<{ label: string; code: number; seconds: number }>>} */
  const running = new Map();
  for (const step of stage.steps) {
    const after = step[4] === undefined ? undefined : running.get(step[4]);
    if (step[4] !== undefined && !after) throw new Error(`${step[0]}: waits for "${step[4]}", which is not an earlier step of its stage`);
    const buffered = stage.steps.length > 1;
    running.set(
      step[0],
      after
        ? after.then((first) => (first.code === 0 ? run(step, buffered) : { label: step[0], code: 1, seconds: 0, skipped: `${first.label} failed` }))
        : run(step, buffered),
    );
  }
  const outcomes = await Promise.all(running.values());
  const cpuUsed = cpu === null ? null : machineCpuSeconds() - cpu;
  const ownUsed = own === null ? null : ownCpuSeconds() - own;
  results.push({ stage: stage.name, seconds: (Date.now() - started) / 1000, cpu: cpuUsed, own: ownUsed, outcomes });
  if (outcomes.some((o) => o.code !== 0)) {
    failed = true;
    break;
  }
}

process.stdout.write("\n##### npm test: time per stage #####\n");
for (const r of results) {
  const own = r.own === null ? "" : `, its own CPU ${r.own.toFixed(0)} s`;
  const cpu = r.cpu === null ? "" : `, machine CPU ${r.cpu.toFixed(0)} s`;
  process.stdout.write(`${r.stage}: ${r.seconds.toFixed(1)} s${own}${cpu}\n`);
  for (const o of r.outcomes) process.stdout.write(`  ${o.code === 0 ? "ok  " : "FAIL"} ${o.label}: ${o.skipped ? `not run (${o.skipped})` : `${o.seconds.toFixed(1)} s`}\n`);
}
process.stdout.write(`total: ${((Date.now() - total) / 1000).toFixed(1)} s${failed ? " (stopped at the first stage that failed)" : ""}\n`);
process.exit(failed ? 1 : 0);
