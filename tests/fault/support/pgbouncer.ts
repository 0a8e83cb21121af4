/**
 * PgBouncer running the checked-in deploy/pgbouncer.ini in front of a private PostgreSQL (issue 41):
 * its [databases] line pointed at that cluster, its port a free one, trust instead of SCRAM (the
 * private cluster trusts), its log and auth file in a temp directory. Debian's `pgbouncer` package
 * (/usr/sbin/pgbouncer); it refuses to run as root, so it is started with `-u postgres`. A child
 * process in the foreground, stopped by its PID.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, sleep } from "./ports";
import { REPO_ROOT } from "./server";

const PGBOUNCER_BIN = process.env.PGBOUNCER ?? "/usr/sbin/pgbouncer";
const PG_USER = process.env.PG_SUPERUSER_OS ?? "postgres";

export function pgbouncerSkipReason(): string | null {
  return spawnSync(PGBOUNCER_BIN, ["--version"]).error ? `pgbouncer not found at ${PGBOUNCER_BIN} (set PGBOUNCER; Debian's package: apt-get install pgbouncer)` : null;
}

/** deploy/pgbouncer.ini with the addresses and files of this test. */
function deployConfig(options: { listenPort: number; pgPort: number; dir: string }): string {
  let conf = fs.readFileSync(path.join(REPO_ROOT, "deploy/pgbouncer.ini"), "utf8");
  const set = (key: string, value: string) => {
    const re = new RegExp(`^${key} = .*$`, "m");
    if (!re.test(conf)) throw new Error(`deploy/pgbouncer.ini has no "${key} = " line`);
    conf = conf.replace(re, `${key} = ${value}`);
  };
  conf = conf.replace(/^gatehouse = host=\S+ port=\d+ /m, `gatehouse = host=127.0.0.1 port=${options.pgPort} `);
  if (!conf.includes(`port=${options.pgPort} `)) throw new Error("deploy/pgbouncer.ini has no `gatehouse = host=… port=…` line");
  set("listen_port", String(options.listenPort));
  set("auth_type", "trust");
  set("auth_file", path.join(options.dir, "userlist.txt"));
  set("logfile", path.join(options.dir, "pgbouncer.log"));
  set("pidfile", path.join(options.dir, "pgbouncer.pid"));
  return conf;
}

export interface PgBouncer {
  port: number;
  /** postgres://… of the `gatehouse` database through the pooler. */
  url: string;
  /** PgBouncer's log (for a failing test's report). */
  log(): string;
  stop(): Promise<void>;
}

export async function startPgBouncer(pgPort: number, options: { port?: number } = {}): Promise<PgBouncer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-fault-pgbouncer-"));
  fs.chmodSync(dir, 0o755);
  const port = options.port ?? (await freePort());
  fs.writeFileSync(path.join(dir, "userlist.txt"), `"postgres" ""\n`, { mode: 0o644 });
  fs.writeFileSync(path.join(dir, "pgbouncer.ini"), deployConfig({ listenPort: port, pgPort, dir }), { mode: 0o644 });
  spawnSync("chown", ["-R", PG_USER, dir]);
  const child = spawn(PGBOUNCER_BIN, ["-u", PG_USER, path.join(dir, "pgbouncer.ini")], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (b: Buffer) => (output = (output + b.toString("utf8")).slice(-20_000)));
  child.stderr!.on("data", (b: Buffer) => (output = (output + b.toString("utf8")).slice(-20_000)));
  const gone = new Promise<void>((r) => child.once("exit", () => r()));
  process.on("exit", () => child.kill("SIGKILL"));
  const readLog = () => {
    try {
      return fs.readFileSync(path.join(dir, "pgbouncer.log"), "utf8");
    } catch {
      return output;
    }
  };
  // Up when it logs that it listens on its port.
  for (let i = 0; !readLog().includes(`listening on 127.0.0.1:${port}`); i++) {
    if (child.exitCode !== null || i > 100) throw new Error(`pgbouncer did not start:\n${output}\n${readLog()}`);
    await sleep(50);
  }
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/gatehouse`,
    log: readLog,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      await gone;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
