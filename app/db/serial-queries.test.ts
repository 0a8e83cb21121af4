import { describe, expect, it } from "vitest";
import { serialiseQueries } from "./serial-queries";

/** A client that records how many of its queries run at once; each takes a few ticks. */
function fakeClient() {
  const log: string[] = [];
  let running = 0;
  let most = 0;
  const client = {
    query(text: string, ...rest: unknown[]): Promise<unknown> | undefined {
      running++;
      most = Math.max(most, running);
      log.push(`start ${text}`);
      const done = new Promise<unknown>((resolve, reject) =>
        setTimeout(() => {
          running--;
          log.push(`end ${text}`);
          if (text === "bad") reject(new Error("syntax error"));
          else resolve({ rows: [text] });
        }, 5),
      );
      const callback = typeof rest[rest.length - 1] === "function" ? (rest.pop() as (e: unknown, r?: unknown) => void) : undefined;
      if (!callback) return done;
      done.then((r) => callback(null, r), callback);
      return undefined;
    },
  };
  return { client, log, most: () => most };
}

describe("serialiseQueries", () => {
  it("hands the client one query at a time, in the order they were made, each caller getting its own answer", async () => {
    const fake = fakeClient();
    const client = serialiseQueries(fake.client);
    const answers = await Promise.all(["a", "b", "c"].map((q) => client.query(q)));
    expect(answers).toEqual([{ rows: ["a"] }, { rows: ["b"] }, { rows: ["c"] }]);
    expect(fake.most()).toBe(1);
    expect(fake.log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("a failed query fails its own caller only; the next one still runs", async () => {
    const fake = fakeClient();
    const client = serialiseQueries(fake.client);
    const [bad, good] = await Promise.allSettled([client.query("bad"), client.query("after")]);
    expect(bad).toMatchObject({ status: "rejected", reason: { message: "syntax error" } });
    expect(good).toMatchObject({ status: "fulfilled", value: { rows: ["after"] } });
    expect(fake.most()).toBe(1);
  });

  it("queues the callback form too (pool.query uses it) and wraps a client once", async () => {
    const fake = fakeClient();
    const client = serialiseQueries(serialiseQueries(fake.client));
    const viaCallback = new Promise((resolve, reject) => client.query("cb", [], (e: unknown, r?: unknown) => (e ? reject(e) : resolve(r))));
    const [first, second] = await Promise.all([viaCallback, client.query("p")]);
    expect(first).toEqual({ rows: ["cb"] });
    expect(second).toEqual({ rows: ["p"] });
    expect(fake.most()).toBe(1);
  });
});
