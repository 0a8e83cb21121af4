/**
 * Account changes in the portal (issue 8 items 3 and 4): the e-mail change needs the current
 * password and tells the old address; current-password checks count toward the sign-in limit; a
 * reset lifts the lockout; common passwords are refused by the reset, profile and rental forms.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { rentals, emailOutbox, tenants } from "~/db/schema";
import { COMMON_PASSWORD_MESSAGE } from "~/domain/shared/common-passwords";
import { requestPasswordReset, resetPassword, signIn, SIGNIN_LIMIT_PER_ACCOUNT } from "~/services/portal/sign-in-limits.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { accountStorage, portalLocations, type PortalContext } from "~/services/portal/context.server";
import { changeContact, changePassword, CURRENT_PASSWORD_FOR_EMAIL_MESSAGE } from "~/services/portal/profile.server";
import { createTenantSession } from "~/services/web/session.server";
import type { StorageSoftware } from "~/storage-software/port";
import { action as profileAction } from "~/routes/portal/profile";
import { action as resetAction } from "~/routes/portal/reset-password";
import { action as rentAction } from "~/routes/rental/rent";
import { createTestDatabase } from "../support/db";
import { lumbertonUnitType, NOW } from "../support/rental-fixtures";
import { callRoute } from "../support/route-helpers";
import { readOutboxMail } from "~/services/mail/outbox.server";

let handle: DatabaseHandle;
let storage: StorageSoftware;
let ctx: PortalContext;
let accountId: number;
let n = 0;

beforeAll(async () => {
  process.env.FAKE_NOW = NOW.toISOString();
  handle = await createTestDatabase();
  const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
  accountId = account!.id;
  const locs = await portalLocations(handle.db, accountId);
  storage = accountStorage(handle.db, locs).storage;
  ctx = { db: handle.db, now: NOW, locations: locs, siteName: "Gatehouse", accountId, phone: "(910) 555-0134", storage } as PortalContext;
});
afterAll(async () => {
  delete process.env.FAKE_NOW;
  await handle?.close();
});

async function tenant() {
  const email = `acct-${++n}-${Date.now()}@example.com`;
  const t = await createTenantWithLease(handle.db, { email, password: "right-pass-9", now: NOW, moveInDate: "2026-11-22", withInsurance: false });
  return { ...t, email, id: String(t.tenantId) };
}

async function contactOf(tenantId: string) {
  const t = (await storage.getTenant(tenantId))!;
  return {
    firstName: t.firstName,
    lastName: t.lastName,
    email: t.email,
    addr1: t.addr1,
    addr2: t.addr2,
    city: t.city,
    region: t.region,
    postalCode: t.postalCode,
    isMilitary: t.isMilitary,
    isCompany: t.isCompany,
    isCommercial: t.isCommercial,
    altContactFirstName: t.altContactFirstName,
    altContactLastName: t.altContactLastName,
    altContactPhone: t.altContactPhone,
  };
}

/** The form as the page would have it: a signed-in tenant's token is bound to their session. */
async function form(url: string, fields: Record<string, string>, cookies: string[] = []) {
  const { token, setCookie } = await getCsrfToken(new Request(`http://localhost${url}`, { headers: { Cookie: cookies.join("; ") } }));
  const body = new URLSearchParams({ csrf: token, ...fields });
  const all = [...(setCookie ? [setCookie.split(";")[0]!] : []), ...cookies];
  return { method: "POST", body, headers: { Cookie: all.join("; "), "Content-Type": "application/x-www-form-urlencoded" } };
}

describe("e-mail change", () => {
  it("needs the current password; a wrong one saves nothing; a right one saves and tells the old address", async () => {
    const t = await tenant();
    const contact = await contactOf(t.id);
    const newEmail = `new-${n}@example.com`;
    expect(await changeContact(ctx, { tenantId: t.id, contact: { ...contact, email: newEmail, city: "Elsewhere" }, currentPassword: undefined, ip: "10.1.0.1" })).toEqual({
      ok: false,
      fieldErrors: { current_password: [CURRENT_PASSWORD_FOR_EMAIL_MESSAGE] },
      formErrors: [],
    });
    expect(await changeContact(ctx, { tenantId: t.id, contact: { ...contact, email: newEmail, city: "Elsewhere" }, currentPassword: "wrong-pass", ip: "10.1.0.1" })).toMatchObject({
      ok: false,
      fieldErrors: { current_password: ["Your current password is not right."] },
    });
    expect((await storage.getTenant(t.id))!).toMatchObject({ email: t.email, city: contact.city });
    // Other details change without the password.
    expect(await changeContact(ctx, { tenantId: t.id, contact: { ...contact, city: "Fayetteville" }, currentPassword: undefined, ip: "10.1.0.1" })).toEqual({ ok: true });
    expect(await changeContact(ctx, { tenantId: t.id, contact: { ...contact, email: newEmail }, currentPassword: "right-pass-9", ip: "10.1.0.1" })).toEqual({ ok: true });
    expect((await storage.getTenant(t.id))!.email).toBe(newEmail);
    const notices = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, t.email));
    expect(notices.map((m) => m.subject)).toContain("Your Gatehouse customer portal email address was changed");
    expect(notices.at(-1)!.text).toContain("If you did not make this change");
  });

  it("through the profile form: the message is beside the current password and the typed values are kept", async () => {
    const t = await tenant();
    const session = (await createTenantSession(handle.db, { tenantId: t.id, now: NOW })).split(";")[0]!;
    const c = await contactOf(t.id);
    const fields = {
      intent: "contact",
      first_name: c.firstName,
      last_name: c.lastName,
      email: `typed-${n}@example.com`,
      addr_1: c.addr1,
      city: "Typed City",
      region: c.region,
      postal_code: c.postalCode,
      current_password: "",
    };
    const r = await callRoute<{ result: { error: Record<string, string[]>; initialValue: Record<string, string> } }>(profileAction, handle.db, "/customer-portal/profile", {
      init: await form("/customer-portal/profile", fields, [session]),
    });
    expect(r.status).toBe(400);
    expect(r.data.result.error.current_password).toEqual([CURRENT_PASSWORD_FOR_EMAIL_MESSAGE]);
    expect(r.data.result.initialValue).toMatchObject({ email: fields.email, city: "Typed City" });
    expect((await storage.getTenant(t.id))!.email).toBe(t.email);
  });
});

describe("current-password checks and the sign-in limit", () => {
  it("wrong current passwords (e-mail or password change) count toward the account's sign-in limit", async () => {
    const t = await tenant();
    const contact = await contactOf(t.id);
    for (let i = 0; i < SIGNIN_LIMIT_PER_ACCOUNT - 2; i++) {
      await changeContact(ctx, { tenantId: t.id, contact: { ...contact, email: `x-${n}-${i}@example.com` }, currentPassword: "wrong-pass", ip: `10.2.${n}.${i}` });
    }
    for (let i = 0; i < 2; i++) {
      expect(await changePassword(ctx, { tenantId: t.id, currentPassword: "wrong-pass", newPassword: "Tidy-Unit-42", ip: `10.3.${n}.${i}`, keepSessionHash: "x" })).toMatchObject({ ok: false });
    }
    // The account is now locked for sign-in, and for a further current-password check.
    const locked = await signIn(handle.db, storage, { accountId, email: t.email, password: "right-pass-9", ip: "10.4.0.1", now: NOW });
    expect(locked).toMatchObject({ ok: false, limited: true });
    const again = await changePassword(ctx, { tenantId: t.id, currentPassword: "right-pass-9", newPassword: "Tidy-Unit-42", ip: "10.4.0.2", keepSessionHash: "x" });
    expect(again).toMatchObject({ ok: false, fieldErrors: { current_password: [expect.stringContaining("Too many sign-in attempts")] } });
    expect(await storage.verifyTenantPassword(t.id, "right-pass-9")).toBe(true);
  });

  it("a successful password reset lifts the account's sign-in lockout", async () => {
    const t = await tenant();
    for (let i = 0; i < SIGNIN_LIMIT_PER_ACCOUNT; i++) await signIn(handle.db, storage, { accountId, email: t.email, password: "nope-nope", ip: `10.5.${n}.${i}`, now: NOW });
    expect(await signIn(handle.db, storage, { accountId, email: t.email, password: "right-pass-9", ip: "10.5.9.9", now: NOW })).toMatchObject({ limited: true });
    await requestPasswordReset(handle.db, storage, { email: t.email, ip: "10.5.8.8", origin: "http://localhost", now: NOW, siteName: "Gatehouse" });
    const [mail] = await handle.db.select().from(emailOutbox).where(and(eq(emailOutbox.to, t.email)));
    const token = /token=([A-Za-z0-9_-]+)/.exec(readOutboxMail(mail!).text)![1]!;
    expect(await resetPassword(handle.db, storage, { token, password: "Fresh-Start-77", now: NOW, accountId })).toMatchObject({ ok: true });
    expect(await signIn(handle.db, storage, { accountId, email: t.email, password: "Fresh-Start-77", ip: "10.5.9.10", now: NOW })).toMatchObject({ ok: true });
  });
});

describe("common passwords", () => {
  it("the profile password change refuses a common password and keeps the old one", async () => {
    const t = await tenant();
    expect(await changePassword(ctx, { tenantId: t.id, currentPassword: "right-pass-9", newPassword: "sunshine", ip: "10.6.0.1", keepSessionHash: "x" })).toEqual({
      ok: false,
      fieldErrors: { new_password: [COMMON_PASSWORD_MESSAGE] },
      formErrors: [],
    });
    expect(await storage.verifyTenantPassword(t.id, "right-pass-9")).toBe(true);
  });

  it("the reset form refuses a common password beside the field and leaves the link usable", async () => {
    const t = await tenant();
    await requestPasswordReset(handle.db, storage, { email: t.email, ip: "10.7.0.1", origin: "http://localhost", now: NOW, siteName: "Gatehouse" });
    const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, t.email));
    const token = /token=([A-Za-z0-9_-]+)/.exec(readOutboxMail(mail!).text)![1]!;
    const r = await callRoute<{ result: { error: Record<string, string[]> } }>(resetAction, handle.db, "/customer-portal/reset-password", {
      init: await form("/customer-portal/reset-password", { token, new_password: "iloveyou", confirm_password: "iloveyou" }),
    });
    expect(r.status).toBe(400);
    expect(r.data.result.error.new_password).toEqual([COMMON_PASSWORD_MESSAGE]);
    expect(await resetPassword(handle.db, storage, { token, password: "Fresh-Start-78", now: NOW })).toMatchObject({ ok: true });
  });

  it("the rental account form refuses a common password beside the field, keeps the typed details and holds nothing", async () => {
    const { unitTypeId } = await lumbertonUnitType(handle.db);
    const before = (await handle.db.select().from(rentals)).length;
    const email = `rent-common-${++n}@example.com`;
    const r = await callRoute<{ result: { error: Record<string, string[]>; initialValue: Record<string, string> } }>(rentAction, handle.db, `/rent/${unitTypeId}?step=details`, {
      params: { unitTypeId },
      init: await form(`/rent/${unitTypeId}`, {
        intent: "details",
        first_name: "Ada",
        last_name: "Lovelace",
        email,
        cell_phone: "(910) 555-0134",
        addr_1: "1 Main St",
        city: "Lumberton",
        region: "NC",
        postal_code: "28358",
        web_pw: "password1",
        confirm_web_pw: "password1",
      }),
    });
    expect(r.status).toBe(400);
    expect(r.data.result.error.web_pw).toEqual([COMMON_PASSWORD_MESSAGE]);
    expect(r.data.result.initialValue).toMatchObject({ email, first_name: "Ada" });
    expect(r.data.result.initialValue.web_pw).toBeUndefined();
    expect((await handle.db.select().from(rentals)).length).toBe(before);
    expect(await handle.db.select().from(tenants).where(eq(tenants.email, email))).toHaveLength(0);
  });
});
