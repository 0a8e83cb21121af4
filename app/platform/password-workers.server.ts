/**
 * bcrypt off the event loop (issue 22, decision 207): bcryptjs (the stack's choice) computes a hash in
 * JavaScript for ~50–150 ms at cost 10. On the main thread, a rush of sign-ups and sign-ins made every
 * other page of the process wait behind the hashes. Here each hash or comparison runs in one of a few
 * worker threads, one at a time per thread, first come first served.
 *
 * The workers are started from source text (`eval`), not from a file: the production build bundles the
 * server into one file, and a separate worker file would have to be found from wherever the code runs
 * (the build, Vite's dev server, tsx scripts, Vitest). The only thing looked up at run time is bcryptjs
 * itself, by Node's resolution from this module. A worker is started on first use, kept while the
 * process lives, holds the process open only while it has work, and is replaced if it dies.
 */
import { createRequire } from "node:module";
import os from "node:os";
import { Worker } from "node:worker_threads";

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const bcrypt = require(workerData.bcryptjs);
// Below the event loop's priority (decision 429): on Linux a thread's nice value is its own, set by
// its thread id. Elsewhere (no /proc/thread-self) the thread keeps the process's priority.
try {
  const tid = Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop());
  require("node:os").setPriority(tid, workerData.nice);
} catch {}
parentPort.on("message", (task) => {
  try {
    const result = task.op === "hash" ? bcrypt.hashSync(task.password, task.rounds) : bcrypt.compareSync(task.password, task.hash);
    parentPort.postMessage({ id: task.id, result });
  } catch (error) {
    parentPort.postMessage({ id: task.id, error: String((error && error.message) || error) });
  }
});
`;

type Task =
  | { id: number; op: "hash"; password: string; rounds: number }
  | { id: number; op: "compare"; password: string; hash: string };

interface Pending {
  task: Task;
  /** performance.now() when queued, and the longest it may wait for a thread (Infinity: no bound). */
  queuedAt: number;
  maxWaitMs: number;
  resolve: (value: string | boolean) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  current: Pending | null;
  startedAt: number;
}

/**
 * A comparison that would wait longer for a thread than its bound (issue 22, decision 331): refused
 * at once, before it is computed, so the visitor hears "busy, try again in a moment" in seconds
 * instead of waiting past a proxy's timeout.
 */
export class PasswordBusyError extends Error {
  constructor() {
    super("Password checks are busy: every thread has a queue longer than the wait allowed");
    this.name = "PasswordBusyError";
  }
}

/**
 * The nice value of a hashing thread (decision 429): the operating system gives the CPU to the event
 * loop first. On a machine whose cores are all busy in a rush (the process, PostgreSQL, the proxy),
 * hashing gets what is left instead of an equal share, so pages and "busy, try again" answers are
 * not slowed by it; a hash takes longer then, and the wait bound (decision 331) counts that in.
 */
export const HASHING_THREAD_NICE = 10;

/** Threads by default: one fewer than the cores (the event loop keeps one), at least 1, at most 4 (decision 207). */
export function defaultPasswordThreads(cores = os.availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}

export class PasswordWorkers {
  private readonly threads: Thread[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private bcryptjsPath: string | null = null;
  /** How long one hash or comparison takes here (moving average, ms); a first guess until measured. */
  averageMs = 100;

  constructor(readonly size: number) {
    if (!(size >= 1)) throw new Error("Password hashing needs at least one thread");
  }

  /** Hashes and comparisons waiting for a thread (not counting the ones being computed). */
  get queued(): number {
    return this.queue.length;
  }

  hash(password: string, rounds: number): Promise<string> {
    return this.run({ id: this.nextId++, op: "hash", password, rounds }) as Promise<string>;
  }

  /**
   * Whether `password` matches `hash`. With `maxWaitMs`, a comparison that would wait longer than
   * that for a thread (by the queue ahead of it and the measured time per hash) is refused at once
   * with PasswordBusyError, and one that has waited longer when its turn comes is refused then.
   */
  compare(password: string, hash: string, options: { maxWaitMs?: number } = {}): Promise<boolean> {
    const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
    if (this.expectedWaitMs() > maxWaitMs) return Promise.reject(new PasswordBusyError());
    return this.run({ id: this.nextId++, op: "compare", password, hash }, maxWaitMs) as Promise<boolean>;
  }

  /** How long a task queued now would wait for a thread: the queue ahead shared by the threads. */
  expectedWaitMs(): number {
    const busy = this.threads.filter((t) => t.current).length;
    if (busy < this.size && this.queue.length === 0) return 0;
    return Math.ceil((this.queue.length + 1) / this.size) * this.averageMs;
  }

  /** Stops every thread; work still queued is refused. */
  async close(): Promise<void> {
    for (const p of this.queue.splice(0)) p.reject(new Error("Password hashing stopped"));
    await Promise.all(this.threads.splice(0).map((t) => t.worker.terminate()));
  }

  private run(task: Task, maxWaitMs = Number.POSITIVE_INFINITY): Promise<string | boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject, queuedAt: performance.now(), maxWaitMs });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length) {
      const thread = this.threads.find((t) => !t.current) ?? (this.threads.length < this.size ? this.start() : null);
      if (!thread) return;
      const pending = this.queue.shift()!;
      if (performance.now() - pending.queuedAt > pending.maxWaitMs) {
        pending.reject(new PasswordBusyError());
        continue;
      }
      thread.current = pending;
      thread.startedAt = performance.now();
      // Holds the process open only while there is work (a script's last hash still finishes).
      thread.worker.ref();
      thread.worker.postMessage(pending.task);
    }
  }

  private start(): Thread {
    this.bcryptjsPath ??= createRequire(import.meta.url).resolve("bcryptjs");
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptjs: this.bcryptjsPath, nice: HASHING_THREAD_NICE }, name: "bcrypt" });
    const thread: Thread = { worker, current: null, startedAt: 0 };
    worker.unref();
    worker.on("message", (m: { id: number; result?: string | boolean; error?: string }) => {
      const pending = thread.current;
      if (!pending || pending.task.id !== m.id) return;
      thread.current = null;
      worker.unref();
      this.averageMs = this.averageMs * 0.9 + (performance.now() - thread.startedAt) * 0.1;
      if (m.error !== undefined) pending.reject(new Error(m.error));
      else pending.resolve(m.result!);
      this.pump();
    });
    const lost = (error: Error) => {
      const i = this.threads.indexOf(thread);
      if (i < 0) return;
      this.threads.splice(i, 1);
      thread.current?.reject(error);
      thread.current = null;
      this.pump();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`A password-hashing thread stopped (exit code ${code})`)));
    this.threads.push(thread);
    return thread;
  }
}
