/**
 * What a loser of the rush costs (issue 22, decision 420). A form posted without JavaScript runs the
 * action and the page's loader in one request; these tests run the action as the server does (in the
 * request's write tracker, with or without the server's site cache) and look at what it sends:
 * - a loser's POST counts as no write, so it drops no cache on its way out (the sweep of expired
 *   reservations and the failed hold changed nothing); the winner's hold does count;
 * - with the site cache, a loser sends one statement (availability) when its page already says sold
 *   out, two (availability, the hold) when it lost at the hold: no sweep of expired reservations while
 *   none is due, and the hold does not sweep again after the context;
 * - a reservation past its time is still swept before availability is read.
 */
import { describe, expect, it } from "vitest";
import { and, eq, ne } from "drizzle-orm";
import { countQueries, trackWrites, writeIfChanged, type DatabaseHandle } from "~/db/client.server";
import { locations, reservations, unitTypes, units } from "~/db/schema";
import { SiteCache } from "~/db/site-cache.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { loadContext } from "../support/route-helpers";
import { detailsFormFields, leaveAvailable, NOW, racingBodies, rushDatabase } from "../support/rental-fixtures";
import { productionBcryptCost } from "../support/bcrypt-cost";

// bcrypt at the production cost (decision 523): the rush's details steps hash as on the server.
productionBcryptCost();

let handle: DatabaseHandle;
let unitTypeId: string;
let n = 0;

rushDatabase((h) => (handle = h), (id) => (unitTypeId = id));

const SWEEP = /update reservations set status = 'expired'/i;
const HOLD = /update units set held_until/i;

/** The details step posted from `ip`, in a write tracker as server/app.ts runs every request; statements counted. */
async function submitDetails(email: string, ip: string, options: { siteCache?: SiteCache; racing?: (body: string) => ReadableStream<Uint8Array> } = {}) {
  const url = `http://localhost/rent/${unitTypeId}?step=details`;
  const { token, setCookie } = await getCsrfToken(new Request(url));
  const body = new URLSearchParams({ csrf: token, ...detailsFormFields(email) }).toString();
  const request = new Request(url, {
    method: "POST",
    body: options.racing ? options.racing(body) : body,
    headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" },
    ...(options.racing ? { duplex: "half" } : {}),
  } as RequestInit);
  const context = Object.assign(loadContext(handle.db, ip), options.siteCache ? { siteCache: options.siteCache } : {});
  const tracker = { wrote: false };
  const counter = { count: 0, statements: [] as string[] };
  const status = await trackWrites.run(tracker, () =>
    countQueries.run(counter, async () => {
      try {
        const r = (await rentAction({ request, params: { unitTypeId }, context } as never)) as unknown as { init: ResponseInit | null };
        return r.init?.status ?? 200;
      } catch (thrown) {
        if (thrown instanceof Response) return thrown.status;
        throw thrown;
      }
    }),
  );
  return { status, wrote: tracker.wrote, statements: counter.statements };
}

/** The rental page read through the site cache (what a visitor's GET sends), statements counted. */
async function readPage(siteCache: SiteCache) {
  const counter = { count: 0, statements: [] as string[] };
  await countQueries.run(counter, () =>
    rentLoader({ request: new Request(`http://localhost/rent/${unitTypeId}`), params: { unitTypeId }, context: Object.assign(loadContext(handle.db), { siteCache }) } as never),
  );
  return counter.statements;
}

describe("a loser's answer in a rush (decision 420)", () => {
  it("writeIfChanged counts a statement as a write only when it changed a row", async () => {
    const tracker = { wrote: false };
    await trackWrites.run(tracker, () => writeIfChanged(() => handle.db.update(units).set({ heldUntil: null }).where(eq(units.id, -1)).returning({ id: units.id }), (rows) => rows.length > 0));
    expect(tracker.wrote).toBe(false);
    await trackWrites.run(tracker, () => writeIfChanged(() => handle.db.update(units).set({ heldUntil: null }).where(eq(units.unitTypeId, Number(unitTypeId))).returning({ id: units.id }), (rows) => rows.length > 0));
    expect(tracker.wrote).toBe(true);
  });

  it("the losers' POSTs are no write (no cache is dropped for them); the winner's hold is one", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    const round = ++n;
    // Every one read one unit free before any tried to hold it: the losers lose at the hold.
    const race = racingBodies(5);
    const replies = await Promise.all(Array.from({ length: 5 }, (_, i) => submitDetails(`cost-${round}-${i}@example.com`, `198.18.80.${i + 1}`, { racing: race })));
    const winners = replies.filter((r) => r.status === 303);
    const losers = replies.filter((r) => r.status !== 303);
    expect(winners).toHaveLength(1);
    expect(winners[0]!.wrote).toBe(true);
    expect(losers).toHaveLength(4);
    for (const loser of losers) {
      expect(loser.status).toBe(409);
      // It did send the sweep and the hold (no site cache here), both changing nothing.
      expect(loser.statements.some((s) => SWEEP.test(s))).toBe(true);
      expect(loser.statements.some((s) => HOLD.test(s))).toBe(true);
      expect(loser.wrote).toBe(false);
    }
    // A visitor whose page already says sold out: no write either.
    const late = await submitDetails(`cost-${round}-late@example.com`, "198.18.80.99");
    expect(late.status).toBe(409);
    expect(late.wrote).toBe(false);
  });

  it("with the site cache a loser sends availability (and the hold if it tried), never a sweep while none is due", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    const siteCache = new SiteCache();
    // A visitor's page first: the operator's rows and the reservations' expiries are now kept.
    await readPage(siteCache);
    const round = ++n;
    const race = racingBodies(4);
    const replies = await Promise.all(Array.from({ length: 4 }, (_, i) => submitDetails(`cost-${round}-${i}@example.com`, `198.18.81.${i + 1}`, { siteCache, racing: race })));
    expect(replies.filter((r) => r.status === 303)).toHaveLength(1);
    const losers = replies.filter((r) => r.status !== 303);
    expect(losers).toHaveLength(3);
    for (const loser of losers) {
      expect(loser.status).toBe(409);
      // The availability read of the context, then the hold that found no unit: no sweep, before or in the hold.
      expect(loser.statements).toHaveLength(2);
      expect(loser.statements.filter((s) => SWEEP.test(s))).toEqual([]);
      expect(HOLD.test(loser.statements[1]!)).toBe(true);
    }
    // (The winner's hold dropped the cache in the server; here the same cache goes on, as another
    // process's would until the notification.) A visitor whose page says sold out: one statement.
    const late = await submitDetails(`cost-${round}-late@example.com`, "198.18.81.99", { siteCache });
    expect(late.status).toBe(409);
    expect(late.statements).toHaveLength(1);
    expect(late.statements[0]).toMatch(/from "unit_types"/);
  });

  it("a reservation past its time is swept before availability is read, with the site cache too", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    // A unit of this location (not of the type in the rush) reserved until a moment ago.
    const [loc] = await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.name, "Lumberton"));
    const [unit] = await handle.db
      .select({ id: units.id, unitTypeId: units.unitTypeId })
      .from(units)
      .innerJoin(unitTypes, eq(unitTypes.id, units.unitTypeId))
      .where(and(eq(units.locationId, loc!.id), eq(units.status, "available"), ne(units.unitTypeId, Number(unitTypeId))))
      .limit(1);
    await handle.db.update(units).set({ status: "reserved" }).where(eq(units.id, unit!.id));
    const [reservation] = await handle.db
      .insert(reservations)
      .values({
        locationId: loc!.id, unitTypeId: unit!.unitTypeId, unitId: unit!.id, firstName: "Grace", lastName: "Hopper", email: `due-${++n}@example.com`,
        phone: "(910) 555-0199", desiredMoveInDate: "2026-11-23", expiresAt: new Date(NOW.getTime() - 60_000), cancelTokenHash: "h", confirmationCode: `DUE${n}`,
      })
      .returning({ id: reservations.id });
    const siteCache = new SiteCache();
    const statements = await readPage(siteCache);
    expect(statements.some((s) => SWEEP.test(s))).toBe(true);
    const [after] = await handle.db.select({ status: reservations.status }).from(reservations).where(eq(reservations.id, reservation!.id));
    expect(after!.status).toBe("expired");
    const [freed] = await handle.db.select({ status: units.status }).from(units).where(eq(units.id, unit!.id));
    expect(freed!.status).toBe("available");
    // The sweep wrote: the server drops its caches after it (the next request sees no reservation due).
    siteCache.invalidate();
    expect((await readPage(siteCache)).some((s) => SWEEP.test(s))).toBe(false);
  });
});
