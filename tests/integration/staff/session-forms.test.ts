/**
 * The console's forms and its sign-out (issue 23): the CSRF token of a console form is bound to the
 * staff session (decision 283), and signing out is audited (decision 282). Real route modules with
 * their layouts' middleware, on PGlite and PostgreSQL.
 */
import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { auditEvents, leadFollowUps, locations, staffSessions } from "~/db/schema";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { submitContactMessage } from "~/services/site/contact.server";
import { action as signOutAction } from "~/routes/staff/sign-out";
import { action as leadAction } from "~/routes/desk/lead";
import { action as signInAction } from "~/routes/staff/sign-in";
import { action as inviteAction } from "~/routes/staff/invite";
import { inviteByCommand } from "~/services/staff/command.server";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let accountId: number;
let locationId: number;
let leadKey: string;

beforeAll(async () => {
  handle = await createTestDatabase();
  accountId = (await getWebsite(handle.db))!.accountId;
  locationId = (await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId)).orderBy(locations.id).limit(1))[0]!.id;
  const lead = (await submitContactMessage(handle.db, { accountId, kind: "contact", locationId, locationName: "A", name: "Cora Csrf", email: "cora@example.com", phone: "9105550109", message: "A 10x10?", officeEmail: null })) as { id?: number; message?: { id: number } };
  leadKey = `contact-${lead.id ?? lead.message!.id}`;
});
afterAll(() => handle?.close());

/** A console form's token as the page at `path` gives it to the browser with these cookies. */
async function tokenFor(path: string, cookie?: string) {
  return getCsrfToken(new Request(`http://localhost${path}`, { headers: cookie ? { Cookie: cookie } : {} }));
}

function postLead(cookie: string, token: string) {
  const body = new URLSearchParams({ [CSRF_FIELD]: token, note: "Called back about a 10x10." });
  return callRoute<{ message?: string }>(leadAction, handle.db, `/admin/leads/${leadKey}`, {
    params: { leadKey },
    init: { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
  });
}

const followUps = () => handle.db.select().from(leadFollowUps);

describe("console forms' CSRF tokens are bound to the staff session", () => {
  it("a token of one staff session is refused in another, and an anonymous token is refused with a staff session", async () => {
    const a = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [locationId] });
    const b = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [locationId] });
    const mine = await tokenFor(`/admin/leads/${leadKey}`, a.cookie);
    expect(mine.setCookie).toBeNull();
    // B's browser posting A's token: refused, nothing recorded.
    expect((await postLead(b.cookie, mine.token)).status).toBe(403);
    // An anonymous double-submit token (with its cookie) beside B's staff session: refused too.
    const anonymous = await tokenFor(`/admin/leads/${leadKey}`);
    expect((await postLead(`${b.cookie}; ${anonymous.setCookie!.split(";")[0]}`, anonymous.token)).status).toBe(403);
    expect(await followUps()).toHaveLength(0);
    // A's own token in A's browser: accepted.
    const ok = await postLead(a.cookie, mine.token);
    expect(ok.status).toBe(303);
    expect(await followUps()).toHaveLength(1);
  });

  it("a token from a signed-out session no longer works once the member signs in again (a new session, a new token)", async () => {
    const m = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [locationId] });
    const old = await tokenFor("/admin", m.cookie);
    const again = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [locationId] });
    expect((await tokenFor("/admin", again.cookie)).token).not.toBe(old.token);
    expect((await postLead(again.cookie, old.token)).status).toBe(403);
  });
});

describe("signing out of the console", () => {
  async function signOut(m: TestStaffMember, token?: string) {
    const body = new URLSearchParams({ [CSRF_FIELD]: token ?? (await tokenFor("/admin/sign-out", m.cookie)).token });
    return callRoute(signOutAction, handle.db, "/admin/sign-out", {
      init: { method: "POST", body, headers: { Cookie: m.cookie, "Content-Type": "application/x-www-form-urlencoded" } },
      clientIp: "203.0.113.44",
    });
  }
  const signOuts = (staffId: number) =>
    handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "staff.sign_out"), eq(auditEvents.staffId, staffId))).orderBy(desc(auditEvents.id));

  it("ends the session and writes who, when and from which address to the audit trail; once", async () => {
    const m = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [locationId] });
    const token = (await tokenFor("/admin/sign-out", m.cookie)).token;
    const r = await signOut(m, token);
    expect(r.status).toBe(303);
    expect(r.headers.get("Location")).toBe("/admin/sign-in?signedout=1");
    expect(await handle.db.query.staffSessions.findFirst({ where: eq(staffSessions.id, m.signedIn.sessionHash) })).toBeUndefined();
    const rows = await signOuts(m.staffId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ accountId, actor: m.email, ip: "203.0.113.44", entity: "staff_member", entityId: String(m.staffId) });
    expect(JSON.stringify(rows[0])).not.toContain(m.cookie.split("=")[1]!);
    expect(JSON.stringify(rows[0])).not.toContain(m.signedIn.sessionHash);
    // The same form again (the session is gone): nobody is signed out, nothing more is recorded.
    expect((await signOut(m, token)).status).toBe(303);
    expect(await signOuts(m.staffId)).toHaveLength(1);
  });

  it("without the session's token: refused, still signed in, nothing recorded", async () => {
    const m = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [locationId] });
    const other = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [locationId] });
    const r = await signOut(m, (await tokenFor("/admin", other.cookie)).token);
    expect(r.status).toBe(403);
    expect(await handle.db.query.staffSessions.findFirst({ where: eq(staffSessions.id, m.signedIn.sessionHash) })).toBeDefined();
    expect(await signOuts(m.staffId)).toHaveLength(0);
  });
});

describe("the console's sign-in form (Conform, decision 342)", () => {
  it("answers bad input beside each field, keeps the e-mail typed and never sends the password back", async () => {
    const { token, setCookie } = await tokenFor("/admin/sign-in");
    const post = (fields: Record<string, string>) =>
      callRoute<{ email: string; errors: Record<string, string>; result: { status: string; initialValue?: Record<string, unknown>; error?: Record<string, string[]> } }>(signInAction, handle.db, "/admin/sign-in", {
        init: { method: "POST", body: new URLSearchParams({ [CSRF_FIELD]: token, ...fields }), headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" } },
      });
    const bad = await post({ email: "not-an-address", password: "Secret-Pass-77" });
    expect(bad.status).toBe(400);
    expect(bad.data.errors).toEqual({ email: "Enter an e-mail address like name@example.com." });
    expect(bad.data.email).toBe("not-an-address");
    expect(bad.data.result.error).toMatchObject({ email: ["Enter an e-mail address like name@example.com."] });
    expect(JSON.stringify(bad.data)).not.toContain("Secret-Pass-77");
    const empty = await post({ email: "", password: "" });
    expect(empty.data.errors).toEqual({ email: "Enter your e-mail address.", password: "Enter your password." });
    const wrong = await post({ email: "nobody@example.com", password: "Secret-Pass-77" });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.data)).not.toContain("Secret-Pass-77");
  });
});

describe("the invitation form (Conform, decision 342)", () => {
  it("answers bad input beside each field, keeps the name and never sends a password or the code back", async () => {
    const invited = await inviteByCommand(handle.db, { email: `invitee-${Date.now()}@example.com`, role: "owner", locationIds: [] }, new Date());
    if (!invited.ok || !("link" in invited)) throw new Error("invite failed");
    const token = invited.link.split("/admin/invite/")[1]!;
    const csrf = await tokenFor(`/admin/invite/${token}`);
    const post = (fields: Record<string, string>) =>
      callRoute<{ errors: Record<string, string>; values: { name: string }; result: { error?: Record<string, string[]> } }>(inviteAction, handle.db, `/admin/invite/${token}`, {
        params: { token },
        init: { method: "POST", body: new URLSearchParams({ [CSRF_FIELD]: csrf.token, ...fields }), headers: { Cookie: csrf.setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" } },
      });
    const bad = await post({ name: "Nadia Newhire", password: "Harbour-Lights-9", confirm: "Harbour-Lights-8", code: "12ab" });
    expect(bad.status).toBe(400);
    expect(bad.data.errors).toEqual({ confirm: "The two passwords are not the same.", code: "Enter the 6-digit code your app shows for this account." });
    expect(bad.data.values.name).toBe("Nadia Newhire");
    expect(bad.data.result.error).toMatchObject({ confirm: ["The two passwords are not the same."] });
    expect(JSON.stringify(bad.data)).not.toMatch(/Harbour-Lights|12ab/);
    const common = await post({ name: "Nadia", password: "password1", confirm: "password1", code: "123456" });
    expect(common.status).toBe(400);
    expect(common.data.errors.password).toBeTruthy();
    expect(common.data.result.error?.password).toEqual([common.data.errors.password]);
    const empty = await post({});
    expect(empty.data.errors).toMatchObject({ name: "Enter your name.", password: "Choose a password.", code: "Enter the 6-digit code from your app." });
    // Issue 36, finding 4: the staff rule (12 to 128, not the member's name or e-mail), beside the field.
    const short = await post({ name: "Nadia Newhire", password: "Gate-42x", confirm: "Gate-42x", code: "123456" });
    expect(short.status).toBe(400);
    expect(short.data.errors.password).toBe("Your password must be at least 12 characters.");
    expect(short.data.result.error?.password).toEqual(["Your password must be at least 12 characters."]);
    const long = await post({ name: "Nadia Newhire", password: "k".repeat(129), confirm: "k".repeat(129), code: "123456" });
    expect(long.data.errors.password).toBe("Your password can be at most 128 characters.");
    const named = await post({ name: "Nadia Newhire", password: "Newhire-Harbour-9", confirm: "Newhire-Harbour-9", code: "123456" });
    expect(named.data.errors.password).toMatch(/must not contain your name, your e-mail address/);
    const mailed = await post({ name: "Nadia Newhire", password: "Invitee-Harbour-9", confirm: "Invitee-Harbour-9", code: "123456" });
    expect(mailed.data.errors.password).toMatch(/must not contain your name, your e-mail address/);
  });
});
