/**
 * Rate limits of the anonymous flows (issue 8 item 2): rental details, held units per IP, contact,
 * notify, reservations and forgot-password per recipient. Limited forms keep the typed values.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { checkouts, contactMessages, emailOutbox } from "~/db/schema";
import { ANONYMOUS_LIMITS, HOLDS_PER_IP, limitAnonymousForm } from "~/services/anonymous-limits.server";
import { requestPasswordReset, RESET_LIMIT_PER_EMAIL } from "~/services/auth.server";
import { getCsrfToken } from "~/services/csrf.server";
import { accountStorage, portalLocations } from "~/services/portal.server";
import type { StorageSoftware } from "~/storage-software/port";
import { action as contactAction } from "~/routes/contact";
import { action as rentAction } from "~/routes/rent";
import { createTestDatabase } from "./db";
import { loadContext } from "./route-helpers";
import { lumbertonUnitType, NOW } from "./move-in-fixtures";

let handle: DatabaseHandle;
let storage: StorageSoftware;
let n = 0;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  handle = await createTestDatabase();
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  storage = accountStorage(handle.db, await portalLocations(handle.db, account!.id)).storage;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  await handle?.close();
});

/** Posts a form to a route action from `ip`, the way the server does. */
async function post<T>(fn: (args: never) => unknown, url: string, fields: Record<string, string>, ip: string, params: Record<string, string> = {}) {
  const { token, setCookie } = await getCsrfToken(new Request(`http://localhost${url}`));
  const request = new Request(`http://localhost${url}`, {
    method: "POST",
    body: new URLSearchParams({ csrf: token, ...fields }),
    headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" },
  });
  const context = loadContext(handle.db, ip);
  try {
    const r = (await fn({ request, params, context } as never)) as { data: T; init: ResponseInit | null };
    return { status: r.init?.status ?? 200, data: r.data };
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, data: null as T };
    throw thrown;
  }
}

const details = (email: string) => ({
  intent: "details",
  first_name: "Ada",
  last_name: "Lovelace",
  email,
  cell_phone: "(910) 555-0134",
  addr_1: "1 Main St",
  city: "Lumberton",
  region: "NC",
  postal_code: "28358",
  web_pw: "Tidy-Unit-42",
  confirm_web_pw: "Tidy-Unit-42",
});

type FormReply = { result: { error: Record<string, string[] | null>; initialValue: Record<string, string> } | null; formError?: string | null };

describe("held units per IP", () => {
  it(`holds at most ${HOLDS_PER_IP} units for one IP; the next visitor keeps what they typed and is told when to try again`, async () => {
    const { unitTypeId } = await lumbertonUnitType(handle.db);
    const ip = `198.18.0.${++n}`;
    const before = (await handle.db.select({ n: count() }).from(checkouts))[0]!.n;
    for (let i = 0; i < HOLDS_PER_IP; i++) {
      const r = await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(`hold-${n}-${i}@example.com`), ip, { unitTypeId });
      expect(r.status).toBe(303);
    }
    const email = `hold-${n}-x@example.com`;
    const r = await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(email), ip, { unitTypeId });
    expect(r.status).toBe(429);
    expect(r.data.formError).toMatch(/already holding 3 units.*try again in 15 minutes/);
    expect(r.data.result!.initialValue).toMatchObject({ email, first_name: "Ada" });
    expect(r.data.result!.initialValue.web_pw).toBeUndefined();
    expect((await handle.db.select({ n: count() }).from(checkouts))[0]!.n).toBe(before + HOLDS_PER_IP);
    // Another IP is not affected.
    expect((await post<FormReply>(rentAction, `/rent/${unitTypeId}?step=details`, details(`hold-${n}-y@example.com`), `198.18.1.${n}`, { unitTypeId })).status).toBe(303);
  });

  it("limits saves of the rental details per IP (each costs a password hash)", async () => {
    const ip = `198.18.2.${++n}`;
    for (let i = 0; i < ANONYMOUS_LIMITS["rental-details"].limit; i++) expect(await limitAnonymousForm(handle.db, "rental-details", ip, NOW)).toBeNull();
    expect(await limitAnonymousForm(handle.db, "rental-details", ip, NOW)).toMatch(/try again in 15 minutes/);
  });
});

describe("contact, notify and reservations", () => {
  it("the contact form refuses the 6th message from one IP within the hour, keeping what was typed, and stores nothing", async () => {
    const ip = `198.18.3.${++n}`;
    const fields = { name: "Sam Spammer", email: `spam-${n}@example.com`, phone: "", message: "Hello there, is a 10x10 free?" };
    for (let i = 0; i < ANONYMOUS_LIMITS.contact.limit; i++) expect((await post(contactAction, "/contact", fields, ip)).status).toBe(303);
    const stored = (await handle.db.select({ n: count() }).from(contactMessages).where(eq(contactMessages.email, fields.email)))[0]!.n;
    const r = await post<FormReply>(contactAction, "/contact", fields, ip);
    expect(r.status).toBe(429);
    expect(r.data.result!.error[""]).toEqual([expect.stringMatching(/try again in 60 minutes/)]);
    expect(r.data.result!.initialValue).toMatchObject({ message: fields.message, email: fields.email });
    expect((await handle.db.select({ n: count() }).from(contactMessages).where(eq(contactMessages.email, fields.email)))[0]!.n).toBe(stored);
  });

  it("notify and reservations have their own limits", async () => {
    const ip = `198.18.4.${++n}`;
    for (let i = 0; i < ANONYMOUS_LIMITS.notify.limit; i++) expect(await limitAnonymousForm(handle.db, "notify", ip, NOW)).toBeNull();
    expect(await limitAnonymousForm(handle.db, "notify", ip, NOW)).not.toBeNull();
    for (let i = 0; i < ANONYMOUS_LIMITS.reservation.limit; i++) expect(await limitAnonymousForm(handle.db, "reservation", ip, NOW)).toBeNull();
    expect(await limitAnonymousForm(handle.db, "reservation", ip, NOW)).toMatch(/try again in 1440 minutes/);
  });
});

describe("forgot password per recipient", () => {
  it(`sends at most ${RESET_LIMIT_PER_EMAIL} reset e-mails an hour to one address, from any IPs`, async () => {
    const email = `victim-${++n}@example.com`;
    const results = [];
    for (let i = 0; i < RESET_LIMIT_PER_EMAIL + 1; i++) {
      results.push(await requestPasswordReset(handle.db, storage, { email, ip: `198.18.5.${i}`, origin: "http://localhost", now: NOW, siteName: "G" }));
    }
    expect(results.slice(0, RESET_LIMIT_PER_EMAIL).every((r) => !r.limited)).toBe(true);
    expect(results.at(-1)).toMatchObject({ limited: true, retryAfterMinutes: 60 });
    expect((await handle.db.select({ n: count() }).from(emailOutbox).where(eq(emailOutbox.to, email)))[0]!.n).toBe(0);
  });
});
