// wrk: runs one measurement and reads its report (requests/s, p50/p99 latency, errors).
import { execFile, execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";

export const hasWrk = () => !spawnSync("wrk", ["--version"]).error;

/** wrk prints latencies as "812.00us", "1.23ms" or "1.02s". */
function toMs(value) {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value);
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : n * 60_000;
}

/**
 * One wrk run against `url`. Browsers ask for compressed pages: every run sends
 * `Accept-Encoding: gzip` (and `headers`, e.g. a session cookie).
 */
export function wrk(url, options) {
  return parse(execFileSync("wrk", wrkArgs(url, options), { encoding: "utf8" }));
}

/** The same, without blocking (to sample the server's memory while wrk runs). */
export function wrkAsync(url, options) {
  return new Promise((resolve, reject) => {
    execFile("wrk", wrkArgs(url, options), { encoding: "utf8" }, (error, out) => (error ? reject(error) : resolve(parse(out))));
  });
}

function wrkArgs(url, { threads, connections, seconds, timeout, headers = [], script }) {
  const args = ["-t", String(threads), "-c", String(connections), "-d", `${seconds}s`, "--timeout", `${timeout}s`, "--latency", "-H", "Accept-Encoding: gzip"];
  for (const h of headers) args.push("-H", h);
  if (script) args.push("-s", script);
  args.push(url);
  return args;
}

function parse(out) {
  const percentile = (p) => toMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(out)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = (/Socket errors: (.*)/.exec(out)?.[1]?.match(/\d+/g) ?? []).reduce((a, b) => a + Number(b), 0);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    p50: percentile(50),
    p99: percentile(99),
    errors: non2xx + socketErrors,
  };
}

/** A wrk Lua script that sends `paths` in turn (each connection its own position), e.g. the filter combinations of /units. */
export function pathsScript(file, paths) {
  const list = paths.map((p) => JSON.stringify(p)).join(", ");
  fs.writeFileSync(file, `local paths = { ${list} }\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format(nil, paths[i])\nend\n`);
  return file;
}
