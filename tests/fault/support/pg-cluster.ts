/**
 * A private, throwaway PostgreSQL cluster for the fault tests: initdb in a temp directory, on a free
 * port, with its socket in that directory. It is the only PostgreSQL these tests ever stop; the
 * machine's shared server (port 5432) is never touched.
 *
 * initdb and the server refuse to run as root, so every pg_ctl call goes through
 * `su postgres -s /bin/bash -c …`: the tests need root (to switch user) and the PostgreSQL binaries.
 */
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./ports";

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const PG_USER = process.env.PG_SUPERUSER_OS ?? "postgres";

/** Why the private cluster cannot be made here, or null when it can. */
export function clusterSkipReason(): string | null {
  if (process.platform !== "linux") return "the fault tests run a private PostgreSQL and need Linux";
  if (process.getuid?.() !== 0) return "the fault tests need root: they run initdb/pg_ctl as the postgres user through su";
  if (!fs.existsSync(path.join(PG_BIN, "initdb"))) return `initdb not found in ${PG_BIN} (set PG_BIN to the PostgreSQL bin directory)`;
  const id = spawnSync("id", ["-u", PG_USER], { encoding: "utf8" });
  if (id.status !== 0) return `no '${PG_USER}' OS user to run PostgreSQL as`;
  return null;
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function asPostgres(command: string, timeoutMs: number): { ok: boolean; output: string } {
  const r = spawnSync("su", [PG_USER, "-s", "/bin/bash", "-c", command], { encoding: "utf8", timeout: timeoutMs });
  return { ok: r.status === 0, output: `${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

export interface PgCluster {
  dir: string;
  port: number;
  /** postgres://… for the database the app uses. */
  url: string;
  /** `pg_ctl stop -m fast -w`: connections are terminated (57P01) and the server is gone when this returns. */
  stopFast(): Promise<void>;
  /**
   * The same fast shutdown without pg_ctl's start-up delay: SIGINT to the postmaster (what
   * `pg_ctl -m fast stop` sends), at once; resolves when the postmaster is gone.
   */
  stopFastNow(): Promise<void>;
  /** `pg_ctl start -w`: accepting connections when this returns. */
  start(): Promise<void>;
  isRunning(): boolean;
  /** One statement on a connection of its own (opened and closed around it). */
  query(text: string, params?: unknown[]): Promise<pg.QueryResult>;
  /** The server log (for a failing test's report). */
  log(): string;
  /** Stops the server (immediate) and removes the directory. Safe to call twice. */
  destroy(): void;
}

/** The same, without blocking the test's event loop (the renters keep running while pg_ctl works). */
function asPostgresAsync(command: string, timeoutMs: number): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile("su", [PG_USER, "-s", "/bin/bash", "-c", command], { encoding: "utf8", timeout: timeoutMs }, (error, stdout, stderr) => {
      resolve({ ok: !error, output: `${stdout ?? ""}${stderr ?? ""}${error ? String(error) : ""}` });
    });
  });
}

const alive = new Set<PgCluster>();
let exitHookInstalled = false;

/** Creates, starts and returns a private cluster with an empty `gatehouse` database. */
export async function createCluster(options: { port?: number } = {}): Promise<PgCluster> {
  const reason = clusterSkipReason();
  if (reason) throw new Error(reason);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-fault-pg-"));
  fs.chmodSync(dir, 0o755);
  spawnSync("chown", [PG_USER, dir]);
  const data = path.join(dir, "data");
  const logFile = path.join(dir, "log");
  const port = options.port ?? (await freePort());
  const ctl = path.join(PG_BIN, "pg_ctl");
  const init = asPostgres(`${q(path.join(PG_BIN, "initdb"))} -D ${q(data)} -A trust -U postgres --no-sync -E UTF8 --locale=C`, 60_000);
  if (!init.ok) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed:\n${init.output}`);
  }
  // Only TCP on 127.0.0.1 and a socket in our own directory; fsync off (a throwaway cluster, and a fast
  // shutdown writes everything out anyway).
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  let running = false;
  const cluster: PgCluster = {
    dir,
    port,
    url: `postgres://postgres@127.0.0.1:${port}/gatehouse`,
    async start() {
      const r = await asPostgresAsync(`${q(ctl)} -D ${q(data)} -o ${q(opts)} -l ${q(logFile)} -w -t 30 start`, 40_000);
      if (!r.ok) throw new Error(`pg_ctl start failed:\n${r.output}\n${cluster.log().slice(-2000)}`);
      running = true;
    },
    async stopFast() {
      const r = await asPostgresAsync(`${q(ctl)} -D ${q(data)} -m fast -w -t 30 stop`, 40_000);
      if (!r.ok) throw new Error(`pg_ctl stop failed:\n${r.output}`);
      running = false;
    },
    async stopFastNow() {
      const pidFile = path.join(data, "postmaster.pid");
      const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
      if (!Number.isInteger(pid) || pid <= 1) throw new Error(`No postmaster pid in ${pidFile}`);
      process.kill(pid, "SIGINT");
      const deadline = Date.now() + 30_000;
      // Gone when it has removed its pid file (a clean shutdown does) or the process no longer exists.
      for (;;) {
        if (!fs.existsSync(pidFile)) break;
        try {
          process.kill(pid, 0);
        } catch {
          break;
        }
        if (Date.now() > deadline) throw new Error(`PostgreSQL (pid ${pid}) did not stop within 30 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
      running = false;
    },
    isRunning: () => running,
    async query(text, params = []) {
      const c = new pg.Client({ connectionString: cluster.url });
      await c.connect();
      try {
        return await c.query(text, params);
      } finally {
        await c.end();
      }
    },
    log: () => {
      try {
        return fs.readFileSync(logFile, "utf8");
      } catch {
        return "";
      }
    },
    destroy() {
      if (!fs.existsSync(dir)) return;
      if (fs.existsSync(path.join(data, "postmaster.pid"))) asPostgres(`${q(ctl)} -D ${q(data)} -m immediate -w -t 20 stop`, 30_000);
      running = false;
      fs.rmSync(dir, { recursive: true, force: true });
      alive.delete(cluster);
    },
  };
  alive.add(cluster);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A crashed or interrupted test run still stops its PostgreSQL and removes the directory.
    process.on("exit", () => {
      for (const c of [...alive]) c.destroy();
    });
  }
  await cluster.start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query("CREATE DATABASE gatehouse");
  await admin.end();
  return cluster;
}
