/**
 * Issue 24's content editors over real HTTP (tests/integration/support/app-server.ts), posted as a browser
 * without JavaScript posts them: Lumberton's Saturday office hours and a unit type's promotion land
 * in the draft and the live rows stay as they were; a bad value is answered beside its field with
 * what was typed; a stale second save shows both values and saving again keeps yours; a manager of
 * another location gets 404, front desk and read-only 403; redirect loops and chains that never end
 * are refused over the live rules with the draft over them. Decisions 301–304, 309.
 */
import { and, asc, eq, like } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { auditEvents, hoursBlocks, hoursItems, locations, redirects, unitTypes } from "~/db/schema";
import { readEffectiveRecord } from "~/services/content/changesets.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

let handle: DatabaseHandle;
let app: AppServer;
let csrf: { cookie: string; token: string };
let lumberton: number;
let other: number;
let saturdayLine: number;
let unitTypeId: number;
let websiteId: number;
const who = {} as Record<"owner" | "manager" | "otherManager" | "desk" | "readOnly", TestStaffMember>;

beforeAll(async () => {
  handle = await createTestDatabase({ seeded: true });
  const { db } = handle;
  const site = (await getWebsite(db))!;
  websiteId = site.id;
  const locs = await db.select({ id: locations.id, name: locations.name }).from(locations).where(eq(locations.accountId, site.accountId)).orderBy(asc(locations.id));
  lumberton = locs.find((l) => l.name === "Lumberton")!.id;
  other = locs.find((l) => l.id !== lumberton)!.id;
  const [line] = await db
    .select({ id: hoursItems.id })
    .from(hoursItems)
    .innerJoin(hoursBlocks, eq(hoursBlocks.id, hoursItems.hoursBlockId))
    .where(and(eq(hoursBlocks.locationId, lumberton), eq(hoursBlocks.type, "office"), eq(hoursItems.days, "Sa")));
  saturdayLine = line!.id;
  const [type] = await db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.locationId, lumberton)).orderBy(asc(unitTypes.id)).limit(1);
  unitTypeId = type!.id;
  const accountId = site.accountId;
  who.owner = await signedInStaffMember(db, { accountId, role: "owner" });
  who.manager = await signedInStaffMember(db, { accountId, role: "manager", locationIds: [lumberton] });
  who.otherManager = await signedInStaffMember(db, { accountId, role: "manager", locationIds: [other] });
  who.desk = await signedInStaffMember(db, { accountId, role: "front_desk", locationIds: [lumberton] });
  who.readOnly = await signedInStaffMember(db, { accountId, role: "read_only", locationIds: [lumberton] });
  const minted = await getCsrfToken(new Request("http://localhost/admin"));
  csrf = { cookie: minted.setCookie!.split(";")[0]!, token: minted.token };
  app = await startAppServer(db);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await handle?.close();
});

async function get(path: string, member: TestStaffMember) {
  const res = await fetch(app.origin + path, { redirect: "manual", headers: { Cookie: member.cookie } });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

/** A form post as a browser without JavaScript sends it (fields repeated for checkbox groups). */
async function post(path: string, fields: Array<[string, string]> | Record<string, string>, member: TestStaffMember) {
  // The console's forms carry the token of the member's own staff session (decision 283).
  const token = (await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }))).token;
  const body = new URLSearchParams([[CSRF_FIELD, token], ...(Array.isArray(fields) ? fields : Object.entries(fields))]);
  const res = await fetch(app.origin + path, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: `${csrf.cookie}; ${member.cookie}`, Referer: app.origin + path },
    body,
  });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** One form of a page, by its id. */
function formOf(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start, `form ${id} on the page`).toBeGreaterThan(-1);
  return html.slice(html.lastIndexOf("<form", start), html.indexOf("</form>", start));
}
const baseOf = (form: string) => decode(/name="base" value="([^"]*)"/.exec(form)![1]!);

describe("editing Lumberton's Saturday hours and a promotion (into the draft)", () => {
  it("saves Saturday's office hours to the draft; the live row is unchanged", async () => {
    const path = `/admin/content/locations/${lumberton}/hours`;
    const page = await get(path, who.manager);
    expect(page.status).toBe(200);
    const form = formOf(page.body, `line-${saturdayLine}`);
    expect(form).toContain('value="09:00"');
    const saved = await post(path, [["formId", `line-${saturdayLine}`], ["target", "hoursItem"], ["intent", "save"], ["recordId", String(saturdayLine)], ["base", baseOf(form)], ["days", "Sa"], ["open", "10:00"], ["close", "16:00"]], who.manager);
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${path}?done=saved`);
    const [live] = await handle.db.select().from(hoursItems).where(eq(hoursItems.id, saturdayLine));
    expect({ open: live!.open, close: live!.close }).toEqual({ open: "09:00", close: "14:00" });
    const draft = await readEffectiveRecord(handle.db, who.manager.signedIn, "hoursItem", saturdayLine);
    expect({ open: draft!.values.open, close: draft!.values.close, pending: draft!.pending.sort() }).toEqual({ open: "10:00", close: "16:00", pending: ["close", "open"] });
    const again = await get(`${path}?done=saved`, who.manager);
    expect(again.body).toContain("Saved to the draft");
    expect(formOf(again.body, `line-${saturdayLine}`)).toContain("Changed, not published");
    const audit = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "content.draft_update"), eq(auditEvents.entity, "hoursItem")));
    expect(audit.at(-1)!.changes).toEqual({ open: { before: "09:00", after: "10:00" }, close: { before: "14:00", after: "16:00" } });
  });

  it("adds a unit type promotion to the draft, its amount typed in dollars (decision 670); the live unit type is unchanged", async () => {
    const path = `/admin/content/unit-types/${unitTypeId}`;
    const page = await get(path, who.manager);
    expect(page.status).toBe(200);
    const form = formOf(page.body, "promotion-applies");
    // Dollars, not cents: the field says so and shows dollars.
    expect(form).not.toMatch(/in cents/i);
    expect(form).toContain("Amount off each month");
    expect(form).toContain('name="promotionAmount" value="0.00"');
    const fields = { formId: "promotion-applies", target: "unitTypePromotion", intent: "save", recordId: String(unitTypeId), base: baseOf(form), promotionKind: "amount", promotionPercent: "0", promotionMonths: "3", promotionStartsOn: "", promotionEndsOn: "" };
    // Not an amount: said beside the field, the typed value kept, nothing saved.
    const bad = await post(path, { ...fields, promotionAmount: "twenty" }, who.manager);
    expect(bad.status).toBe(400);
    const badForm = decode(formOf(bad.body, "promotion-applies"));
    expect(badForm).toMatch(/<p id="[^"]*promotionAmount[^"]*-error" class="console-error">Enter an amount in dollars, such as 25 or 25.50.<\/p>/);
    expect(badForm).toMatch(/id="promotion-applies-promotionAmount" aria-invalid="true" aria-describedby="promotion-applies-promotionAmount-hint promotion-applies-promotionAmount-error" name="promotionAmount" value="twenty"/);
    const saved = await post(path, { ...fields, promotionAmount: "$20.00" }, who.manager);
    expect(saved.status).toBe(303);
    const [live] = await handle.db.select({ kind: unitTypes.promotionKind, amount: unitTypes.promotionAmount }).from(unitTypes).where(eq(unitTypes.id, unitTypeId));
    expect(live).toEqual({ kind: "none", amount: 0 });
    const draft = await readEffectiveRecord(handle.db, who.manager.signedIn, "unitType", unitTypeId);
    expect(draft!.values).toMatchObject({ promotionKind: "amount", promotionAmount: 2000, promotionMonths: 3 });
    // The form shows it back in dollars; the location page lists its unit types with the promotion as it will be.
    expect(formOf((await get(path, who.manager)).body, "promotion-applies")).toContain('name="promotionAmount" value="20.00"');
    const location = await get(`/admin/content/locations/${lumberton}`, who.manager);
    expect(location.body).toContain("promotion: $20 off each of the first 3 months");
  });

  it("adds a line and a special date, each into the draft", async () => {
    const [block] = await handle.db.select({ id: hoursBlocks.id }).from(hoursBlocks).where(and(eq(hoursBlocks.locationId, lumberton), eq(hoursBlocks.type, "gate")));
    const path = `/admin/content/locations/${lumberton}/hours`;
    const added = await post(path, [["formId", `new-line-${block!.id}`], ["target", "hoursItem"], ["intent", "create"], ["hoursBlockId", String(block!.id)], ["days", "Su"], ["days", "Mo"], ["open", "10:00"], ["close", "18:00"]], who.manager);
    expect(added.status).toBe(303);
    const page = await get(path, who.manager);
    expect(page.body).toContain("line 2 (new)");
    const special = await post(`/admin/content/locations/${lumberton}/special-hours`, { formId: "new-date", target: "specialHours", intent: "create", date: "2031-11-27", label: "Thanksgiving", isClosed: "on" }, who.manager);
    expect(special.status).toBe(303);
    expect((await get(`/admin/content/locations/${lumberton}/special-hours`, who.manager)).body).toContain("Thanksgiving");
  });
});

describe("errors beside the field, typed values kept", () => {
  it("a closing time before the opening time", async () => {
    const path = `/admin/content/locations/${lumberton}/hours`;
    const r = await post(path, [["formId", `line-${saturdayLine}`], ["target", "hoursItem"], ["intent", "save"], ["recordId", String(saturdayLine)], ["days", "Sa"], ["open", "11:00"], ["close", "09:30"]], who.manager);
    expect(r.status).toBe(400);
    const form = formOf(r.body, `line-${saturdayLine}`);
    expect(form).toMatch(/class="console-error"[^>]*>The closing time must be after the opening time \(11:00\)\./);
    expect(form).toContain('value="09:30"');
    expect(form).toContain('value="11:00"');
    const close = /<input[^>]*name="close"[^>]*>/.exec(form)![0];
    expect(close).toContain('aria-invalid="true"');
    // Nothing saved: the draft still holds the earlier edit.
    expect((await readEffectiveRecord(handle.db, who.manager.signedIn, "hoursItem", saturdayLine))!.values.close).toBe("16:00");
  });

  // The location's settings are a form of their own now, no JSON (decision 632): its errors beside the
  // fields are checked in settings-forms.test.ts.
  it("a time that is not a time, and no day chosen", async () => {
    const path = `/admin/content/locations/${lumberton}/hours`;
    const r = await post(path, [["formId", `line-${saturdayLine}`], ["target", "hoursItem"], ["intent", "save"], ["recordId", String(saturdayLine)], ["open", "9am"], ["close", "16:00"]], who.manager);
    expect(r.status).toBe(400);
    const form = formOf(r.body, `line-${saturdayLine}`);
    expect(form).toContain("Enter a time as HH:MM, for example 09:00.");
    expect(form).toContain("Choose at least one day.");
    expect(form).toContain('value="9am"');
  });
});

describe("navigation bar, footer and global styles (decision 362)", () => {
  const path = "/admin/content/website";
  const styles = (over: Record<string, string> = {}) => ({
    primary_color: "#14457a", secondary_color: "#0d2e52", accent_color: "#f2b705", text_color: "#1f2933", background_color: "#ffffff",
    heading_font: "Source Sans 3", body_font: "Source Sans 3", button_background_color: "#14457a", button_text_color: "#ffffff",
    button_border_radius: "6px", nav_background_color: "#ffffff", nav_text_color: "#1f2933", footer_background_color: "#0d2e52", footer_text_color: "#ffffff",
    ...over,
  });

  it("shows each form with the stored values, the menus as choices", async () => {
    const page = await get(path, who.owner);
    expect(page.status).toBe(200);
    expect(formOf(page.body, "navigation-bar")).toContain('value="Rent a unit"');
    const footer = formOf(page.body, "footer");
    expect(footer).toMatch(/<option value="Company" selected="">Company<\/option>|<option selected="" value="Company">/);
    expect(footer).toContain("Quick Links");
    expect(formOf(page.body, "global-styles")).toContain('value="#14457a"');
  });

  it("a colour that is not a hex colour, a radius without a unit and an unknown menu: messages beside the fields, typed values kept, nothing saved", async () => {
    const bad = await post(path, { formId: "global-styles", target: "globalStyles", intent: "save", ...styles({ accent_color: "gold", button_border_radius: "6" }) }, who.owner);
    expect(bad.status).toBe(400);
    const form = formOf(bad.body, "global-styles");
    expect(form).toContain("Use a six-digit hex colour such as #1a4d8f");
    expect(form).toContain("Use a whole number with px, rem or em, for example 6px.");
    expect(form).toContain('value="gold"');
    expect(/<input[^>]*name="accent_color"[^>]*>/.exec(form)![0]).toContain('aria-invalid="true"');
    expect(/<input[^>]*name="button_border_radius"[^>]*>/.exec(form)![0]).toContain('aria-invalid="true"');
    const menu = await post(path, { formId: "footer", target: "footer", intent: "save", first_menu: "Nope", second_menu: "Quick Links" }, who.owner);
    expect(menu.status).toBe(400);
    expect(formOf(menu.body, "footer")).toContain("Choose one of the site&#x27;s menus.");
    const link = await post(path, { formId: "navigation-bar", target: "navigationBar", intent: "save", main_menu: "Main Menu", rent_button_text: "Rent", rent_button_url: "javascript:alert(1)" }, who.owner);
    expect(link.status).toBe(400);
    expect(formOf(link.body, "navigation-bar")).toContain('value="javascript:alert(1)"');
    const draft = await readEffectiveRecord(handle.db, who.owner.signedIn, "website", websiteId);
    expect((draft!.values.globalStyles as Record<string, string>).accent_color).toBe("#f2b705");
  });

  it("saves each into the draft's JSON, keeping its other props (the announcement bar's); the live row is unchanged", async () => {
    const page = await get(path, who.owner);
    const saved = await post(path, { formId: "global-styles", target: "globalStyles", intent: "save", base: baseOf(formOf(page.body, "global-styles")), ...styles({ accent_color: "#aa3300" }) }, who.owner);
    expect(saved.status).toBe(303);
    const nav = await post(path, { formId: "navigation-bar", target: "navigationBar", intent: "save", base: baseOf(formOf(page.body, "navigation-bar")), main_menu: "Main Menu", rent_button_text: "Book now", rent_button_url: "/view-locations" }, who.owner);
    expect(nav.status).toBe(303);
    const footer = await post(path, { formId: "footer", target: "footer", intent: "save", first_menu: "Quick Links", second_menu: "Company" }, who.owner);
    expect(footer.status).toBe(303);
    const draft = await readEffectiveRecord(handle.db, who.owner.signedIn, "website", websiteId);
    expect((draft!.values.globalStyles as Record<string, string>).accent_color).toBe("#aa3300");
    const props = (draft!.values.navComponent as { props: Array<{ name: string; value: unknown }> }).props;
    expect(props.find((p) => p.name === "rent_button_text")!.value).toBe("Book now");
    expect(props.find((p) => p.name === "announcement_bar_enabled")).toBeDefined();
    expect((draft!.values.footerComponent as { props: Array<{ name: string; value: unknown }> }).props.map((p) => p.value)).toEqual(["Quick Links", "Company"]);
    const live = (await getWebsite(handle.db))!;
    expect(live.globalStyles.accent_color).toBe("#f2b705");
  });
});

describe("two staff editing the same field", () => {
  it("refuses the stale second save with both values; saving again keeps yours", async () => {
    const path = `/admin/content/unit-types/${unitTypeId}`;
    const managerForm = formOf((await get(path, who.manager)).body, "unit-type");
    const ownerForm = formOf((await get(path, who.owner)).body, "unit-type");
    const fields = { formId: "unit-type", target: "unitType", intent: "save", recordId: String(unitTypeId) };
    expect((await post(path, { ...fields, base: baseOf(ownerForm), description: "Owner's words" }, who.owner)).status).toBe(303);
    const stale = await post(path, { ...fields, base: baseOf(managerForm), description: "Manager's words" }, who.manager);
    expect(stale.status).toBe(409);
    const form = formOf(stale.body, "unit-type");
    expect(decode(form)).toContain("Someone else changed Description to «Owner's words» since you opened this page; yours was «Manager's words». Choose which to keep.");
    expect(decode(form)).toContain("Manager's words</textarea>");
    expect(form).toContain("Keep theirs");
    expect(form).toContain("Save mine again");
    expect((await readEffectiveRecord(handle.db, who.owner.signedIn, "unitType", unitTypeId))!.values.description).toBe("Owner's words");
    // Saving again (the form now carries theirs as its base) keeps the manager's.
    const again = await post(path, { ...fields, base: baseOf(form), description: "Manager's words" }, who.manager);
    expect(again.status).toBe(303);
    expect((await readEffectiveRecord(handle.db, who.owner.signedIn, "unitType", unitTypeId))!.values.description).toBe("Manager's words");
  });
});

describe("who may edit", () => {
  it("a manager of another location gets 404; front desk and read-only 403; managers no account-wide page", async () => {
    const paths = [`/admin/content/locations/${lumberton}`, `/admin/content/locations/${lumberton}/hours`, `/admin/content/locations/${lumberton}/special-hours`, `/admin/content/locations/${lumberton}/amenities`, `/admin/content/unit-types/${unitTypeId}`];
    for (const path of paths) {
      expect({ path, status: (await get(path, who.otherManager)).status }).toEqual({ path, status: 404 });
      expect({ path, status: (await get(path, who.desk)).status }).toEqual({ path, status: 403 });
      expect({ path, status: (await get(path, who.readOnly)).status }).toEqual({ path, status: 403 });
    }
    const edit = [["formId", "x"], ["target", "hoursItem"], ["intent", "save"], ["recordId", String(saturdayLine)], ["days", "Sa"], ["open", "07:00"], ["close", "12:00"]] as Array<[string, string]>;
    expect((await post(`/admin/content/locations/${lumberton}/hours`, edit, who.otherManager)).status).toBe(404);
    // Through their own location's page, the other location's line is still not found.
    expect((await post(`/admin/content/locations/${other}/hours`, edit, who.otherManager)).status).toBe(404);
    expect((await post(`/admin/content/locations/${lumberton}/hours`, edit, who.desk)).status).toBe(403);
    expect((await post(`/admin/content/locations/${lumberton}/hours`, edit, who.readOnly)).status).toBe(403);
    expect((await readEffectiveRecord(handle.db, who.owner.signedIn, "hoursItem", saturdayLine))!.values.open).toBe("10:00");
    for (const path of ["/admin/content/website", "/admin/content/company", "/admin/content/menus", "/admin/content/pages", "/admin/content/faqs", "/admin/content/redirects"]) {
      expect({ path, status: (await get(path, who.manager)).status }).toEqual({ path, status: 403 });
      expect({ path, status: (await get(path, who.owner)).status }).toEqual({ path, status: 200 });
    }
  });
});

describe("redirects", () => {
  const path = "/admin/content/redirects";
  const add = (fromPath: string, toPath: string) => post(path, { formId: "new-redirect", target: "redirect", intent: "create", fromPath, toPath, statusCode: "301", isForced: "on" }, who.owner);

  it("refuses a loop, showing its path, judged with the draft's own rules", async () => {
    expect((await add("/Loop-A/", "/loop-b")).status).toBe(303);
    const r = await add("/loop-b", "/loop-a");
    expect(r.status).toBe(400);
    expect(decode(formOf(r.body, "new-redirect"))).toContain("This redirect would make a loop: /loop-b → /loop-a → /loop-b");
    expect(decode(r.body)).toContain('value="/loop-a"');
  });

  it("refuses a chain that never ends (a rule leading into an existing loop)", async () => {
    await handle.db.insert(redirects).values([
      { websiteId, fromPath: "/x1", toPath: "/x2" },
      { websiteId, fromPath: "/x2", toPath: "/x1" },
    ]);
    const r = await add("/x0", "/x1");
    expect(r.status).toBe(400);
    expect(decode(r.body)).toContain("This redirect would lead into a chain that never ends: /x0 → /x1 → /x2 → /x1 → …");
  });

  // Issue 36, finding 5: "/\\evil.example" was saved, and browsers follow it to evil.example.
  it.each([
    ["/\\evil.example", "backslash"],
    ["\\\\evil.example", "backslash"],
    ["/%5Cevil.example", "backslash"],
    ["/\t/evil.example", "spaces, tabs or line breaks"],
    ["/x\n/evil.example", "spaces, tabs or line breaks"],
    ["/%2F/evil.example", "a path like /contact"],
  ])("refuses %j as a target, beside the field, with what was typed", async (toPath, words) => {
    const r = await add(`/bs-${words.length}-${toPath.length}`, toPath);
    expect(r.status).toBe(400);
    expect(decode(formOf(r.body, "new-redirect"))).toContain(words);
    expect(await handle.db.select({ id: redirects.id }).from(redirects).where(eq(redirects.toPath, toPath))).toEqual([]);
  });

  it("shows a target off the site as external, in the list and in what will change", async () => {
    expect((await add("/pay-bill", "https://pay.example.com/bill")).status).toBe(303);
    const list = decode((await get(path, who.owner)).body);
    expect(list).toContain("/pay-bill → https://pay.example.com/bill (external: leaves the site for pay.example.com)");
    expect(list).not.toMatch(/\/loop-b → \/loop-a \(external/);
    const diff = decode((await get("/admin/changes/diff", who.owner)).body);
    expect(diff).toContain("https://pay.example.com/bill — external: leaves the site for pay.example.com");
  });

  it("judges over the live rules with the draft over them: a rule the draft removes no longer counts", async () => {
    const [live] = await handle.db.insert(redirects).values({ websiteId, fromPath: "/d1", toPath: "/d2" }).returning({ id: redirects.id });
    expect((await add("/d2", "/d1")).status).toBe(400);
    expect((await post(path, { formId: `redirect-${live!.id}`, target: "redirect", intent: "delete", recordId: String(live!.id) }, who.owner)).status).toBe(303);
    expect((await add("/d2", "/d1")).status).toBe(303);
    // The live rows are as they were: the draft holds both edits.
    expect(await handle.db.select({ fromPath: redirects.fromPath }).from(redirects).where(like(redirects.fromPath, "/d%"))).toEqual([{ fromPath: "/d1" }]);
  });
});
