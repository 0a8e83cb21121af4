/**
 * The staff forms converted to Conform (decision 342): the staff page's invitation and access change,
 * the re-authentication code and the passkey name answer bad input beside each field, keep what was
 * typed (never a code), with the same statuses as before. Real route modules with their layouts'
 * middleware, on PGlite.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { locations } from "~/db/schema";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { action as staffAction } from "~/routes/staff/members";
import { action as reauthAction } from "~/routes/staff/reauth";
import { action as securityAction } from "~/routes/staff/security";
import { action as changesAction } from "~/routes/content/changes";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";
import { signedInStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let accountId: number;
let locationId: number;

beforeAll(async () => {
  handle = await createTestDatabase();
  accountId = (await getWebsite(handle.db))!.accountId;
  locationId = (await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId)).orderBy(locations.id).limit(1))[0]!.id;
});
afterAll(() => handle?.close());

type Reply = { status?: string; initialValue?: Record<string, unknown> | null; error?: Record<string, string[] | null> | null };

async function post<T>(fn: (args: never) => unknown, path: string, cookie: string, fields: Array<[string, string]>) {
  const csrf = await getCsrfToken(new Request(`http://localhost${path}`, { headers: { Cookie: cookie } }));
  const body = new URLSearchParams([[CSRF_FIELD, csrf.token], ...fields]);
  return callRoute<T>(fn, handle.db, path, { init: { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } } });
}

describe("staff page", () => {
  it("an invitation with a bad address and no role is answered beside each field, the address kept", async () => {
    const owner = await signedInStaffMember(handle.db, { accountId, role: "owner" });
    const res = await post<{ form: string; errors: Record<string, string>; values: { email?: string }; result: Reply }>(staffAction, "/admin/staff", owner.cookie, [
      ["intent", "invite"],
      ["email", "not-an-address"],
      ["role", ""],
    ]);
    expect(res.status).toBe(400);
    expect(res.data.form).toBe("invite");
    expect(res.data.errors.email).toBe("Enter an e-mail address like name@example.com.");
    expect(res.data.errors.role).toBe("Choose a role from the list.");
    expect(res.data.values.email).toBe("not-an-address");
    expect(res.data.result.error?.email?.[0]).toBe("Enter an e-mail address like name@example.com.");
  });

  it("a manager without a location is answered beside the locations; with one the link is made", async () => {
    const owner = await signedInStaffMember(handle.db, { accountId, role: "owner" });
    const none = await post<{ errors: Record<string, string> }>(staffAction, "/admin/staff", owner.cookie, [
      ["intent", "invite"],
      ["email", "mia.manager@office.example"],
      ["role", "manager"],
    ]);
    expect(none.status).toBe(400);
    expect(none.data.errors.locations).toBe("Choose at least one location: this role sees only the locations given.");
    const made = await post<{ link: { url: string; email: string } | null }>(staffAction, "/admin/staff", owner.cookie, [
      ["intent", "invite"],
      ["email", " Mia.Manager@office.example "],
      ["role", "manager"],
      ["locations", String(locationId)],
    ]);
    expect(made.status).toBe(200);
    expect(made.data.link?.email).toBe("mia.manager@office.example");
    // A location that is not the account's is the server's to refuse, beside the same field.
    const unknown = await post<{ errors: Record<string, string> }>(staffAction, "/admin/staff", owner.cookie, [
      ["intent", "invite"],
      ["email", "ola@office.example"],
      ["role", "front_desk"],
      ["locations", "999999"],
    ]);
    expect(unknown.status).toBe(400);
    expect(unknown.data.errors.locations).toBe("Choose locations from the list.");
  });

  it("a member's access without a role is answered beside the role of that member's form", async () => {
    const owner = await signedInStaffMember(handle.db, { accountId, role: "owner" });
    const desk = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [locationId] });
    const res = await post<{ form: string; errors: Record<string, string> }>(staffAction, "/admin/staff", owner.cookie, [
      ["intent", "access"],
      ["staffId", String(desk.staffId)],
      ["role", ""],
    ]);
    expect(res.status).toBe(400);
    expect(res.data.form).toBe(`member-${desk.staffId}`);
    expect(res.data.errors.role).toBe("Choose a role from the list.");
    const saved = await post(staffAction, "/admin/staff", owner.cookie, [
      ["intent", "access"],
      ["staffId", String(desk.staffId)],
      ["role", "read_only"],
      ["locations", String(locationId)],
    ]);
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toBe("/admin/staff?done=access");
  });
});

describe("re-authentication and passkey name", () => {
  it("an empty or wrong code is answered beside the field and never sent back", async () => {
    const member = await signedInStaffMember(handle.db, { accountId, role: "owner" });
    const empty = await post<{ error?: string; result: Reply }>(reauthAction, "/admin/reauth", member.cookie, [["code", "  "], ["next", "/admin/staff"]]);
    expect(empty.status).toBe(400);
    expect(empty.data.error).toBe("Enter the 6-digit code from your app, or a recovery code.");
    const wrong = await post<{ error?: string; result: Reply }>(reauthAction, "/admin/reauth", member.cookie, [["code", "123456"], ["next", "/admin/staff"]]);
    expect(wrong.status).toBe(400);
    expect(wrong.data.error).toBeTruthy();
    expect(wrong.data.result.error?.code?.[0]).toBe(wrong.data.error);
    expect(JSON.stringify(wrong.data.result)).not.toContain("123456");
  });

  it("a passkey name over 60 characters is answered beside the name, kept", async () => {
    const member = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [locationId] });
    const name = "n".repeat(61);
    const res = await post<{ nameError?: string; name: string }>(securityAction, "/admin/security", member.cookie, [["intent", "add"], ["name", name], ["response", "{}"]]);
    expect(res.status).toBe(400);
    expect(res.data.nameError).toBe("The name can be at most 60 characters.");
    expect(res.data.name).toBe(name);
    const missing = await post<{ message?: string }>(securityAction, "/admin/security", member.cookie, [["intent", "other"]]);
    expect(missing.status).toBe(400);
    expect(missing.data.message).toBe("Something was missing from the form. Please try again.");
  });
});

describe("scheduling a publish", () => {
  it("a malformed date and time are answered beside each field by the form's schema, kept as typed", async () => {
    const owner = await signedInStaffMember(handle.db, { accountId, role: "owner" });
    const res = await post<{ form: string; errors: Record<string, string>; values: Record<string, string>; result: Reply }>(changesAction, "/admin/changes", owner.cookie, [
      ["intent", "schedule"],
      ["changesetId", "1"],
      ["date", "2030-02-30"],
      ["time", "25:00"],
      ["timeZone", "America/New_York"],
    ]);
    expect(res.status).toBe(400);
    expect(res.data.form).toBe("schedule");
    expect(res.data.errors.date).toBe("Enter a date as YYYY-MM-DD, for example 2025-12-01.");
    expect(res.data.errors.time).toBe("Enter a time as HH:MM, for example 00:00.");
    expect(res.data.values.date).toBe("2030-02-30");
    expect(res.data.result.error?.time?.[0]).toBe("Enter a time as HH:MM, for example 00:00.");
  });
});
