/**
 * Sign-ins in a rush (issue 22, decision 331): a sign-in whose password check would wait longer than
 * PASSWORD_CHECK_MAX_WAIT_MS for a hashing thread is answered at once with the form, the e-mail kept
 * (not the password), "try again in a moment", 429 with Retry-After — never a 5xx — and the rate
 * limits do not count it (decision 427: it is refused before they are asked). Once the threads are
 * free, the same sign-in works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { like } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { rateLimitHits } from "~/db/schema";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import { PASSWORD_BUSY_MESSAGE } from "~/services/web/form-outage.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import LoginPage, { action as loginAction, loader as loginLoader } from "~/routes/portal/login";
import { createTestDatabase } from "../support/db";
import { busyPasswordThreads, ownPasswordThreads } from "../support/password-threads";
import { callRoute } from "../support/route-helpers";
import { renderPage } from "../support/render-page";
import { productionBcryptCost } from "../support/bcrypt-cost";

// bcrypt at the production cost (decision 523): the hashing threads in a rush.
productionBcryptCost();

let handle: DatabaseHandle;
let threads: ReturnType<typeof ownPasswordThreads>;

beforeAll(async () => {
  handle = await createTestDatabase();
  // The process's password threads, replaced by one thread of this test's own.
  threads = ownPasswordThreads();
});
afterAll(async () => {
  await threads?.restore();
  await handle?.close();
});

async function submit(email: string, password: string, ip: string) {
  const page = await callRoute<{ csrfToken: string }>(loginLoader, handle.db, "/customer-portal/login");
  const cookie = page.headers.get("Set-Cookie")!.split(";")[0]!;
  const body = new URLSearchParams({ email, password, redirectTo: "/customer-portal", [CSRF_FIELD]: page.data.csrfToken });
  const answer = await callRoute<{ result: { initialValue?: Record<string, unknown>; error?: Record<string, string[]> } }>(loginAction, handle.db, "/customer-portal/login", {
    init: { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
    clientIp: ip,
  });
  return Object.assign(answer, { page: page.data });
}

describe("a sign-in while the hashing threads are busy (decision 331)", () => {
  it("is told to try again in a moment (429, e-mail kept, no limit counted); when the threads are free it signs in", async () => {
    const email = `busy-${Date.now()}@example.com`;
    await createTenantWithLease(handle.db, { email, password: "secret1", now: new Date(), withInsurance: false });
    // The one thread busy with a long queue of checks that have no bound, each said to take a minute.
    const free = await busyPasswordThreads(threads.workers, { cost: 12, count: 5 });

    const busy = await submit(email, "secret1", "198.18.20.1");
    expect(busy.status).toBe(429);
    expect(busy.headers.get("Retry-After")).toBe("5");
    expect(busy.data.result.error?.[""]).toEqual([PASSWORD_BUSY_MESSAGE]);
    expect(busy.data.result.initialValue?.email).toBe(email);
    expect(busy.data.result.initialValue?.password).toBeUndefined();
    // The page the visitor sees (issue 22): the message beside the form, the e-mail typed, no password.
    const html = await renderPage(LoginPage as never, { pattern: "/customer-portal/login", url: "/customer-portal/login", loaderData: busy.page, actionData: busy.data });
    expect(html).toContain(PASSWORD_BUSY_MESSAGE);
    expect(html).toMatch(new RegExp(`<input[^>]*name="email"[^>]*value="${email.replace(/[.]/g, "\\.")}"|<input[^>]*value="${email.replace(/[.]/g, "\\.")}"[^>]*name="email"`));
    expect(html).not.toContain("secret1");
    // Not a guess: neither the account's nor the address's limit counts it — refused before either
    // is asked (decision 427), so not even a row given back.
    const hits = await handle.db.select().from(rateLimitHits).where(like(rateLimitHits.key, "signin:%"));
    expect(hits).toEqual([]);

    await free();
    const ok = await submit(email, "secret1", "198.18.20.1");
    expect(ok.status).toBe(303);
  });
});
