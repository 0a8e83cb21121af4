/**
 * The losers learn at once (issue 22, decision 206): in a rush for the last unit, the details step
 * holds the unit before any other check or write, so a visitor whose unit is gone hears "sold out"
 * after that one write: no e-mail lookup, no rate-limit hit counted against them. A visitor refused
 * after the hold (e-mail taken, a limit) lets the unit go again at once.
 */
import { describe, expect, it } from "vitest";
import { and, eq, isNotNull, like, sql } from "drizzle-orm";
import { countQueries, type DatabaseHandle } from "~/db/client.server";
import { rateLimitHits, units } from "~/db/schema";
import { HOLDS_PER_IP } from "~/services/web/anonymous-limits.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { action as rentAction } from "~/routes/rental/rent";
import { loadContext } from "../support/route-helpers";
import { detailsFormFields, leaveAvailable, NOW, racingBodies, rushDatabase } from "../support/rental-fixtures";
import { productionBcryptCost } from "../support/bcrypt-cost";

// bcrypt at the production cost (decision 523): the rush's details steps hash as on the server.
productionBcryptCost();

let handle: DatabaseHandle;
let unitTypeId: string;
let n = 0;

rushDatabase((h) => (handle = h), (id) => (unitTypeId = id));

type Reply = { formError?: string | null; emailTaken?: boolean };

/** Posts the details step from `ip`; the statements the action sent are counted. */
async function submitDetails(email: string, ip: string, racing?: (body: string) => ReadableStream<Uint8Array>) {
  const url = `http://localhost/rent/${unitTypeId}?step=details`;
  const { token, setCookie } = await getCsrfToken(new Request(url));
  const body = new URLSearchParams({ csrf: token, ...detailsFormFields(email) }).toString();
  const request = new Request(url, {
    method: "POST",
    body: racing ? racing(body) : body,
    headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" },
    ...(racing ? { duplex: "half" } : {}),
  } as RequestInit);
  const counter = { count: 0, statements: [] as string[] };
  const run = async () => {
    try {
      const r = (await rentAction({ request, params: { unitTypeId }, context: loadContext(handle.db, ip) } as never)) as unknown as { data: Reply; init: ResponseInit | null };
      return { status: r.init?.status ?? 200, data: r.data };
    } catch (thrown) {
      if (thrown instanceof Response) return { status: thrown.status, data: null };
      throw thrown;
    }
  };
  const result = await countQueries.run(counter, run);
  return { ...result, statements: counter.statements };
}

const hitsFrom = async (ip: string) => handle.db.select().from(rateLimitHits).where(like(rateLimitHits.key, `%:ip:${ip}`));
/** Units of the type held by a token no rental has (a hold nobody will ever finish). */
const orphanHolds = async () =>
  (
    await handle.db
      .select({ id: units.id })
      .from(units)
      .where(and(eq(units.unitTypeId, Number(unitTypeId)), isNotNull(units.holdToken), sql`not exists (select 1 from checkouts c where c.id = ${units.holdToken})`))
  ).length;

describe("a rush for the last unit (decision 206)", () => {
  it("the visitors who lose hear sold out from the hold itself: no e-mail lookup, no limit counted", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    const round = ++n;
    // Eight visitors at once, each from its own address: their pages all showed one unit free.
    // Their pages all showed one unit free: every one reads it before any tries to hold it (racingBodies).
    const race = racingBodies(8);
    const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => submitDetails(`rush-${round}-${i}@example.com`, `198.18.${round}.${i + 1}`, race)));
    expect(replies.filter((r) => r.status === 303)).toHaveLength(1);
    const losers = replies.map((r, i) => ({ ...r, ip: `198.18.${round}.${i + 1}` })).filter((r) => r.status !== 303);
    expect(losers.map((l) => l.status)).toEqual(Array(7).fill(409));
    // The race was run: some losers read one unit free and tried to hold it (the others already saw it taken).
    expect(losers.some((l) => l.statements.some((s) => /^update "?units"? set held_until/i.test(s.trim()) || /update units set held_until/i.test(s)))).toBe(true);
    for (const loser of losers) {
      expect(loser.data?.formError).toMatch(/sold out|no longer available|just been rented|all rented/i);
      // Nothing was counted or looked up for a loser.
      expect(await hitsFrom(loser.ip)).toEqual([]);
      expect(loser.statements.filter((s) => /rate_limit_hits|"tenants"/.test(s))).toEqual([]);
    }
    expect(await orphanHolds()).toBe(0);
  });

  // (An e-mail that has an account is no longer refused at the details step: issue 36, decision 465.)
  it("a visitor refused after the hold (holds per address) lets the unit go at once", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    ++n;

    // One address that already holds its limit of units: refused, and the unit is free for the next visitor.
    const ip = `198.18.4.${n}`;
    await handle.db.insert(rateLimitHits).values({ key: `holds:ip:${ip}`, count: HOLDS_PER_IP, resetAt: new Date(NOW.getTime() + 10 * 60_000) });
    const limited = await submitDetails(`rush-${n}-c@example.com`, ip);
    expect(limited.status).toBe(429);
    expect(await orphanHolds()).toBe(0);
    // The hold it never got is not counted either.
    expect((await hitsFrom(ip)).find((h) => h.key.startsWith("holds:"))?.count).toBe(HOLDS_PER_IP);

    const next = await submitDetails(`rush-${n}-d@example.com`, `198.18.5.${n}`);
    expect(next.status).toBe(303);
  });
});
