/**
 * The rental form rendered once for many (issue 22, decision 330), over real HTTP against the BUILT
 * server (tests/integration/support/built-server.ts):
 * - a visitor without cookies gets the kept form, with a CSRF token, cookie and CSP nonce of their own
 *   (the same page otherwise), and the token works only with its own cookie;
 * - a visitor with any cookie is rendered as before;
 * - after the last unit is held (a write), the next visitor sees "sold out", not the kept form;
 * - the visitors who lose the race get the same "sold out" answer: the whole step once, then kept
 *   (decision 426) for visitors with nothing but the CSRF cookie, with their own nonce; a wrong
 *   token is still refused; a visitor with another cookie gets the whole step, rendered once (X-Render-Memo).
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { units } from "~/db/schema";
import { createTestDatabase } from "../support/db";
import { leaveAvailable, lumbertonUnitType } from "../support/rental-fixtures";

let handle: DatabaseHandle;
let server: BuiltServer;
let formPath: string;

const SOLD_OUT = /this unit size is sold out/i;
const tokenOf = (html: string) => /<input[^>]*name="csrf"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? null;
const noncesOf = (html: string) => [...new Set([...html.matchAll(/nonce="([^"]+)"/g)].map((m) => m[1]))];
const cspNonce = (headers: Headers) => /'nonce-([^']+)'/.exec(headers.get("Content-Security-Policy") ?? "")?.[1] ?? null;
const cookieOf = (headers: Headers) => headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");

async function get(path: string, cookie?: string) {
  const r = await fetch(server.origin + path, { headers: cookie ? { Cookie: cookie } : {}, redirect: "manual" });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

async function submitDetails(visitor: { cookie: string; token: string }, i: number) {
  const r = await fetch(`${server.origin}${formPath}?step=details`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: visitor.cookie, "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin, "X-Forwarded-For": `198.18.9.${i + 1}` },
    body: new URLSearchParams({
      csrf: visitor.token, intent: "details", website_url: "", first_name: "Rush", last_name: `Visitor${i}`, email: `kept-form-${i}@example.com`,
      cell_phone: "(910) 555-0134", addr_1: "1 Main St", addr_2: "", city: "Lumberton", region: "NC", postal_code: "28358",
      alt_contact_first_name: "", alt_contact_last_name: "", alt_contact_phone: "", web_pw: "Tidy-Unit-42", confirm_web_pw: "Tidy-Unit-42",
    }).toString(),
  });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

/** A visitor without cookies opening the form, until the kept copy answers (it is stored just after the first render). */
async function keptForm() {
  for (let attempt = 0; attempt < 20; attempt++) {
    const page = await get(formPath);
    if (page.headers.get("X-Form-Page") === "kept") return page;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the form was never answered from the kept copy");
}

/** A visitor's details step for a unit type already sold out, until the kept answer is given (it is stored just after the first). */
async function keptAnswer(visitor: { cookie: string; token: string }) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const answer = await submitDetails(visitor, 20 + attempt);
    if (answer.headers.get("X-Form-Page") === "kept") return answer;
    expect(answer.status).toBe(409);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the sold-out answer was never given from the kept copy");
}

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const { unitTypeId } = await lumbertonUnitType(handle.db);
  await handle.db.update(units).set({ heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, Number(unitTypeId)));
  await leaveAvailable(handle.db, unitTypeId, 1);
  formPath = `/rent/${unitTypeId}`;
  server = await startBuiltServer(handle);
});
afterAll(async () => {
  await server?.close();
  await handle?.close();
});

describe("the rental form rendered once for visitors without cookies (decision 330)", () => {
  it("each visitor gets a token, cookie and nonce of their own; the token works with its cookie only; after the hold, sold out", async () => {
    const first = await get(formPath);
    expect(first.status).toBe(200);
    const kept = [await keptForm(), await keptForm()];
    const visitors = [first, ...kept].map((page) => {
      expect(page.status).toBe(200);
      expect(page.headers.get("Cache-Control")).toMatch(/no-store/);
      const token = tokenOf(page.body);
      expect(token).toBeTruthy();
      // Every nonce in the page is this answer's (its CSP header's).
      expect(noncesOf(page.body)).toEqual([cspNonce(page.headers)]);
      const cookie = cookieOf(page.headers);
      expect(cookie).toMatch(/csrf=/);
      return { token: token!, cookie, nonce: cspNonce(page.headers)!, body: page.body };
    });
    expect(new Set(visitors.map((v) => v.token)).size).toBe(3);
    expect(new Set(visitors.map((v) => v.cookie)).size).toBe(3);
    expect(new Set(visitors.map((v) => v.nonce)).size).toBe(3);
    // The same page otherwise, and none carries another answer's token or nonce.
    const neutral = (v: (typeof visitors)[number]) => v.body.split(v.token).join("TOKEN").split(v.nonce).join("NONCE");
    expect(neutral(visitors[1]!)).toBe(neutral(visitors[0]!));
    expect(neutral(visitors[2]!)).toBe(neutral(visitors[0]!));
    for (const v of visitors.slice(1)) expect(v.body).not.toContain(visitors[0]!.token);

    // A visitor with a cookie is rendered, not given the kept copy.
    const withCookie = await get(formPath, visitors[0]!.cookie);
    expect(withCookie.status).toBe(200);
    expect(withCookie.headers.get("X-Form-Page")).toBeNull();

    // A kept form's token is refused with another visitor's cookie.
    const crossed = await submitDetails({ cookie: visitors[1]!.cookie, token: visitors[2]!.token }, 7);
    expect(crossed.status).toBe(403);

    // The last unit: the first visitor holds it, the next one hears "sold out" from the whole step.
    const won = await submitDetails(visitors[0]!, 0);
    expect(won.status).toBe(303);
    const lost = await submitDetails(visitors[1]!, 1);
    expect(lost.status).toBe(409);
    expect(lost.body).toMatch(SOLD_OUT);
    expect(lost.headers.get("X-Form-Page")).toBeNull();
    // The visitors after it get that answer again, kept (decision 426): no form, no field typed, their own nonce.
    const kept409 = await keptAnswer(visitors[2]!);
    expect(kept409.status).toBe(409);
    expect(kept409.body).toMatch(SOLD_OUT);
    expect(kept409.body).not.toContain('name="first_name"');
    expect(kept409.headers.get("Cache-Control")).toMatch(/no-store/);
    expect(kept409.headers.get("Set-Cookie")).toBeNull();
    const answerNonce = (a: { headers: Headers }) => cspNonce(a.headers)!;
    expect(answerNonce(kept409)).not.toBe(answerNonce(lost));
    expect(noncesOf(kept409.body)).toEqual([answerNonce(kept409)]);
    const neutralAnswer = (a: { headers: Headers; body: string }) => {
      const token = tokenOf(a.body);
      const body = token ? a.body.split(token).join("TOKEN") : a.body;
      return body.split(answerNonce(a)).join("NONCE");
    };
    expect(neutralAnswer(kept409)).toBe(neutralAnswer(lost));
    // A token that is not the cookie's is refused as before (the whole step answers 403), never "sold out".
    const crossedAfter = await submitDetails({ cookie: visitors[2]!.cookie, token: visitors[1]!.token }, 8);
    expect(crossedAfter.status).toBe(403);
    expect(crossedAfter.headers.get("X-Form-Page")).toBeNull();
    // A visitor with another cookie besides (a rental's, a session) is never given the kept answer:
    // the whole step runs; its page is rendered once for the same data (decision 330).
    const withOther = await submitDetails({ cookie: `${visitors[2]!.cookie}; other=1`, token: visitors[2]!.token }, 9);
    expect(withOther.status).toBe(409);
    expect(withOther.headers.get("X-Form-Page")).toBeNull();
    expect(withOther.headers.get("X-Render-Memo")).toBe("hit");
    expect(neutralAnswer(withOther)).toBe(neutralAnswer(lost));

    // The hold was a write: the next visitor without cookies sees "sold out", not the kept form.
    const after = await get(formPath);
    expect(after.status).toBe(200);
    expect(after.headers.get("X-Form-Page")).toBeNull();
    expect(after.body).toMatch(SOLD_OUT);
    expect(after.body).not.toContain('name="first_name"');

    // A unit comes back (a change in the database, from outside this process): the kept answer goes
    // with it, and the next visitor's details step holds that unit.
    const [spare] = await handle.db.select({ id: units.id }).from(units).where(and(eq(units.unitTypeId, Number(formPath.slice(6))), eq(units.status, "unavailable"))).limit(1);
    await handle.db.update(units).set({ status: "available" }).where(eq(units.id, spare!.id));
    let again = await submitDetails(visitors[2]!, 30);
    for (let attempt = 0; again.status === 409 && attempt < 40; attempt++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await submitDetails(visitors[2]!, 31 + attempt);
    }
    expect(again.status).toBe(303);
  });
});
