/**
 * The page after an action that wrote nothing reuses the action's rental context (issue 22, decision
 * 332). A form posted without JavaScript runs the action and then the page's loader in one request
 * (one router context); these tests run both with one context, as the server does, and count what the
 * loader sends to the database. They fail if the reuse shows a wrong page:
 * - a loser of the rush (the hold found no unit) sees "sold out", and its loader reads no availability;
 * - the winner's request keeps nothing: the page after the hold is read afresh and shows the next step;
 * - a visitor whose form had a mistake sees the form again (the unit still free), from the kept context;
 * - a kept context serves only its own unit type and only once.
 */
import { describe, expect, it } from "vitest";
import type { RouterContextProvider } from "react-router";
import { countQueries, type DatabaseHandle } from "~/db/client.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { takeRentalContextOfAction } from "~/services/rental/context.server";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { loadContext } from "../support/route-helpers";
import { ctxFor, detailsFormFields, leaveAvailable, racingBodies, rushDatabase } from "../support/rental-fixtures";

let handle: DatabaseHandle;
let unitTypeId: string;
let n = 0;

rushDatabase((h) => (handle = h), (id) => (unitTypeId = id));

type Answer = { formError?: string | null; result?: { error?: Record<string, string[]> } | null };
type Page = { blocked: string | null; view: { step: string } | null };

async function settle<T>(run: () => Promise<unknown>): Promise<{ status: number; data: T | null; location: string | null; cookie: string | null }> {
  try {
    const r = (await run()) as { data: T; init: ResponseInit | null };
    return { status: r.init?.status ?? 200, data: r.data, location: null, cookie: null };
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, data: null, location: thrown.headers.get("Location"), cookie: thrown.headers.get("Set-Cookie")?.split(";")[0] ?? null };
    throw thrown;
  }
}

/** One request of a form posted without JavaScript: the action, then (unless it redirected) the page's loader, one context. */
async function postDocument(fields: Record<string, string>, ip: string, racing?: (body: string) => ReadableStream<Uint8Array>) {
  const url = `http://localhost/rent/${unitTypeId}?step=details`;
  const { token, setCookie } = await getCsrfToken(new Request(url));
  const headers = { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" };
  const body = new URLSearchParams({ csrf: token, ...fields }).toString();
  const request = new Request(url, { method: "POST", body: racing ? racing(body) : body, headers, ...(racing ? { duplex: "half" } : {}) } as RequestInit);
  const context = loadContext(handle.db, ip);
  const acted = { count: 0, statements: [] as string[] };
  const action = await countQueries.run(acted, () => settle<Answer>(() => rentAction({ request, params: { unitTypeId }, context } as never)));
  const triedToHold = acted.statements.some((q) => /^update "?units"? set held_until/i.test(q.trim()) || /update units set held_until/i.test(q));
  if (action.status === 303) return { action, context, page: null, loaderStatements: [] as string[], triedToHold };
  const counter = { count: 0, statements: [] as string[] };
  const page = await countQueries.run(counter, () => settle<Page>(() => rentLoader({ request: new Request(url, { headers }), params: { unitTypeId }, context } as never)));
  return { action, context, page, loaderStatements: counter.statements, triedToHold };
}

/** What the loader reads when it has no kept context: the sweep of expired holds and the availability. */
async function freshLoaderStatements() {
  const url = `http://localhost/rent/${unitTypeId}?step=details`;
  const counter = { count: 0, statements: [] as string[] };
  await countQueries.run(counter, () => settle<Page>(() => rentLoader({ request: new Request(url), params: { unitTypeId }, context: loadContext(handle.db) } as never)));
  return counter.statements;
}

const SOLD_OUT = /this unit size is sold out/i;

describe("the page after an action that wrote nothing (decision 332)", () => {
  it("the losers of a rush see sold out, and their pages read no availability; the winner's page is read afresh and shows the next step", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    const round = ++n;
    // Every one read one unit free before any tried to hold it (racingBodies): the losers lose at the hold.
    const race = racingBodies(6);
    const replies = await Promise.all(Array.from({ length: 6 }, (_, i) => postDocument(detailsFormFields(`reuse-${round}-${i}@example.com`), `198.18.${60 + round}.${i + 1}`, race)));
    const winners = replies.filter((r) => r.action.status === 303);
    expect(winners).toHaveLength(1);
    const losers = replies.filter((r) => r.action.status !== 303);
    expect(losers).toHaveLength(5);
    for (const loser of losers) {
      // Each lost at the hold (its page had shown one unit free), the case where the kept context says "sold out".
      expect(loser.triedToHold).toBe(true);
      expect(loser.action.status).toBe(409);
      expect(loser.action.data?.formError).toMatch(SOLD_OUT);
      expect(loser.page?.status).toBe(200);
      // The page itself says sold out, without the form.
      expect(loser.page?.data?.blocked).toMatch(SOLD_OUT);
      expect(loser.page?.data?.view).toBeNull();
      // The context came from the action: no sweep, no availability read.
      expect(loser.loaderStatements).toEqual([]);
    }
    // Without a kept context the loader does read (so the assertion above means something).
    expect((await freshLoaderStatements()).length).toBeGreaterThan(0);

    // The winner's request kept nothing (it wrote the hold): the next page is read afresh and shows the next step.
    const winner = winners[0]!;
    expect(takeRentalContextOfAction(winner.context, unitTypeId)).toBeUndefined();
    expect(winner.action.location).toMatch(new RegExp(`^/rent/${unitTypeId}\\?step=`));
    expect(winner.action.cookie).toBeTruthy();
    const afterHold = await getAfterRedirect(winner.action.location!, winner.action.cookie!, winner.context);
    expect(afterHold.data?.blocked).toBeNull();
    expect(afterHold.data?.view?.step).toBe(new URL(winner.action.location!, "http://localhost").searchParams.get("step"));
    // A new visitor after the hold: sold out, read afresh.
    const late = await settle<Page>(() => rentLoader({ request: new Request(`http://localhost/rent/${unitTypeId}`), params: { unitTypeId }, context: loadContext(handle.db) } as never));
    expect(late.data?.blocked).toMatch(SOLD_OUT);
  });

  it("a form with a mistake shows the form again from the kept context while the unit is free", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    const r = await postDocument({ ...detailsFormFields(`mistake-${++n}@example.com`), email: "not-an-email" }, `198.18.70.${n}`);
    expect(r.action.status).toBe(400);
    expect(r.action.data?.result?.error?.email?.length).toBeGreaterThan(0);
    expect(r.page?.data?.blocked).toBeNull();
    expect(r.page?.data?.view?.step).toBe("details");
    expect(r.loaderStatements).toEqual([]);
    // The unit was not held: the next visitor still gets the form.
    const next = await settle<Page>(() => rentLoader({ request: new Request(`http://localhost/rent/${unitTypeId}`), params: { unitTypeId }, context: loadContext(handle.db) } as never));
    expect(next.data?.blocked).toBeNull();
  });

  it("a kept context serves its own unit type, once", async () => {
    await leaveAvailable(handle.db, unitTypeId, 1);
    const r = await postDocument({ ...detailsFormFields(`once-${++n}@example.com`), email: "not-an-email" }, `198.18.71.${n}`);
    expect(r.action.status).toBe(400);
    // The loader took it: nothing left for a second read in the same request.
    expect(takeRentalContextOfAction(r.context, unitTypeId)).toBeUndefined();
    const context = loadContext(handle.db);
    const { keepRentalContextForPage } = await import("~/services/rental/context.server");
    keepRentalContextForPage(context, unitTypeId, await ctxFor(handle.db, unitTypeId));
    expect(takeRentalContextOfAction(context, String(Number(unitTypeId) + 1))).toBeUndefined();
    expect(takeRentalContextOfAction(context, unitTypeId)).toBeUndefined();
  });
});

/** The GET after the winner's redirect, with its rental cookie: a new request, a new context (nothing kept). */
async function getAfterRedirect(location: string, cookie: string, previous: RouterContextProvider) {
  const context = loadContext(previous.db, previous.clientIp);
  return settle<Page>(() => rentLoader({ request: new Request(`http://localhost${location}`, { headers: { Cookie: cookie } }), params: { unitTypeId }, context } as never));
}
