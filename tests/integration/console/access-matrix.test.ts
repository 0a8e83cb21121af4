/**
 * Issue 23's role × route matrix, over real HTTP (tests/integration/support/app-server.ts): every console
 * route of app/routes.ts and every action on it, tried by each role — owner, manager, front desk and
 * read-only (the last three at location A) — and by nobody signed in:
 * - allowed: 200 (an action: its redirect, or its own form answer), never a 500;
 * - not permitted: the 403 page, naming no record;
 * - a record at location B: 404 as if it did not exist, for everyone but the owner;
 * - not signed in: a redirect to /admin/sign-in before any page runs;
 * - the navigation shows exactly the pages the role may open, and each of its links opens;
 * - pages and actions that need a fresh second factor send a permitted member with a stale one to
 *   /admin/reauth.
 * A console route added to app/routes.ts without a line in EXPECTED fails here: add it to the matrix.
 * Forms carry a valid CSRF token, so a refusal is the role's, not the token's.
 * Decision 275.
 */
import { asc, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { auditEvents, hoursBlocks, locations, menus, pages, sitelinkWrites, unitTypes } from "~/db/schema";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { publishDraft } from "~/services/content/publish.server";
import type { StaffRole } from "~/domain/staff/roles";
import { submitContactMessage } from "~/services/site/contact.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { FORBIDDEN_MESSAGE } from "~/services/staff/context.server";
import { storageFor } from "~/storage-software/index.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { card } from "../support/rental-fixtures";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, STALE_FACTOR_MS, type TestStaffMember } from "../support/staff-fixtures";
import { siteOriginFromConsole } from "~/services/site/origin.server";

const ROLES = ["owner", "managerA", "deskA", "readOnlyA"] as const;
type Who = (typeof ROLES)[number];
const ROLE_OF: Record<Who, StaffRole> = { owner: "owner", managerA: "manager", deskA: "front_desk", readOnlyA: "read_only" };

/** Expected answers per role: a status, or "reauth" (303 to /admin/reauth) / a Location prefix for a redirect. */
type Outcome = number | { redirect: string };
type PerRole = Record<Who, Outcome>;
const all = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: o, readOnlyA: o });
const ownerOnly = (o: Outcome): PerRole => ({ owner: o, managerA: 403, deskA: 403, readOnlyA: 403 });
const exporters = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: 403, readOnlyA: 403 });
const actors = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: o, readOnlyA: 403 });
const editors = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: 403, readOnlyA: 403 });

interface Fixture {
  leadA: string;
  leadB: string;
  leadNameB: string;
  tenantA: { tenantId: number; leaseId: number; paymentId: number };
  tenantB: { tenantId: number; leaseId: number; paymentId: number };
  tenantEmailB: string;
  /** SiteLink journal rows needing attention, one per role and location (resolving one settles it). */
  journalKey: (loc: "A" | "B", who: Who | "nobody") => string;
  target: TestStaffMember;
  /** Issue 24's content pages: records at A and B, and the account-wide ones. */
  content: {
    locA: number;
    locB: number;
    nameB: string;
    blockA: number;
    blockB: number;
    unitTypeA: number;
    unitTypeB: number;
    unitTypeNameB: string;
    websiteId: number;
    accountId: number;
    menuId: number;
    pageId: number;
  };
  /** An audited content edit (location A's tagline), published: version 1. */
  contentEventId: number;
  /** Issue 24's image pages: a location's name and a unit type at each location. */
  locA: number;
  locB: number;
  locationNameB: string;
  unitTypeA: number;
  unitTypeB: number;
}

interface ActionCase {
  name: string;
  /** The form's path (default: the route's GET path). */
  path?: (f: Fixture) => string;
  form: (f: Fixture, who: Who | "nobody") => Record<string, string>;
  expect: PerRole;
}

interface RouteCase {
  /** The path to GET (records: the one at location A). */
  path: (f: Fixture) => string;
  get: PerRole;
  /** In the navigation for the roles whose GET is 200. */
  nav?: boolean;
  /** Needs a second factor given within the last ten minutes (decision 250). */
  fresh?: boolean;
  /** A record route: the same record kind at location B, and what each role gets for it. */
  outOfScope?: { path: (f: Fixture) => string; get: PerRole; secret: (f: Fixture) => string };
  actions?: ActionCase[];
  /** Actions on the record at location B. */
  outOfScopeActions?: ActionCase[];
}

const B_RECORD: PerRole = { owner: 200, managerA: 404, deskA: 404, readOnlyA: 404 };
const journalActors = (o: Outcome): PerRole => ({ owner: o, managerA: o, deskA: 403, readOnlyA: 403 });
const B_CONTENT: PerRole = { owner: 200, managerA: 404, deskA: 403, readOnlyA: 403 };
const bContent = (o: Outcome): PerRole => ({ owner: o, managerA: 404, deskA: 403, readOnlyA: 403 });
const DAY: Record<Who | "nobody", string> = { owner: "01", managerA: "02", deskA: "03", readOnlyA: "04", nobody: "05" };
/** A location page of issue 24: GET at A and B, and one edit at each. */
function locationContent(sub: string, form: (f: Fixture, who: Who | "nobody", loc: "A" | "B") => Record<string, string>): RouteCase {
  const path = (loc: "A" | "B") => (f: Fixture) => `/admin/content/locations/${loc === "A" ? f.content.locA : f.content.locB}${sub}`;
  return {
    path: path("A"),
    get: editors(200),
    outOfScope: { path: path("B"), get: B_CONTENT, secret: (f) => f.content.nameB },
    actions: [{ name: `edit${sub || " details"}`, form: (f, who) => form(f, who, "A"), expect: editors({ redirect: "/admin/content/locations/" }) }],
    outOfScopeActions: [{ name: `edit${sub || " details"} (location B)`, path: path("B"), form: (f, who) => form(f, who, "B"), expect: bContent({ redirect: "/admin/content/locations/" }) }],
  };
}
const EDITOR_B_RECORD: PerRole = { owner: 200, managerA: 404, deskA: 403, readOnlyA: 403 };

/** Every route under the console's signed-in layout (routes/admin.layout.tsx), by route id. */
const EXPECTED: Record<string, RouteCase> = {
  "routes/console/home": { path: () => "/admin", get: all(200), nav: true },
  "routes/staff/reauth": {
    path: () => "/admin/reauth?next=%2Fadmin%2Fstaff",
    get: all(200),
    // Anyone signed in may confirm a factor: an empty code is answered beside the field.
    actions: [{ name: "confirm with no code", form: () => ({ code: "", next: "/admin" }), expect: all(400) }],
  },
  "routes/staff/members": {
    path: () => "/admin/staff",
    get: ownerOnly(200),
    nav: true,
    fresh: true,
    actions: [
      { name: "end a member's sessions", form: (f) => ({ intent: "sessions", staffId: String(f.target.staffId) }), expect: ownerOnly({ redirect: "/admin/staff?done=sessions" }) },
      { name: "change a member's role", form: (f) => ({ intent: "access", staffId: String(f.target.staffId), role: "front_desk", locations: String(f.target.locationIds[0]) }), expect: ownerOnly({ redirect: "/admin/staff?done=access" }) },
      { name: "invite", form: () => ({ intent: "invite", email: `invited-${Date.now()}@office.example`, role: "owner" }), expect: ownerOnly(200) },
      // Issue 39: lifting a member's lockout; disabling and resetting a sign-in ask for the box first.
      { name: "lift a member's lockout", form: (f) => ({ intent: "lift-lockout", staffId: String(f.target.staffId) }), expect: ownerOnly({ redirect: "/admin/staff?done=lockout" }) },
      { name: "disable a member without the confirmation box", form: (f) => ({ intent: "disable", staffId: String(f.target.staffId) }), expect: ownerOnly(400) },
      { name: "reset a member's sign-in without the confirmation box", form: (f) => ({ intent: "reset-sign-in", staffId: String(f.target.staffId) }), expect: ownerOnly(400) },
    ],
  },
  // Every member's own sign-in page (passkeys): open to all roles, with a fresh second factor.
  "routes/staff/security": {
    path: () => "/admin/security",
    get: all(200),
    nav: true,
    fresh: true,
    actions: [{ name: "remove a passkey that is not theirs", form: () => ({ intent: "remove", passkeyId: "999999" }), expect: all(404) }],
  },
  // Every member's own reports by e-mail (issue 40, decision 610): the page for all; choosing a report
  // for owners and managers only.
  "routes/console/reports": {
    path: () => "/admin/reports",
    get: all(200),
    nav: true,
    actions: [{ name: "choose a daily report", form: () => ({ frequency: "daily", hour: "7", weekday: "1" }), expect: editors({ redirect: "/admin/reports?saved=1" }) }],
  },
  "routes/audit/trail": {
    path: () => "/admin/audit",
    get: ownerOnly(200),
    nav: true,
    fresh: true,
    // "Revert this field" of a content edit (issue 24): a new draft change.
    actions: [{ name: "revert a content field", form: (f) => ({ eventId: String(f.contentEventId), field: "metaTagline" }), expect: ownerOnly({ redirect: "/admin/audit?reverted=1" }) }],
  },
  "routes/audit/trail[.]csv": { path: () => "/admin/audit.csv", get: ownerOnly(200), fresh: true },
  "routes/desk/rentals": { path: () => "/admin/rentals", get: all(200), nav: true },
  "routes/desk/rentals[.]csv": { path: () => "/admin/rentals.csv", get: exporters(200), fresh: true },
  "routes/desk/reservations": { path: () => "/admin/reservations", get: all(200), nav: true },
  "routes/desk/reservations[.]csv": { path: () => "/admin/reservations.csv", get: exporters(200), fresh: true },
  "routes/desk/leads": { path: () => "/admin/leads", get: all(200), nav: true },
  "routes/desk/leads[.]csv": { path: () => "/admin/leads.csv", get: exporters(200), fresh: true },
  "routes/desk/lead": {
    path: (f) => `/admin/leads/${f.leadA}`,
    get: all(200),
    outOfScope: { path: (f) => `/admin/leads/${f.leadB}`, get: B_RECORD, secret: (f) => f.leadNameB },
    actions: [{ name: "mark contacted", form: () => ({ note: "Called back, will visit Saturday." }), expect: actors({ redirect: "/admin/leads/" }) }],
    outOfScopeActions: [
      {
        name: "mark contacted (location B)",
        path: (f) => `/admin/leads/${f.leadB}`,
        form: () => ({ note: "Called back." }),
        expect: { owner: { redirect: "/admin/leads/" }, managerA: 404, deskA: 404, readOnlyA: 403 },
      },
    ],
  },
  "routes/desk/payments": { path: () => "/admin/payments", get: all(200), nav: true },
  "routes/desk/payments[.]csv": { path: () => "/admin/payments.csv", get: exporters(200), fresh: true },
  // Reconciliation (issue 35, decision 440): every desk role reads it; managers and owners resolve (a difference that is not theirs: 404).
  "routes/desk/reconciliation": {
    path: () => "/admin/reconciliation",
    get: all(200),
    nav: true,
    actions: [{ name: "resolve a difference that does not exist", form: () => ({ id: "999999", note: "Checked in the dashboard." }), expect: journalActors(404) }],
  },
  "routes/desk/tenants": { path: () => "/admin/tenants", get: all(200), nav: true },
  "routes/desk/tenants[.]csv": { path: () => "/admin/tenants.csv", get: exporters(200), fresh: true },
  "routes/desk/tenant": {
    path: (f) => `/admin/tenants/${f.tenantA.tenantId}`,
    get: all(200),
    outOfScope: { path: (f) => `/admin/tenants/${f.tenantB.tenantId}`, get: B_RECORD, secret: (f) => f.tenantEmailB },
    actions: [
      { name: "resend the lease e-mail", form: (f) => ({ intent: "resend-lease", leaseId: String(f.tenantA.leaseId) }), expect: actors({ redirect: "/admin/tenants/" }) },
      // No mail server is set up here: sending is refused beside the button (decision 507), after the role and location checks.
      { name: "send a pay link", form: (f) => ({ intent: "send-pay-link", leaseId: String(f.tenantA.leaseId) }), expect: actors(400) },
      // Refunds: managers and owners (decision 280); the second to try finds it refunded already.
      { name: "refund a payment", form: (f) => ({ intent: "refund-payment", paymentId: String(f.tenantA.paymentId), confirm: "yes" }), expect: exporters({ redirect: "/admin/tenants/" }) },
      // The desk's own work on the tenant (decisions 640–641): the desk, managers and owners; never read-only.
      { name: "add a note", form: () => ({ intent: "add-note", note: "Called back." }), expect: actors({ redirect: "/admin/tenants/" }) },
      { name: "show the gate code", form: (f) => ({ intent: "show-gate-code", leaseId: String(f.tenantA.leaseId) }), expect: actors(200) },
    ],
    outOfScopeActions: [
      {
        name: "resend the lease e-mail (location B)",
        path: (f) => `/admin/tenants/${f.tenantB.tenantId}`,
        form: (f) => ({ intent: "resend-lease", leaseId: String(f.tenantB.leaseId) }),
        expect: { owner: { redirect: "/admin/tenants/" }, managerA: 404, deskA: 404, readOnlyA: 403 },
      },
      {
        name: "send a pay link (location B)",
        path: (f) => `/admin/tenants/${f.tenantB.tenantId}`,
        form: (f) => ({ intent: "send-pay-link", leaseId: String(f.tenantB.leaseId) }),
        expect: { owner: 400, managerA: 404, deskA: 404, readOnlyA: 403 },
      },
      {
        name: "refund a payment (location B)",
        path: (f) => `/admin/tenants/${f.tenantB.tenantId}`,
        form: (f) => ({ intent: "refund-payment", paymentId: String(f.tenantB.paymentId), confirm: "yes" }),
        expect: { owner: { redirect: "/admin/tenants/" }, managerA: 404, deskA: 403, readOnlyA: 403 },
      },
    ],
  },
  // Mail that could not be sent (decision 645): every desk role, scoped by location in the list itself.
  "routes/mail/unsent": { path: () => "/admin/unsent-mail", get: all(200) },
  "routes/desk/sitelink-journal": {
    path: () => "/admin/sitelink-journal",
    get: all(200),
    nav: true,
    actions: [
      // A payment's row cannot be reconciled from here: the answer says so (200), beside the button.
      { name: "retry", form: (f, who) => ({ intent: "retry", key: f.journalKey("A", who) }), expect: journalActors(200) },
      { name: "mark resolved", form: (f, who) => ({ intent: "resolve", key: f.journalKey("A", who), note: "Checked in SiteLink: posted." }), expect: journalActors({ redirect: "/admin/sitelink-journal?" }) },
    ],
    outOfScopeActions: [
      { name: "retry (location B)", path: () => "/admin/sitelink-journal", form: (f, who) => ({ intent: "retry", key: f.journalKey("B", who) }), expect: { owner: 200, managerA: 404, deskA: 403, readOnlyA: 403 } },
      {
        name: "mark resolved (location B)",
        path: () => "/admin/sitelink-journal",
        form: (f, who) => ({ intent: "resolve", key: f.journalKey("B", who), note: "Checked in SiteLink: posted." }),
        expect: { owner: { redirect: "/admin/sitelink-journal?" }, managerA: 404, deskA: 403, readOnlyA: 403 },
      },
    ],
  },
  // Issue 24 (decisions 315, 318): preview mode and the draft's diff need content.edit (owners, managers);
  // leaving preview is open to anyone signed in.
  "routes/content/preview": {
    path: () => "/admin/preview",
    get: exporters(200),
    nav: true,
    actions: [
      // The preview is the public site's, on another origin than the console's (decision 450): a grant to its /preview/start; leaving, its /preview/end.
      { name: "turn preview on", form: () => ({ intent: "on", returnTo: "/" }), expect: exporters({ redirect: `${siteOriginFromConsole(null)}/preview/start?grant=` }) },
      { name: "leave preview", form: () => ({ intent: "off", returnTo: "/faqs" }), expect: all({ redirect: `${siteOriginFromConsole(null)}/preview/end` }) },
    ],
  },
  "routes/content/changes.diff": { path: () => "/admin/changes/diff", get: exporters(200) },
  "routes/content/edit._index": { path: () => "/admin/content", get: editors(200), nav: true },
  "routes/content/edit.location": locationContent("", (f, _who, loc) => ({ target: "location-meta", intent: "save", recordId: String(loc === "A" ? f.content.locA : f.content.locB), metaTitle: "", metaTagline: "Matrix tagline", metaDescription: "" })),
  "routes/content/edit.location-hours": locationContent("/hours", (f, who, loc) => ({
    target: "hoursItem",
    intent: "create",
    hoursBlockId: String(loc === "A" ? f.content.blockA : f.content.blockB),
    days: "Su",
    open: `1${DAY[who].slice(1)}:00`,
    close: "18:00",
  })),
  "routes/content/edit.location-special-hours": locationContent("/special-hours", (_f, who) => ({ target: "specialHours", intent: "create", date: `2031-12-${DAY[who]}`, label: "Matrix", isClosed: "on" })),
  "routes/content/edit.location-amenities": locationContent("/amenities", (_f, who) => ({ target: "amenity", intent: "create", label: `Matrix ${who}`, description: "" })),
  // Rental settings (issue 39, decision 632): a location's own (editors, in scope), the account's (owners).
  "routes/content/edit.location-settings": locationContent("/settings", () => ({ base: "{}" })),
  "routes/content/edit.rental-settings": {
    path: () => "/admin/content/rental-settings",
    get: ownerOnly(200),
    actions: [
      // A number refused beside its field: the owner's own form answer (a save is tested in content/settings-forms.test.ts).
      { name: "save a days value that is not a number", form: () => ({ reservation_days_valid: "two", base: "{}" }), expect: ownerOnly(400) },
    ],
  },
  "routes/content/edit.unit-type": {
    path: (f) => `/admin/content/unit-types/${f.content.unitTypeA}`,
    get: editors(200),
    outOfScope: { path: (f) => `/admin/content/unit-types/${f.content.unitTypeB}`, get: B_CONTENT, secret: (f) => f.content.nameB },
    actions: [{ name: "set a description", form: (f, who) => ({ target: "unitType", intent: "save", recordId: String(f.content.unitTypeA), isHiddenOnline: "", description: `Matrix ${who}` }), expect: editors({ redirect: "/admin/content/unit-types/" }) }],
    outOfScopeActions: [
      {
        name: "set a description (location B)",
        path: (f) => `/admin/content/unit-types/${f.content.unitTypeB}`,
        form: (f, who) => ({ target: "unitType", intent: "save", recordId: String(f.content.unitTypeB), isHiddenOnline: "", description: `Matrix ${who}` }),
        expect: bContent({ redirect: "/admin/content/unit-types/" }),
      },
    ],
  },
  // A new location from the console (issue 40, decision 620): owners only.
  "routes/content/locations.new": {
    path: () => "/admin/content/locations/new",
    get: ownerOnly(200),
    actions: [
      {
        name: "add a location",
        form: (_f, who) => ({
          name: `Matrix ${who}`, status: "Live", street1: "1 Matrix St", street2: "", city: `Matrix ${who}`, stateProvince: "NC", postal: "28401", timeZone: "America/New_York",
          phoneNumber: "(910) 555-0100", sms: "", gate_weekdays: "24h", gate_saturday: "24h", gate_sunday: "24h", office_weekdays: "hours", office_weekdays_open: "09:00",
          office_weekdays_close: "17:00", office_saturday: "closed", office_sunday: "closed", software: "demo",
        }),
        expect: ownerOnly({ redirect: "/admin/content/locations/" }),
      },
    ],
  },
  "routes/content/edit.website": {
    path: () => "/admin/content/website",
    get: ownerOnly(200),
    actions: [
      { name: "save the analytics id", form: (f) => ({ target: "website-general", intent: "save", recordId: String(f.content.websiteId), websiteName: "Matrix storage", analyticsId: "G-MATRIX1" }), expect: ownerOnly({ redirect: "/admin/content/website?done=saved" }) },
      { name: "save the announcement bar", form: () => ({ target: "announcementBar", intent: "save", enabled: "on", text: "Matrix", phone: "" }), expect: ownerOnly({ redirect: "/admin/content/website?done=saved" }) },
      { name: "save the navigation bar", form: () => ({ target: "navigationBar", intent: "save", main_menu: "Main Menu", rent_button_text: "Matrix", rent_button_url: "/view-locations" }), expect: ownerOnly({ redirect: "/admin/content/website?done=saved" }) },
      { name: "save the footer", form: () => ({ target: "footer", intent: "save", first_menu: "Company", second_menu: "Quick Links" }), expect: ownerOnly({ redirect: "/admin/content/website?done=saved" }) },
      {
        name: "save the global styles",
        form: () => ({
          target: "globalStyles", intent: "save", primary_color: "#14457a", secondary_color: "#0d2e52", accent_color: "#f2b705", text_color: "#1f2933", background_color: "#ffffff",
          heading_font: "Source Sans 3", body_font: "Source Sans 3", button_background_color: "#14457a", button_text_color: "#ffffff", button_border_radius: "6px",
          nav_background_color: "#ffffff", nav_text_color: "#1f2933", footer_background_color: "#0d2e52", footer_text_color: "#ffffff",
        }),
        expect: ownerOnly({ redirect: "/admin/content/website?done=saved" }),
      },
    ],
  },
  "routes/content/edit.company": {
    path: () => "/admin/content/company",
    get: ownerOnly(200),
    actions: [{ name: "save the tagline", form: (f) => ({ target: "account", intent: "save", recordId: String(f.content.accountId), name: "Matrix Co", tagline: "Matrix", companyInformation: "<p>Hi</p>", privacyPolicy: "<p>Private</p>" }), expect: ownerOnly({ redirect: "/admin/content/company?done=saved" }) }],
  },
  "routes/content/edit.menus": {
    path: () => "/admin/content/menus",
    get: ownerOnly(200),
    actions: [{ name: "add a menu item", form: (f, who) => ({ target: "menuItem", intent: "create", menuId: String(f.content.menuId), name: `Matrix ${who}`, url: "/faqs", parentId: "", isInternal: "on" }), expect: ownerOnly({ redirect: "/admin/content/menus?done=added" }) }],
  },
  "routes/content/edit.pages": {
    path: () => "/admin/content/pages",
    get: ownerOnly(200),
    actions: [{ name: "save a page", form: (f) => ({ target: "page", intent: "save", recordId: String(f.content.pageId), title: "Matrix page", metaTitle: "", metaDescription: "", content: "<p>Matrix</p>" }), expect: ownerOnly({ redirect: "/admin/content/pages?done=saved" }) }],
  },
  "routes/content/edit.faqs": {
    path: () => "/admin/content/faqs",
    get: ownerOnly(200),
    actions: [{ name: "add an FAQ", form: (_f, who) => ({ target: "contentItem", intent: "create", tag: "FAQ", title: `Matrix ${who}?`, content: "Yes." }), expect: ownerOnly({ redirect: "/admin/content/faqs?done=added" }) }],
  },
  "routes/content/edit.redirects": {
    path: () => "/admin/content/redirects",
    get: ownerOnly(200),
    actions: [{ name: "add a redirect", form: (_f, who) => ({ target: "redirect", intent: "create", fromPath: `/matrix-${who}`, toPath: "/faqs", statusCode: "301", isForced: "on" }), expect: ownerOnly({ redirect: "/admin/content/redirects?done=added" }) }],
  },
  // Website changes (issue 24): owners and managers (`content.edit`); restoring a version: owners.
  "routes/content/changes": {
    path: () => "/admin/changes",
    get: editors(200),
    nav: true,
    actions: [
      { name: "publish a draft that is gone", form: () => ({ intent: "publish", changesetId: "999999" }), expect: editors(400) },
      { name: "schedule with no date", form: () => ({ intent: "schedule", changesetId: "999999", date: "", time: "00:00", timeZone: "America/New_York" }), expect: editors(400) },
    ],
  },
  "routes/content/changes.version": {
    path: () => "/admin/changes/versions/0",
    get: ownerOnly(200),
    actions: [{ name: "restore version 0", form: () => ({}), expect: ownerOnly({ redirect: "/admin/changes?done=restored" }) }],
  },
  // Images (issue 24, decision 322): an upload with no file is answered beside the field (400).
  "routes/content/edit.images": {
    path: () => "/admin/content/images",
    get: editors(200),
    nav: true,
    actions: [{ name: "upload the website's logo with no file", form: () => ({ intent: "upload", target: "website.logo", alt: "Logo" }), expect: { owner: 400, managerA: 404, deskA: 403, readOnlyA: 403 } }],
  },
  "routes/content/edit.location-photos": {
    path: (f) => `/admin/content/locations/${f.locA}/photos`,
    get: editors(200),
    outOfScope: { path: (f) => `/admin/content/locations/${f.locB}/photos`, get: EDITOR_B_RECORD, secret: (f) => f.locationNameB },
    actions: [
      { name: "add a photo with no file", form: () => ({ intent: "add-photo", target: "new", alt: "Units" }), expect: editors(400) },
      { name: "remove the image of an amenity that is not there", form: () => ({ intent: "clear", target: "amenity:id:999999" }), expect: editors(404) },
    ],
    outOfScopeActions: [
      {
        name: "add a photo with no file (location B)",
        path: (f) => `/admin/content/locations/${f.locB}/photos`,
        form: () => ({ intent: "add-photo", target: "new", alt: "Units" }),
        expect: { owner: 400, managerA: 404, deskA: 403, readOnlyA: 403 },
      },
    ],
  },
  "routes/content/edit.unit-type-photos": {
    path: (f) => `/admin/content/unit-types/${f.unitTypeA}/photos`,
    get: editors(200),
    outOfScope: { path: (f) => `/admin/content/unit-types/${f.unitTypeB}/photos`, get: EDITOR_B_RECORD, secret: (f) => f.locationNameB },
    actions: [{ name: "add a photo with no file", form: () => ({ intent: "add-photo", target: "new", alt: "Unit" }), expect: editors(400) }],
    outOfScopeActions: [
      {
        name: "add a photo with no file (location B)",
        path: (f) => `/admin/content/unit-types/${f.unitTypeB}/photos`,
        form: () => ({ intent: "add-photo", target: "new", alt: "Unit" }),
        expect: { owner: 400, managerA: 404, deskA: 403, readOnlyA: 403 },
      },
    ],
  },
  "routes/console/not-found": { path: () => "/admin/no-such-page", get: all(404) },
};

/** The console's pages outside the signed-in layout (signing in, invitations): open to anyone. */
const PUBLIC_CONSOLE_ROUTES: Record<string, { path: string; anonymous: Outcome }> = {
  "routes/staff/sign-in": { path: "/admin/sign-in", anonymous: 200 },
  "routes/staff/sign-in.code": { path: "/admin/sign-in/code", anonymous: { redirect: "/admin/sign-in" } },
  "routes/staff/sign-out": { path: "/admin/sign-out", anonymous: { redirect: "/admin" } },
  "routes/staff/invite": { path: "/admin/invite/not-a-real-token-0123456789abcdef0123456789", anonymous: 410 },
  "routes/staff/forgot-password": { path: "/admin/forgot-password", anonymous: 200 },
  "routes/staff/reset-password": { path: "/admin/reset-password/not-a-real-token-0123456789abcdef0123456789", anonymous: 410 },
  // The report e-mail's unsubscribe link (issue 40, decision 612): a token not ours is a 404.
  "routes/console/reports.unsubscribe": { path: "/admin/reports/unsubscribe/1.not-a-real-token", anonymous: 404 },
};

const LAYOUT = "routes/console/layout";
const SHELL = "routes/console/shell";

let handle: DatabaseHandle;
let app: AppServer;
let accountId: number;
let locA: number;
let locB: number;
let csrf: { cookie: string; token: string };
const members = {} as Record<Who, TestStaffMember>;
const fixture = {} as Fixture;

beforeAll(async () => {
  handle = await createTestDatabase();
  const { db } = handle;
  accountId = (await getWebsite(db))!.accountId;
  [locA, locB] = (await db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId)).orderBy(asc(locations.id)).limit(2)).map((r) => r.id) as [number, number];
  for (const who of ROLES) members[who] = await signedInStaffMember(db, { accountId, role: ROLE_OF[who], locationIds: who === "owner" ? [] : [locA], name: who });
  fixture.locA = locA;
  fixture.locB = locB;
  fixture.locationNameB = (await db.select({ name: locations.name }).from(locations).where(eq(locations.id, locB)))[0]!.name;
  const typeAt = async (locationId: number) =>
    (
      (await db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.locationId, locationId)).limit(1))[0] ??
      (await db.insert(unitTypes).values({ locationId, name: "Matrix", category: "indoor", width: 10, length: 10, standardRate: 10000, webRate: 9000 }).returning({ id: unitTypes.id }))[0]!
    ).id;
  fixture.unitTypeA = await typeAt(locA);
  fixture.unitTypeB = await typeAt(locB);
  fixture.target = await signedInStaffMember(db, { accountId, role: "front_desk", locationIds: [locA], name: "target" });
  const tagline = (await readEffectiveRecord(db, members.owner.signedIn, "location", locA))!.values.metaTagline;
  const edited = await saveDraftEdit(db, members.owner.signedIn, { op: "update", entity: "location", recordId: locA, values: { metaTagline: "Matrix tagline" }, base: { metaTagline: tagline } });
  if (!edited.ok || !(await publishDraft(db, members.owner.signedIn, { changesetId: edited.changesetId })).ok) throw new Error("the matrix's published version could not be made");
  const [event] = await db.select({ id: auditEvents.id }).from(auditEvents).where(eq(auditEvents.action, "content.draft_update")).orderBy(desc(auditEvents.id)).limit(1);
  fixture.contentEventId = event!.id;
  const a = await submitContactMessage(db, { accountId, kind: "contact", locationId: locA, locationName: "A", name: "Alma Atlocation", email: "alma@example.com", phone: "9105550101", message: "A 10x10?", officeEmail: null });
  fixture.leadNameB = "Boris Beyondscope";
  const b = await submitContactMessage(db, { accountId, kind: "contact", locationId: locB, locationName: "B", name: fixture.leadNameB, email: "boris@example.com", phone: "9105550102", message: "A 5x5?", officeEmail: null });
  const tenant = async (locationId: number, email: string) => {
    const t = await createTenantWithLease(db, { email, password: "Secret-Pass-1", firstName: "Tess", lastName: "Tenant", now: new Date(), locationId });
    // A card payment through the (in-process) test gateway, for the refund lines.
    const loc = (await db.query.locations.findFirst({ where: eq(locations.id, locationId) }))!;
    const paid = await storageFor(db, loc).makePayment({
      tenantId: String(t.tenantId),
      leaseId: String(t.leaseId),
      amount: 2500,
      method: { kind: "card", card: card(), saveCard: false },
      idempotencyKey: `matrix-pay-${locationId}-${process.pid}`,
      now: new Date(),
    });
    return { tenantId: t.tenantId, leaseId: t.leaseId, paymentId: Number(paid.id) };
  };
  fixture.tenantEmailB = `tenant-b.${process.pid}@example.com`;
  fixture.tenantA = await tenant(locA, `tenant-a.${process.pid}@example.com`);
  fixture.tenantB = await tenant(locB, fixture.tenantEmailB);
  fixture.journalKey = (loc, who) => `matrix:${loc}:${who}`;
  const started = new Date(Date.now() - 3_600_000);
  await db.insert(sitelinkWrites).values(
    (["A", "B"] as const).flatMap((loc) =>
      [...ROLES, "nobody"].map((who) => ({
        idempotencyKey: fixture.journalKey(loc, who as Who | "nobody"),
        locationId: loc === "A" ? locA : locB,
        operation: "PaymentSimpleCheckWithSource",
        state: "unknown" as const,
        externalIds: { ledgerId: "77", amount: "2500" },
        startedAt: started,
        finishedAt: started,
        lastError: "no answer",
      })),
    ),
  );
  const [block] = await db.select({ id: hoursBlocks.id, locationId: hoursBlocks.locationId }).from(hoursBlocks).where(eq(hoursBlocks.locationId, locA)).limit(1);
  const [blockB] = await db.select({ id: hoursBlocks.id }).from(hoursBlocks).where(eq(hoursBlocks.locationId, locB)).limit(1);
  const [typeA] = await db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.locationId, locA)).limit(1);
  const [typeB] = await db.select({ id: unitTypes.id, name: unitTypes.name }).from(unitTypes).where(eq(unitTypes.locationId, locB)).limit(1);
  const [locRowB] = await db.select({ name: locations.name }).from(locations).where(eq(locations.id, locB));
  const site = (await getWebsite(db))!;
  const [menu] = await db.select({ id: menus.id }).from(menus).where(eq(menus.websiteId, site.id)).limit(1);
  const [page] = await db.select({ id: pages.id }).from(pages).where(eq(pages.accountId, accountId)).limit(1);
  fixture.content = {
    locA,
    locB,
    nameB: locRowB!.name,
    blockA: block!.id,
    blockB: blockB!.id,
    unitTypeA: typeA!.id,
    unitTypeB: typeB!.id,
    unitTypeNameB: typeB!.name,
    websiteId: site.id,
    accountId,
    menuId: menu!.id,
    pageId: page!.id,
  };
  fixture.leadA = `contact-${idOf(a)}`;
  fixture.leadB = `contact-${idOf(b)}`;
  // The anonymous double-submit CSRF cookie and a token for it (staff forms use it: decision 077).
  const minted = await getCsrfToken(new Request("http://localhost/admin"));
  csrf = { cookie: minted.setCookie!.split(";")[0]!, token: minted.token };
  app = await startAppServer(db);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await handle?.close();
});

function idOf(row: unknown): number {
  const r = row as { id?: number; message?: { id: number } } | undefined;
  const id = r?.id ?? r?.message?.id;
  if (typeof id !== "number") throw new Error(`submitContactMessage returned no id: ${JSON.stringify(row)}`);
  return id;
}

async function get(path: string, member?: TestStaffMember) {
  const res = await fetch(app.origin + path, { redirect: "manual", headers: member ? { Cookie: member.cookie } : {} });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

async function post(path: string, fields: Record<string, string>, member?: TestStaffMember) {
  // A member's form carries the token of their own staff session (decision 283); nobody's, the anonymous one.
  const token = member ? (await getCsrfToken(new Request(app.origin + path, { headers: { Cookie: member.cookie } }))).token : csrf.token;
  const body = new URLSearchParams({ [CSRF_FIELD]: token, ...fields });
  const res = await fetch(app.origin + path, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: [csrf.cookie, member?.cookie].filter(Boolean).join("; "), Referer: app.origin + path },
    body,
  });
  return { status: res.status, location: res.headers.get("Location"), body: await res.text() };
}

/** A redirect: 303 after a form (POST); a page's own GET redirect may be 302 or 303. */
function expectOutcome(got: { status: number; location: string | null; body: string }, want: Outcome, what: string) {
  expect(got.status, `${what}: a 500 (${got.body.slice(0, 300)})`).not.toBe(500);
  if (typeof want === "number") {
    expect({ what, status: got.status }).toEqual({ what, status: want });
    // The 403 page (a resource route's: its message) says the role may not, and nothing else.
    if (want === 403) expect(got.body, what).toContain(FORBIDDEN_MESSAGE);
  } else {
    const redirects = what.includes(" POST ") ? [303] : [302, 303];
    expect(redirects, `${what}: ${got.status} is not a redirect`).toContain(got.status);
    expect(got.location, what).toMatch(new RegExp(`^${want.redirect.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  }
}

const consoleRoutes = () => app.routes.filter((r) => r.parents.includes(LAYOUT));

describe("the matrix covers every console route", () => {
  it("every route under the console's layout has its line in EXPECTED (a new one: add it to the matrix)", () => {
    const ids = consoleRoutes().map((r) => r.id);
    expect(ids.length).toBeGreaterThan(5);
    const missing = ids.filter((id) => !(id in EXPECTED));
    expect(missing, `console routes without a line in the access matrix: add them to EXPECTED in ${import.meta.filename}`).toEqual([]);
    expect(Object.keys(EXPECTED).filter((id) => !ids.includes(id)), "lines for routes that no longer exist").toEqual([]);
  });

  it("every route with an action has its actions in the matrix", async () => {
    for (const r of consoleRoutes()) {
      const module = (await import(/* @vite-ignore */ `${import.meta.dirname}/../../../app/${r.file}`)) as { action?: unknown };
      if (typeof module.action === "function") expect(EXPECTED[r.id]!.actions?.length ?? 0, `${r.id} has an action: add its forms to the matrix`).toBeGreaterThan(0);
    }
  });

  it("the console's other pages (sign-in, invitations) are the known ones, open without a session", async () => {
    const shellOnly = app.routes.filter((r) => r.parents.includes(SHELL) && !r.parents.includes(LAYOUT) && r.id !== LAYOUT);
    expect(shellOnly.map((r) => r.id).sort()).toEqual(Object.keys(PUBLIC_CONSOLE_ROUTES).sort());
    for (const [id, c] of Object.entries(PUBLIC_CONSOLE_ROUTES)) expectOutcome(await get(c.path), c.anonymous, `${id} GET not signed in`);
  });
});

describe("not signed in", () => {
  it("every console page and action redirects to sign-in before it runs", async () => {
    for (const [id, c] of Object.entries(EXPECTED)) {
      const path = c.path(fixture);
      const r = await get(path);
      expect({ id, status: r.status }).toEqual({ id, status: 303 });
      // Back to the page after signing in (the home, and the confirm page, need no "next").
      expect([`/admin/sign-in?next=${encodeURIComponent(path)}`, "/admin/sign-in"], id).toContain(r.location);
      if (!["/admin", EXPECTED["routes/staff/reauth"]!.path(fixture)].includes(path)) expect(r.location, id).toBe(`/admin/sign-in?next=${encodeURIComponent(path)}`);
      for (const a of [...(c.actions ?? []), ...(c.outOfScopeActions ?? [])]) {
        const p = await post((a.path ?? c.path)(fixture), a.form(fixture, "nobody"));
        expect({ id, action: a.name, status: p.status, location: p.location }).toEqual({ id, action: a.name, status: 303, location: "/admin/sign-in" });
      }
    }
  });
});

describe.each(ROLES)("%s", (who) => {
  it("opens each console page it may, and gets 403 (naming no record) or 404 for the others", async () => {
    for (const [id, c] of Object.entries(EXPECTED)) {
      const r = await get(c.path(fixture), members[who]);
      expectOutcome(r, c.get[who], `${who} GET ${id}`);
      if (c.outOfScope) {
        const out = await get(c.outOfScope.path(fixture), members[who]);
        expectOutcome(out, c.outOfScope.get[who], `${who} GET ${id} at location B`);
        if (out.status !== 200) expect(out.body, `${who}: the refusal names the record`).not.toContain(c.outOfScope.secret(fixture));
      }
    }
  });

  it("takes each action it may, and is refused the others", async () => {
    for (const [id, c] of Object.entries(EXPECTED)) {
      for (const a of c.actions ?? []) {
        const r = await post((a.path ?? c.path)(fixture), a.form(fixture, who), members[who]);
        expectOutcome(r, a.expect[who], `${who} POST ${id}: ${a.name}`);
      }
      for (const a of c.outOfScopeActions ?? []) {
        const r = await post(a.path!(fixture), a.form(fixture, who), members[who]);
        expectOutcome(r, a.expect[who], `${who} POST ${id}: ${a.name}`);
        if ((r.status === 403 || r.status === 404) && c.outOfScope) expect(r.body, `${who}: the refusal names the record`).not.toContain(c.outOfScope.secret(fixture));
      }
    }
  });

  it("sees in the navigation exactly the pages it may open, and each link opens", async () => {
    const home = await get("/admin", members[who]);
    expect(home.status).toBe(200);
    const nav = /<nav aria-label="Back office"[^>]*>([\s\S]*?)<\/nav>/.exec(home.body)?.[1] ?? "";
    const links = [...nav.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!).filter((h) => h.startsWith("/admin"));
    const expected = Object.values(EXPECTED)
      .filter((c) => c.nav && c.get[who] === 200)
      .map((c) => c.path(fixture));
    expect(links.sort()).toEqual(expected.sort());
    for (const href of links) expect({ href, status: (await get(href, members[who])).status }).toEqual({ href, status: 200 });
  });

  it("with a stale second factor: sent to confirm it on the pages and actions that need a fresh one (if permitted)", async () => {
    const stale = await signedInStaffMember(handle.db, { accountId, role: ROLE_OF[who], locationIds: who === "owner" ? [] : [locA], factorAgeMs: STALE_FACTOR_MS, name: `${who}-stale` });
    const fresh = Object.entries(EXPECTED).filter(([, c]) => c.fresh);
    expect(fresh.length).toBeGreaterThan(0);
    for (const [id, c] of fresh) {
      const path = c.path(fixture);
      const want = c.get[who] === 200 ? { redirect: `/admin/reauth?next=${encodeURIComponent(path)}` } : c.get[who];
      expectOutcome(await get(path, stale), want, `${who} (stale factor) GET ${id}`);
      for (const a of c.actions ?? []) {
        const permitted = a.expect[who] !== 403;
        expectOutcome(await post(path, a.form(fixture, who), stale), permitted ? { redirect: `/admin/reauth?next=${encodeURIComponent(path)}` } : 403, `${who} (stale factor) POST ${id}: ${a.name}`);
      }
    }
    // Pages that do not need a fresh factor still open.
    for (const [id, c] of Object.entries(EXPECTED).filter(([, x]) => !x.fresh && x.get[who] === 200)) {
      expect({ id, status: (await get(c.path(fixture), stale)).status }).toEqual({ id, status: 200 });
    }
  });
});
