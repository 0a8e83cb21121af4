import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { CSRF_FIELD, getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { createTenantSession } from "~/services/web/session.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { action as loginAction, loader as loginLoader } from "~/routes/portal/login";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";

/** CSRF tokens bound to the session, rotated at sign-in, masked per response (docs/decisions/077). */
let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await createTestDatabase();
});
afterAll(() => handle?.close());

const NOW = new Date("2026-11-22T15:00:00Z");
const cookiePair = (setCookie: string) => setCookie.split(";")[0]!;
const req = (cookie?: string) => new Request("http://localhost/x", { headers: cookie ? { Cookie: cookie } : {} });
const form = (token: string | null) => {
  const f = new FormData();
  if (token !== null) f.set(CSRF_FIELD, token);
  return f;
};
async function status(request: Request, token: string | null): Promise<number> {
  try {
    await validateCsrf(request, form(token));
    return 200;
  } catch (thrown) {
    return (thrown as { init?: { status?: number } }).init?.status ?? -1;
  }
}
let n = 0;
async function tenant() {
  const email = `csrf-${++n}-${Date.now()}@example.com`;
  const t = await createTenantWithLease(handle.db, { email, password: "secret1", now: NOW, moveInDate: "2026-11-22", withInsurance: false });
  return { ...t, email };
}

describe("masking (BREACH)", () => {
  it("gives a different field value on every response for the same cookie, and each one validates", async () => {
    const first = await getCsrfToken(req());
    const cookie = cookiePair(first.setCookie!);
    const again = await getCsrfToken(req(cookie));
    const third = await getCsrfToken(req(cookie));
    expect(again.setCookie).toBeNull();
    expect(new Set([first.token, again.token, third.token]).size).toBe(3);
    for (const t of [first.token, again.token, third.token]) expect(await status(req(cookie), t)).toBe(200);
  });

  it("refuses the unmasked cookie value, a tampered value, a missing one and another visitor's", async () => {
    const { token, setCookie } = await getCsrfToken(req());
    const cookie = cookiePair(setCookie!);
    const raw = decodeURIComponent(cookie.split("=")[1]!);
    expect(await status(req(cookie), raw)).toBe(403);
    // One character in the middle (the last one's low bits are only padding in base64url).
    const tampered = `${token.slice(0, 50)}${token[50] === "A" ? "B" : "A"}${token.slice(51)}`;
    expect(await status(req(cookie), tampered)).toBe(403);
    expect(await status(req(cookie), null)).toBe(403);
    const other = await getCsrfToken(req());
    expect(await status(req(cookie), other.token)).toBe(403);
    expect(await status(req(), token)).toBe(403);
  });
});

describe("bound to the tenant's session", () => {
  it("accepts a token of this session and refuses one of another session (or the anonymous cookie's)", async () => {
    const t = await tenant();
    const a = cookiePair(await createTenantSession(handle.db, { tenantId: String(t.tenantId), now: NOW }));
    const b = cookiePair(await createTenantSession(handle.db, { tenantId: String(t.tenantId), now: NOW }));
    const tokenA = (await getCsrfToken(req(a))).token;
    const tokenB = (await getCsrfToken(req(b))).token;
    expect((await getCsrfToken(req(a))).setCookie).toBeNull();
    expect(await status(req(a), tokenA)).toBe(200);
    expect(await status(req(b), tokenB)).toBe(200);
    expect(await status(req(b), tokenA)).toBe(403);
    expect(await status(req(a), tokenB)).toBe(403);
    // A double-submit pair planted next to the session cookie does not help an attacker.
    const anon = await getCsrfToken(req());
    expect(await status(req(`${a}; ${cookiePair(anon.setCookie!)}`), anon.token)).toBe(403);
  });

  it("rotates at sign-in: the pre-sign-in token no longer works, the new session's does", async () => {
    const t = await tenant();
    const page = await callRoute<{ csrfToken: string }>(loginLoader, handle.db, "/customer-portal/login");
    const anonCookie = cookiePair(page.headers.get("Set-Cookie")!);
    const before = page.data.csrfToken;
    expect(await status(req(anonCookie), before)).toBe(200);

    const body = new URLSearchParams({ email: t.email, password: "secret1", redirectTo: "/customer-portal", [CSRF_FIELD]: before });
    const signedIn = await callRoute(loginAction, handle.db, "/customer-portal/login", {
      init: { method: "POST", body, headers: { Cookie: anonCookie, "Content-Type": "application/x-www-form-urlencoded" } },
    });
    expect(signedIn.status).toBe(303);
    const setCookies = signedIn.response!.headers.getSetCookie();
    const session = cookiePair(setCookies.find((c) => c.startsWith("gh_portal="))!);
    // The anonymous CSRF cookie is cleared.
    expect(setCookies.find((c) => c.startsWith("csrf="))).toMatch(/^csrf=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/);

    // Even if the browser kept sending the old CSRF cookie, the old token is refused now.
    expect(await status(req(`${session}; ${anonCookie}`), before)).toBe(403);
    expect(await status(req(session), before)).toBe(403);
    const after = (await getCsrfToken(req(session))).token;
    expect(await status(req(session), after)).toBe(200);
  });
});
