/**
 * A sign-in while the hashing threads are too busy, over real HTTP against the BUILT server
 * (decision 428): the first visitor's "busy" page comes from the whole sign-in; the next visitors with
 * nothing but the CSRF cookie get that page kept, with their own token, nonce and e-mail (escaped), and
 * without React Router. A wrong token, a form with errors or another cookie still get the whole
 * sign-in; when the threads are free again, signing in works.
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { PASSWORD_BUSY_MESSAGE } from "~/services/web/form-outage.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTestDatabase } from "../support/db";
import { busyPasswordThreads, ownPasswordThreads } from "../support/password-threads";
import { productionBcryptCost } from "../support/bcrypt-cost";

// bcrypt at the production cost (decision 523): the hashing threads in a rush.
productionBcryptCost();

let handle: DatabaseHandle;
let server: BuiltServer;
let threads: ReturnType<typeof ownPasswordThreads>;

const LOGIN = "/customer-portal/login";
const tokenOf = (html: string) => /<input[^>]*name="csrf"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? null;
const cspNonce = (headers: Headers) => /'nonce-([^']+)'/.exec(headers.get("Content-Security-Policy") ?? "")?.[1] ?? null;
const cookieOf = (headers: Headers) => headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");

async function visitor() {
  const r = await fetch(server.origin + LOGIN, { redirect: "manual" });
  const html = await r.text();
  return { cookie: cookieOf(r.headers), token: tokenOf(html)! };
}

async function signIn(v: { cookie: string; token: string }, email: string, password: string, i: number) {
  const r = await fetch(server.origin + LOGIN, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: v.cookie, "Content-Type": "application/x-www-form-urlencoded", Origin: server.origin, "X-Forwarded-For": `198.18.30.${i}` },
    body: new URLSearchParams({ csrf: v.token, email, password, redirectTo: "/customer-portal" }).toString(),
  });
  return { status: r.status, headers: r.headers, body: await r.text() };
}

/** The page with this answer's token, nonce and the e-mail shown taken out. */
const neutral = (a: { headers: Headers; body: string }, emailAsWritten: string) =>
  a.body.split(tokenOf(a.body)!).join("TOKEN").split(cspNonce(a.headers)!).join("NONCE").split(`value="${emailAsWritten}"`).join('value="EMAIL"');

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  await createTenantWithLease(handle.db, { email: "o'brien+kept@example.com", password: "secret-kept-1", now: new Date(), withInsurance: false });
  server = await startBuiltServer(handle);
  threads = ownPasswordThreads();
});
afterAll(async () => {
  await threads?.restore();
  await server?.close();
  await handle?.close();
});

describe("the busy sign-in page kept for visitors without a session (decision 428)", () => {
  it("is the whole sign-in's page with each visitor's own token, nonce and e-mail; anything else runs the whole sign-in", async () => {
    const [a, b, c] = [await visitor(), await visitor(), await visitor()];
    // The one thread busy for a few seconds with a queue of slow checks.
    const free = await busyPasswordThreads(threads.workers, { cost: 13, count: 6 });

    const first = await signIn(a, "first.visitor@example.com", "whatever-1", 1);
    expect(first.status).toBe(429);
    expect(first.headers.get("X-Form-Page")).toBeNull();
    expect(first.body).toContain(PASSWORD_BUSY_MESSAGE);

    const kept = await signIn(b, "o'brien+kept@example.com", "secret-kept-1", 2);
    expect(kept.status).toBe(429);
    expect(kept.headers.get("X-Form-Page")).toBe("kept");
    expect(kept.headers.get("Retry-After")).toBe("5");
    expect(kept.headers.get("Cache-Control")).toMatch(/no-store/);
    expect(kept.headers.get("Set-Cookie")).toBeNull();
    expect(kept.body).toContain(PASSWORD_BUSY_MESSAGE);
    // This visitor's e-mail, escaped as React writes it; nothing of the first visitor's; no password.
    expect(kept.body).toContain('value="o&#x27;brien+kept@example.com"');
    expect(kept.body).not.toContain("first.visitor@example.com");
    expect(kept.body).not.toContain("secret-kept-1");
    expect(tokenOf(kept.body)).not.toBe(tokenOf(first.body));
    expect(cspNonce(kept.headers)).not.toBe(cspNonce(first.headers));
    expect([...kept.body.matchAll(/nonce="([^"]+)"/g)].map((m) => m[1])).toEqual(expect.arrayContaining([cspNonce(kept.headers)]));
    expect(neutral(kept, "o&#x27;brien+kept@example.com")).toBe(neutral(first, "first.visitor@example.com"));

    // The token the kept page gave works with that visitor's cookie (the next sign-in is the whole one, below).
    // A wrong token: the whole sign-in's 403, never the busy page.
    const crossed = await signIn({ cookie: c.cookie, token: b.token }, "someone@example.com", "x-1", 3);
    expect(crossed.status).toBe(403);
    // A form with an error: the whole sign-in's answer beside the field.
    const invalid = await signIn(c, "not-an-email", "x-1", 4);
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("X-Form-Page")).toBeNull();
    // Another cookie besides: the whole sign-in.
    const other = await signIn({ cookie: `${c.cookie}; other=1`, token: c.token }, "someone@example.com", "x-1", 5);
    expect(other.status).toBe(429);
    expect(other.headers.get("X-Form-Page")).toBeNull();

    // The threads free again: the kept page is not given; the same visitor signs in.
    await free();
    const ok = await signIn({ cookie: b.cookie, token: tokenOf(kept.body)! }, "o'brien+kept@example.com", "secret-kept-1", 6);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe("/customer-portal");
  });
});
