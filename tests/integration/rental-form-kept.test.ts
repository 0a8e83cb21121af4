/**
 * The rental form rendered once for many (issue 22, decision 330), over real HTTP against the BUILT
 * server (tests/integration/built-server.ts):
 * - a visitor without cookies gets the kept form, with a CSRF token, cookie and CSP nonce of their own
 *   (the same page otherwise), and the token works only with its own cookie;
 * - a visitor with any cookie is rendered as before;
 * - after the last unit is held (a write), the next visitor sees "sold out", not the kept form;
 * - the visitors who lose the race get the same "sold out" answer, rendered once (X-Render-Memo).
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "./built-server";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { units } from "~/db/schema";
import { createTestDatabase } from "./db";
import { leaveAvailable, lumbertonUnitType } from "./rental-fixtures";

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

    // The last unit: the first visitor holds it, the others hear "sold out" — the same answer, rendered once.
    const answers: Array<Awaited<ReturnType<typeof submitDetails>>> = [];
    for (const [i, v] of visitors.entries()) answers.push(await submitDetails(v, i));
    expect(answers.map((a) => a.status)).toEqual([303, 409, 409]);
    expect(answers[1]!.body).toMatch(SOLD_OUT);
    expect(answers[2]!.body).toMatch(SOLD_OUT);
    expect(answers[2]!.headers.get("X-Render-Memo")).toBe("hit");
    const answerNonce = (a: (typeof answers)[number]) => cspNonce(a.headers)!;
    expect(noncesOf(answers[2]!.body)).toEqual([answerNonce(answers[2]!)]);
    expect(answers[2]!.body.split(answerNonce(answers[2]!)).join("NONCE")).toBe(answers[1]!.body.split(answerNonce(answers[1]!)).join("NONCE"));

    // The hold was a write: the next visitor without cookies sees "sold out", not the kept form.
    const after = await get(formPath);
    expect(after.status).toBe(200);
    expect(after.headers.get("X-Form-Page")).toBeNull();
    expect(after.body).toMatch(SOLD_OUT);
    expect(after.body).not.toContain('name="first_name"');
  });
});
