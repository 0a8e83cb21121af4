/**
 * The BUILT server (`node server.js`, NODE_ENV=production) as a child process, optionally under a
 * tiny supervisor that starts it again after it exits (like systemd's Restart=always, RestartSec=1),
 * so a test can go on measuring after a crash. Every exit is recorded: a test asserts there were none.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort, sleep } from "./ports";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");

export interface ServerExit {
  at: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines the process wrote before it exited (the crash's stack). */
  lastOutput: string;
}

export interface ServerHandle {
  port: number;
  baseUrl: string;
  /** The console's own origin on this server (decision 450): http://admin.localhost:PORT. */
  consoleUrl: string;
  exits: ServerExit[];
  /** Times the supervisor started the server again. */
  restarts: number;
  /** Lines written to stderr that look like errors (for the report). */
  errorLines(): string[];
  output(): string;
  /** The running process's PID (null between a crash and the supervisor's restart). */
  pid(): number | null;
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** The environment of a production server: nothing from the test runner's own (NODE_ENV=test, VITEST…). */
export function productionEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const keep = ["PATH", "HOME", "LANG", "TZ", "TMPDIR", "NODE_OPTIONS"];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  return {
    ...env,
    NODE_ENV: "production",
    HTTPS: "false",
    HOST: "127.0.0.1",
    SESSION_SECRET: "fault-test-secret-0123456789abcdef0123456789abcdef",
    // The fault tests rent with test cards: the production build takes them only as a demonstration (decision 200).
    PAYMENT_GATEWAY: "test",
    BILLING_SCHEDULE: "off",
    HOUSEKEEPING: "off",
    BUILD_DIR: process.env.BUILD_DIR ?? "build",
    ...extra,
  };
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(c: ChildProcess) {
  children.add(c);
  c.once("exit", () => children.delete(c));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // An interrupted test run leaves no server behind.
    process.on("exit", () => {
      for (const x of children) x.kill("SIGKILL");
    });
  }
}

export async function startServer(options: {
  env: Record<string, string>;
  /** A fixed port (the soak's own range); else a free one. */
  port?: number;
  supervise?: boolean;
  restartDelayMs?: number;
  readyTimeoutMs?: number;
}): Promise<ServerHandle> {
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  // The configured origin is this server's own address: links and the allowed-host check match it.
  // The console on an origin of its own (decision 450): admin.localhost on the same port.
  const consoleUrl = `http://admin.localhost:${port}`;
  const env = productionEnv({ PUBLIC_URL: baseUrl, CONSOLE_URL: consoleUrl, ...options.env, PORT: String(port) });
  const lines: string[] = [];
  const errors: string[] = [];
  const exits: ServerExit[] = [];
  let child: ChildProcess | null = null;
  let stopping = false;
  let restarts = 0;

  const remember = (stream: "out" | "err", chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      lines.push(`[${stream}] ${line}`);
      if (lines.length > 400) lines.shift();
      if (stream === "err" && errors.length < 200) errors.push(line);
    }
  };

  const launch = () => {
    const c = spawn(process.execPath, ["server.js"], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    track(c);
    c.stdout!.on("data", (b: Buffer) => remember("out", b));
    c.stderr!.on("data", (b: Buffer) => remember("err", b));
    c.on("exit", (code, signal) => {
      if (child === c) child = null;
      if (stopping) return;
      exits.push({ at: Date.now(), code, signal, lastOutput: lines.slice(-15).join("\n") });
      if (options.supervise) {
        setTimeout(() => {
          if (stopping) return;
          restarts++;
          child = launch();
        }, options.restartDelayMs ?? 1000).unref();
      }
    });
    return c;
  };
  child = launch();

  // Ready when /healthz answers (it reads no database).
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    try {
      const r = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline || (exits.length && !options.supervise)) {
      stopping = true;
      child?.kill("SIGKILL");
      throw new Error(`The server did not start within ${options.readyTimeoutMs ?? 30_000} ms:\n${lines.slice(-30).join("\n")}`);
    }
    await sleep(200);
  }

  return {
    port,
    baseUrl,
    consoleUrl,
    exits,
    get restarts() {
      return restarts;
    },
    errorLines: () => [...errors],
    pid: () => child?.pid ?? null,
    output: () => lines.join("\n"),
    async stop(graceMs = 10_000) {
      stopping = true;
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const gone = new Promise<void>((r) => c.once("exit", () => r()));
      c.kill("SIGTERM");
      const timer = setTimeout(() => c.kill("SIGKILL"), graceMs);
      await gone;
      clearTimeout(timer);
    },
  };
}
