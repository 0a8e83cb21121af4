import { describe, expect, it } from "vitest";
import { SiteCache, cachedRead } from "./site-cache.server";
import { DatabaseUnavailableError } from "./unavailable";

describe("SiteCache", () => {
  it("loads once and serves the value until invalidated", async () => {
    const cache = new SiteCache();
    let n = 0;
    const load = async () => ++n;
    expect(await cache.read("k", load)).toBe(1);
    expect(await cache.read("k", load)).toBe(1);
    cache.invalidate();
    expect(await cache.read("k", load)).toBe(2);
  });

  it("shares one load between concurrent readers", async () => {
    const cache = new SiteCache();
    let n = 0;
    const load = async () => {
      await new Promise((r) => setTimeout(r, 5));
      return ++n;
    };
    expect(await Promise.all([cache.read("k", load), cache.read("k", load)])).toEqual([1, 1]);
  });

  it("runs a Drizzle-style thenable once (each then() of a query runs it again)", async () => {
    const cache = new SiteCache();
    let runs = 0;
    const thenable = () => ({ then: (ok: (v: number) => void) => ok(++runs) }) as unknown as Promise<number>;
    await Promise.all([cache.read("k", thenable), cache.read("k", thenable)]);
    expect(runs).toBe(1);
  });

  it("never keeps a value whose load started before an invalidation", async () => {
    const cache = new SiteCache();
    let release!: (v: string) => void;
    const pending = new Promise<string>((r) => (release = r));
    const slow = cache.read("k", () => pending);
    cache.invalidate();
    release("old");
    expect(await slow).toBe("old");
    expect(await cache.read("k", async () => "new")).toBe("new");
  });

  it("ends a time-limited value at its moment", async () => {
    let now = 1_000;
    const cache = new SiteCache(() => now);
    let n = 0;
    const read = () => cache.read("next", async () => ++n, { validUntil: () => 2_000 });
    expect(await read()).toBe(1);
    now = 1_999;
    expect(await read()).toBe(1);
    now = 2_000;
    expect(await read()).toBe(2);
  });

  it("forgets a failed load; during an outage answers the last value and says so", async () => {
    const cache = new SiteCache();
    await expect(cache.read("k", async () => Promise.reject(new Error("bug")))).rejects.toThrow("bug");
    expect(await cache.read("k", async () => "menus")).toBe("menus");
    cache.invalidate();
    const context = { siteCache: cache, staleData: false };
    const down = () => Promise.reject(new DatabaseUnavailableError("down"));
    expect(await cachedRead(context, "k", down)).toBe("menus");
    expect(context.staleData).toBe(true);
    // Not an outage, or nothing kept: the error goes up.
    await expect(cache.read("k", async () => Promise.reject(new Error("bug")))).rejects.toThrow("bug");
    await expect(cache.read("other", down)).rejects.toThrow();
  });

  it("without a cache in the context every read goes to the database", async () => {
    let n = 0;
    const context = {};
    await cachedRead(context, "k", async () => ++n);
    await cachedRead(context, "k", async () => ++n);
    expect(n).toBe(2);
  });
});
