/**
 * Settings as forms (issue 39, decision 632), over real HTTP with an owner and a manager scoped to
 * Lumberton, without JavaScript (plain form posts):
 * - the account's rental settings page: each setting labelled with its meaning; a bad number is
 *   answered beside its field with every typed value kept; a good save goes into the draft, not live,
 *   and publishing applies it;
 * - a location's settings page: "Same as the website" unless chosen; a manager saves their location's,
 *   is refused (404) another location's and (403) the account's;
 * - unknown keys are refused wherever settings are written (the draft's own schema), so a misspelt
 *   key is never saved and silently ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc, eq } from "drizzle-orm";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, locations, websites } from "~/db/schema";
import { parseAccountGlobalSettings } from "~/domain/shared/account-settings";
import { changesOf, currentDraftId, readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { publishDraft, discardChangeset } from "~/services/content/publish.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let app: AppServer;
let owner: TestStaffMember;
let manager: TestStaffMember;
let lumberton: number;
let other: number;
let accountId: number;
let csrf: { cookie: string; token: string };

const get = async (path: string, member: TestStaffMember) => {
  const res = await fetch(app.origin + path, { headers: { Cookie: `${csrf.cookie}; ${member.cookie}` } });
  return { status: res.status, body: (await res.text()).replaceAll("<!-- -->", "") };
};
const post = async (path: string, member: TestStaffMember, fields: Record<string, string>) => {
  const res = await fetch(app.origin + path, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: `${csrf.cookie}; ${member.cookie}`, Referer: app.origin + path },
    body: new URLSearchParams({ [CSRF_FIELD]: (await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }))).token, ...fields }),
  });
  return { status: res.status, location: res.headers.get("location"), body: (await res.text()).replaceAll("<!-- -->", "") };
};
/** The hidden `base` the page was loaded with. */
const baseOf = (body: string) => JSON.parse((/name="base" value="([^"]*)"/.exec(body)?.[1] ?? "{}").replaceAll("&quot;", '"')) as Record<string, unknown>;
/** What the account's form submits for these settings (boxes ticked: "on"; unticked: left out). */
const accountForm = (settings: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== false).map(([k, v]) => [k, v === true ? "on" : String(v)]));

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const locs = await handle.db.select({ id: locations.id, slug: locations.urlSlug, accountId: locations.accountId }).from(locations).orderBy(asc(locations.id));
  lumberton = locs.find((l) => l.slug.startsWith("lumberton"))!.id;
  other = locs.find((l) => l.id !== lumberton)!.id;
  accountId = locs[0]!.accountId;
  owner = await signedInStaffMember(handle.db, { accountId, role: "owner" });
  manager = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [lumberton] });
  app = await startAppServer(handle.db);
  const minted = await getCsrfToken(new Request("http://localhost/admin"));
  csrf = { cookie: minted.setCookie!.split(";")[0]!, token: minted.token };
});
afterAll(async () => {
  await app?.close();
  await handle?.close();
});

describe("the account's rental settings form (issue 39)", () => {
  it("labels each setting with its meaning; a bad number is answered beside it, every value kept; a good save is drafted, then published", async () => {
    const page = await get("/admin/content/rental-settings", owner);
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<label for="field-reservation_days_valid">Days a reservation is held<\/label><p id="field-reservation_days_valid-hint" class="console-hint">How many days a reservation keeps the unit \(spec: 2\)/);
    expect(page.body).toMatch(/id="field-is_rentals_enabled" type="checkbox"[^>]*name="is_rentals_enabled" checked=""/);
    const stored = parseAccountGlobalSettings((await handle.db.select().from(accounts).where(eq(accounts.id, accountId)))[0]!.globalSettings);
    const base = JSON.stringify(baseOf(page.body));

    const bad = await post("/admin/content/rental-settings", owner, { ...accountForm({ ...stored, reservation_days_valid: "two", portal_prepay_months: 30 }), base, is_reservations_enabled: "on" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/id="field-reservation_days_valid-error"[^>]*>Enter a number\./);
    expect(bad.body).toMatch(/id="field-portal_prepay_months-error"[^>]*>Enter at most 24 months\./);
    expect(bad.body).toMatch(/id="field-reservation_days_valid"[^>]*name="reservation_days_valid" value="two"/);
    expect(bad.body).toMatch(/id="field-is_reservations_enabled" type="checkbox"[^>]*name="is_reservations_enabled" checked=""/);
    expect(await currentDraftId(handle.db, accountId)).toBeNull();

    const good = await post("/admin/content/rental-settings", owner, { ...accountForm({ ...stored, reservation_days_valid: 5, is_reservations_enabled: true }), base });
    expect(good.status).toBe(303);
    expect(good.location).toBe("/admin/content/rental-settings?done=saved");
    // In the draft, not live.
    expect(parseAccountGlobalSettings((await handle.db.select().from(accounts).where(eq(accounts.id, accountId)))[0]!.globalSettings).reservation_days_valid).toBe(2);
    const changes = await get("/admin/changes", owner);
    expect(changes.body).toContain("Rental settings");
    const draftId = (await currentDraftId(handle.db, accountId))!;
    expect((await publishDraft(handle.db, owner.signedIn, { changesetId: draftId })).ok).toBe(true);
    const live = parseAccountGlobalSettings((await handle.db.select().from(accounts).where(eq(accounts.id, accountId)))[0]!.globalSettings);
    expect(live).toMatchObject({ reservation_days_valid: 5, is_reservations_enabled: true, is_rentals_enabled: true });
  });

  it("a manager may not open or post the account's settings", async () => {
    expect((await get("/admin/content/rental-settings", manager)).status).toBe(403);
    expect((await post("/admin/content/rental-settings", manager, { base: "{}" })).status).toBe(403);
  });
});

describe("a location's settings form (issue 39)", () => {
  it("each setting is the website's unless chosen; the manager saves Lumberton's; another location's is 404", async () => {
    const page = await get(`/admin/content/locations/${lumberton}/settings`, manager);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<option value="" selected="">Same as the website (yes)</option>');
    const bad = await post(`/admin/content/locations/${lumberton}/settings`, manager, { base: "{}", rental_recovery_delay_minutes: "5", is_rentals_enabled: "no" });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/id="field-rental_recovery_delay_minutes-error"[^>]*>Enter 30 minutes or more\./);
    expect(bad.body).toMatch(/<select id="field-is_rentals_enabled" name="is_rentals_enabled"[^>]*>.*<option value="no" selected="">/s);

    const good = await post(`/admin/content/locations/${lumberton}/settings`, manager, { base: "{}", rental_recovery_delay_minutes: "90", is_rentals_enabled: "no" });
    expect(good.status).toBe(303);
    const drafted = await readEffectiveRecord(handle.db, manager.signedIn, "location", lumberton);
    expect(drafted!.values.globalSettings).toEqual({ rental_recovery_delay_minutes: 90, is_rentals_enabled: false });
    const again = await get(`/admin/content/locations/${lumberton}/settings`, manager);
    expect(again.body).toMatch(/<option value="no" selected="">No at this location<\/option>/);

    expect((await get(`/admin/content/locations/${other}/settings`, manager)).status).toBe(404);
    expect((await post(`/admin/content/locations/${other}/settings`, manager, { base: "{}", is_rentals_enabled: "no" })).status).toBe(404);
    await discardChangeset(handle.db, owner.signedIn, { changesetId: (await currentDraftId(handle.db, accountId))! });
  });
});

describe("unknown keys are refused wherever settings are written (decision 632)", () => {
  it("the draft refuses a misspelt key in a location's, the account's and the website's settings", async () => {
    const loc = await saveDraftEdit(handle.db, owner.signedIn, { op: "update", entity: "location", recordId: lumberton, values: { globalSettings: { is_rental_enabled: false } }, base: { globalSettings: {} } });
    expect(loc).toMatchObject({ ok: false, reason: "invalid" });
    const acct = await saveDraftEdit(handle.db, owner.signedIn, {
      op: "update",
      entity: "account",
      recordId: accountId,
      values: { globalSettings: { ...parseAccountGlobalSettings({}), reservaton_days_valid: 4 } },
      base: {},
    });
    expect(acct).toMatchObject({ ok: false, reason: "invalid" });
    const [site] = await handle.db.select({ id: websites.id }).from(websites).where(eq(websites.accountId, accountId));
    const website = await readEffectiveRecord(handle.db, owner.signedIn, "website", site!.id);
    const styles = { ...(website!.values.globalStyles as Record<string, unknown>), primary_colour: "#000000" };
    expect(await saveDraftEdit(handle.db, owner.signedIn, { op: "update", entity: "website", recordId: website!.id!, values: { globalStyles: styles }, base: {} })).toMatchObject({ ok: false, reason: "invalid" });
    // A key that is not a setting, posted with the form, is not a setting either: not saved.
    const posted = await post(`/admin/content/locations/${lumberton}/settings`, owner, { base: "{}", is_rental_enabled: "no" });
    expect(posted.status).toBe(303);
    const draftId = await currentDraftId(handle.db, accountId);
    expect(draftId == null ? [] : await changesOf(handle.db, draftId)).toEqual([]);
  });
});
