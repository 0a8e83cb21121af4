import { afterAll, describe, expect, it } from "vitest";
import bcrypt from "bcryptjs";
import { performance } from "node:perf_hooks";
import fs from "node:fs";
import os from "node:os";
import { defaultPasswordThreads, HASHING_THREAD_NICE, PasswordBusyError, PasswordWorkers } from "./password-workers.server";
import { loadEnv } from "~/platform/env.server";
import { hashPassword, passwordThreads, verifyPassword } from "./password.server";

describe("password hashing in worker threads (decision 207)", () => {
  const pool = new PasswordWorkers(2);
  afterAll(() => pool.close());

  it("hashes and compares like bcryptjs does", async () => {
    const hash = await pool.hash("correct horse", 4);
    expect(bcrypt.getRounds(hash)).toBe(4);
    expect(bcrypt.compareSync("correct horse", hash)).toBe(true);
    expect(await pool.compare("correct horse", hash)).toBe(true);
    expect(await pool.compare("wrong horse", hash)).toBe(false);
  });

  it("queues more work than threads and answers each in turn", async () => {
    const hashes = await Promise.all(Array.from({ length: 6 }, (_, i) => pool.hash(`pw-${i}`, 4)));
    const checks = await Promise.all(hashes.map((h, i) => pool.compare(`pw-${i}`, h)));
    expect(checks).toEqual([true, true, true, true, true, true]);
    expect(pool.queued).toBe(0);
  });

  it("a comparison with a wait bound is refused at once when the queue ahead would keep it waiting longer (decision 331)", async () => {
    const one = new PasswordWorkers(1);
    try {
      const hash = await one.hash("pw", 4);
      // Say a comparison takes 1 s here: one running and one queued fit a 1.5 s bound, a third does not.
      one.averageMs = 1_000;
      const first = one.compare("pw", hash, { maxWaitMs: 1_500 });
      const second = one.compare("pw", hash, { maxWaitMs: 1_500 });
      const third = one.compare("pw", hash, { maxWaitMs: 1_500 });
      // Without a bound it waits its turn, however long the queue.
      const unbounded = one.compare("pw", hash);
      await expect(third).rejects.toBeInstanceOf(PasswordBusyError);
      expect(await Promise.all([first, second, unbounded])).toEqual([true, true, true]);
    } finally {
      await one.close();
    }
  });

  it("a bad hash is an error of that call only", async () => {
    await expect(pool.compare("x", null as unknown as string)).rejects.toThrow(/Illegal arguments/);
    expect(await pool.compare("x", await pool.hash("x", 4))).toBe(true);
  });

  it("keeps the event loop free while hashes at the production cost run (the old code hashed on it)", async () => {
    const before = performance.eventLoopUtilization();
    const hashes = await Promise.all(Array.from({ length: 4 }, () => hashPassword("secret12")));
    const used = performance.eventLoopUtilization(before);
    expect(await verifyPassword("secret12", hashes[0]!)).toBe(true);
    // The main thread waited (idle) while the threads worked: far from busy the whole time.
    expect(used.utilization).toBeLessThan(0.5);
  });

  /** The nice value of each thread of this process (field 19 of /proc/self/task/{tid}/stat). */
  const threadNices = () =>
    fs.readdirSync("/proc/self/task").flatMap((tid) => {
      try {
        const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
        return [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])];
      } catch {
        return [];
      }
    });

  it.runIf(fs.existsSync("/proc/thread-self"))("runs its threads below the event loop's priority (decision 429)", async () => {
    const before = threadNices().filter((n) => n === HASHING_THREAD_NICE).length;
    const two = new PasswordWorkers(2);
    try {
      // Two hashes at once start both threads.
      await Promise.all([two.hash("a", 4), two.hash("b", 4)]);
      expect(threadNices().filter((n) => n === HASHING_THREAD_NICE).length).toBe(before + 2);
      expect(os.getPriority()).toBe(0);
    } finally {
      await two.close();
    }
  });

  it("takes its size from PASSWORD_HASH_THREADS, else one fewer than the cores (1–4)", () => {
    expect(passwordThreads(loadEnv({ PASSWORD_HASH_THREADS: "3" }))).toBe(3);
    expect(passwordThreads(loadEnv({}))).toBe(defaultPasswordThreads());
    expect(() => loadEnv({ PASSWORD_HASH_THREADS: "0" })).toThrow(/PASSWORD_HASH_THREADS must be a whole number of threads \(1–16\)/);
    expect(defaultPasswordThreads(1)).toBe(1);
    expect(defaultPasswordThreads(2)).toBe(1);
    expect(defaultPasswordThreads(8)).toBe(4);
  });
});
