/**
 * A busy pool is not a dead database (issue 22, decision 205), on a real PostgreSQL
 * (TEST_DATABASE_URL; skipped on PGlite, which has no pool). Before, node-postgres's 800 ms connect
 * timeout also bounded the wait for a free connection: more slow statements than connections, each
 * waiting longer than that, were refused as "timeout exceeded when trying to connect" (a 503).
 */
import net from "node:net";
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openDatabase } from "~/db/client.server";
import { isDatabaseBusy, isDatabaseUnavailable } from "~/db/unavailable";
import { isPostgres } from "../support/db";

const url = () => process.env.TEST_DATABASE_URL!;
const settle = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);

describe.runIf(isPostgres())("the PostgreSQL pool under a rush (decision 205)", () => {
  it("more slow statements than connections all succeed: they wait their turn instead of a 503", async () => {
    // 2 connections, a 300 ms connect timeout; 8 statements of 200 ms each: the last waits ~600 ms.
    const handle = openDatabase({ url: url(), poolSize: 2, connectTimeoutMs: 300 });
    try {
      const results = await settle(Array.from({ length: 8 }, () => handle.db.execute(sql`select pg_sleep(0.2)`)));
      expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
      // A transaction takes a connection too, and waits the same way.
      const inTransactions = await settle(
        Array.from({ length: 4 }, () => handle.db.transaction(async (tx) => tx.execute(sql`select pg_sleep(0.2)`))),
      );
      expect(inTransactions.every((r) => r.status === "fulfilled")).toBe(true);
      expect(handle.pool?.()).toEqual({ size: 2, active: 0, waiting: 0 });
    } finally {
      await handle.close();
    }
  });

  it("a queue past its stated length, or a wait past its stated bound, is refused as busy", async () => {
    const handle = openDatabase({ url: url(), poolSize: 1, poolMaxWaiting: 2, poolWaitTimeoutMs: 60_000 });
    try {
      const results = await settle(Array.from({ length: 5 }, () => handle.db.execute(sql`select pg_sleep(0.1)`)));
      // One runs, two wait, two are refused at once.
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected", "rejected"]);
      for (const r of results.filter((x) => x.status === "rejected")) {
        expect(isDatabaseBusy((r as PromiseRejectedResult).reason)).toBe(true);
        expect(isDatabaseUnavailable((r as PromiseRejectedResult).reason)).toBe(true);
      }
    } finally {
      await handle.close();
    }
    const short = openDatabase({ url: url(), poolSize: 1, poolWaitTimeoutMs: 50 });
    try {
      const [first, second] = await settle([short.db.execute(sql`select pg_sleep(0.5)`), short.db.execute(sql`select 1`)]);
      expect(first!.status).toBe("fulfilled");
      expect(second!.status).toBe("rejected");
      expect(isDatabaseBusy((second as PromiseRejectedResult).reason)).toBe(true);
      // The ping (/readyz) follows the same rule.
      await expect(short.ping()).resolves.toBeUndefined();
    } finally {
      await short.close();
    }
  });

  it("a database that refuses connections fails every waiting statement at once with that error, not a long wait", async () => {
    // A port nobody listens on: connections are refused.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const handle = openDatabase({ url: `postgres://nobody@127.0.0.1:${port}/none`, poolSize: 2, poolWaitTimeoutMs: 60_000 });
    try {
      const results = await settle(Array.from({ length: 6 }, () => handle.db.execute(sql`select 1`)));
      for (const r of results) {
        expect(r.status).toBe("rejected");
        const reason = (r as PromiseRejectedResult).reason;
        expect(isDatabaseUnavailable(reason)).toBe(true);
        // Not the queue's bound (60 s here): the waiting ones were told as soon as a connect was refused.
        expect(isDatabaseBusy(reason)).toBe(false);
      }
      await expect(handle.ping()).rejects.toSatisfy(isDatabaseUnavailable);
    } finally {
      await handle.close();
    }
  });

  it("a database that does not answer: every statement fails as unavailable within the connect timeout or the wait bound", async () => {
    // A port that accepts TCP and never answers: each try ends at the connect timeout (300 ms).
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const handle = openDatabase({ url: `postgres://nobody@127.0.0.1:${port}/none`, poolSize: 2, connectTimeoutMs: 300, poolWaitTimeoutMs: 700 });
    try {
      const results = await settle(Array.from({ length: 6 }, () => handle.db.execute(sql`select 1`)));
      for (const r of results) {
        expect(r.status).toBe("rejected");
        expect(isDatabaseUnavailable((r as PromiseRejectedResult).reason)).toBe(true);
      }
    } finally {
      await handle.close();
      silent.close();
    }
  });

  it("statements sent at once inside one transaction go one at a time: node-postgres never queues (nor warns) (decision 350)", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    const handle = openDatabase({ url: url(), poolSize: 2 });
    try {
      // As a previewed page's loaders do in the preview transaction: several reads at once on its one connection.
      const values = await handle.db.transaction(async (tx) =>
        Promise.all(Array.from({ length: 6 }, (_, i) => tx.execute(sql`select ${i}::int as n, pg_sleep(0.02)`).then((r) => Number((r as unknown as { rows: Array<{ n: number }> }).rows[0]!.n)))),
      );
      expect(values).toEqual([0, 1, 2, 3, 4, 5]);
      // A failed statement fails its own caller; the transaction is then aborted for the rest, as before.
      const outcome = await handle.db
        .transaction(async (tx) => Promise.allSettled([tx.execute(sql`select 1/0`), tx.execute(sql`select 1`)]))
        .catch((error: unknown) => error);
      expect((outcome as PromiseSettledResult<unknown>[]).map((r) => r.status)).toEqual(["rejected", "rejected"]);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((m) => /already executing a query/.test(m))).toEqual([]);

      // The control: the same on a bare client of the same node-postgres does warn (so the check above can fail).
      const bare = new pg.Client({ connectionString: url() });
      await bare.connect();
      try {
        await Promise.all([bare.query("select pg_sleep(0.02)"), bare.query("select 1"), bare.query("select 2")]);
      } finally {
        await bare.end();
      }
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((m) => /already executing a query/.test(m))).toHaveLength(1);
    } finally {
      process.off("warning", onWarning);
      await handle.close();
    }
  });
});
