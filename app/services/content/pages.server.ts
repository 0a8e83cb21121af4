/**
 * What each content page under /admin/content shows and which edits it takes (issue 24): the page's
 * records as they will be after publishing (the draft over the live rows), and its edit targets for
 * `submitContentForm` (app/services/content/editor.server.ts). Scope: a record outside the member's
 * locations is not found (404); account-wide pages need an owner (decision 303).
 */
import {
  COMPANY_FIELDS,
  CONTENT_ITEM_FIELDS,
  LOCATION_GROUPS,
  MENU_ITEM_FIELDS,
  OLD_DOMAIN_FIELDS,
  PAGE_FIELDS,
  REDIRECT_FIELDS,
  UNIT_TYPE_FIELDS,
  unitTypePromotionFields,
  WEBSITE_GROUPS,
} from "~/domain/content/form";
import { planAsRead, promotionChoices, promotionPreview, promotionsNeedingAttention, promotionTarget } from "./promotion.server";
import { discountPlansAsRead } from "~/storage-software/index.server";
import { now as clockNow } from "~/platform/clock.server";
import { data, redirect } from "react-router";
import { and, eq, ne } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { addresses, locations, oldDomains, pages, websites } from "~/db/schema";
import { goLiveState } from "~/storage-software/index.server";
import { controlOf, isFormEditable, isWebsiteJsonGroup, jsonGroupValues, toFormValue, WEBSITE_JSON_GROUPS, type WebsiteJsonGroupName } from "~/domain/content/form";
import { EDITABLE_ENTITIES, type EditableEntityName, type FieldErrors } from "~/domain/content/editable";
import { bareHostname, externalRedirectHost, normalizePath, redirectChainProblem, validateRedirectRule } from "~/domain/site/redirects";
import { consoleHeaders } from "../console/headers.server";
import { listEffectiveRecords, readEffectiveRecord } from "./changesets.server";
import {
  accountWebsiteId,
  blankFormValues,
  contentLocations,
  websiteMenus,
  formRecord,
  locationHoursBlocks,
  locationUnitTypes,
  saveJsonGroup,
  unitTypeHeading,
  type ContentDone,
  type ContentFormOutcome,
  type EditTarget,
} from "./editor.server";
import { notFound } from "../web/responses.server";
import { FORBIDDEN_MESSAGE, type SignedInStaff } from "../staff/context.server";

const DONE: readonly ContentDone[] = ["saved", "added", "removed", "moved", "location-added"];

/** The `?done=` of the page after a save (post/redirect/get), or null. */
export function doneOf(request: Request): ContentDone | null {
  const v = new URL(request.url).searchParams.get("done");
  return DONE.includes(v as ContentDone) ? (v as ContentDone) : null;
}

/**
 * A content action's answer: a saved edit redirects back to the page (303, `?done=`); a record
 * outside the scope is a 404; errors and conflicts are the page again with the form's reply.
 */
export function answerContentForm(outcome: ContentFormOutcome, request: Request) {
  if (outcome.ok) {
    const url = new URL(request.url);
    throw redirect(`${url.pathname}?done=${outcome.done}`, { status: 303, headers: consoleHeaders() });
  }
  if ("notFound" in outcome) throw notFound(consoleHeaders());
  const { formId, result, base, conflict } = outcome;
  return data({ formId, result, base, conflict }, { status: outcome.status, headers: consoleHeaders() });
}

/** The editable (non-image) fields of an entity, in the registry's order, less the ones named. */
function formFields(entity: EditableEntityName, except: readonly string[] = []): string[] {
  return Object.keys(EDITABLE_ENTITIES[entity].fields).filter((f) => isFormEditable(entity, f) && !except.includes(f));
}

// ---- locations ----------------------------------------------------------------------------------

/** The location page's forms: each a group of the location's fields. */
const ADDRESS_FIELDS = formFields("address");
const HOURS_ITEM_FIELDS = ["days", "open", "close", "isOpen24Hours", "isClosed"] as const;
const HOURS_BLOCK_FIELDS = ["isAvailable", "displayText"] as const;
const SPECIAL_HOURS_FIELDS = ["date", "label", "isClosed", "open", "close"] as const;
const AMENITY_FIELDS = ["label", "description"] as const;
async function addressIdOf(db: Database, locationId: number): Promise<number | null> {
  const [row] = await db.select({ id: addresses.id }).from(addresses).where(eq(addresses.locationId, locationId)).limit(1);
  return row?.id ?? null;
}

/** The location's details page, or null (not found or outside the member's locations). */
export async function locationDetailsPage(db: Database, staff: SignedInStaff, locationId: number, now: Date = clockNow()) {
  const location = await readEffectiveRecord(db, staff, "location", locationId);
  if (!location) return null;
  const addressId = await addressIdOf(db, locationId);
  const address = addressId ? await readEffectiveRecord(db, staff, "address", addressId) : null;
  const types = await locationUnitTypes(db, locationId);
  const effectiveTypes = await listEffectiveRecords(db, staff, "unitType", { column: "locationId", value: locationId });
  const byId = new Map(effectiveTypes.map((t) => [t.id, t]));
  const plans = (await discountPlansAsRead(db, [locationId])).get(locationId);
  return {
    name: String(location.values.name),
    publication: await locationPublication(db, locationId, location),
    groups: Object.fromEntries(Object.entries(LOCATION_GROUPS).map(([key, g]) => [key, formRecord("location", location, g.fields)])),
    address: address ? formRecord("address", address, ADDRESS_FIELDS) : null,
    images: { main: location.values.mainImage != null, logo: location.values.mainLogo != null },
    unitTypes: types.map((t) => {
      const e = byId.get(t.id);
      return {
        id: t.id,
        label: `${t.width}×${t.length} ${t.name}`,
        hidden: e?.values.isHiddenOnline === true,
        // What it will show (decision 674: only a promotion that applies has words).
        promotion: e ? promotionPreview(e.values, typeof e.values.promotionPlanId === "number" ? (plans?.get(e.values.promotionPlanId) ?? null) : null) : "",
        pending: (e?.pending.length ?? 0) > 0,
      };
    }),
    // Published promotions whose SiteLink plan changed, went or can no longer be worded (decision 673).
    promotionsAttention: await promotionsNeedingAttention(db, [locationId], now),
  };
}

/**
 * Whether the location is on the website (decision 620): published; going on with the draft; or
 * off (added from the console, its draft discarded): then the page offers to put it in the draft
 * again. A SiteLink location not yet on the website shows its go-live state (decision 623).
 */
async function locationPublication(db: Database, locationId: number, location: { live: Record<string, unknown> | null; values: Record<string, unknown> }) {
  if (location.live?.isPublished !== false) return null;
  const [row] = await db.select({ slug: locations.urlSlug, software: locations.software }).from(locations).where(eq(locations.id, locationId));
  const goLive = row?.software === "sitelink" ? await goLiveState(db, locationId) : null;
  return {
    drafted: location.values.isPublished === true,
    slug: row?.slug ?? "",
    goLive: goLive ? { live: goLive.live, reason: goLive.reason } : null,
  };
}

export async function locationDetailsTargets(db: Database, locationId: number): Promise<Record<string, EditTarget>> {
  const targets: Record<string, EditTarget> = Object.fromEntries(Object.entries(LOCATION_GROUPS).map(([key, g]) => [key, { entity: "location", fields: g.fields }]));
  if (await addressIdOf(db, locationId)) targets.address = { entity: "address", fields: ADDRESS_FIELDS };
  return targets;
}

/** The location's hours page: each block (gate, office …) with its lines. */
export async function hoursPage(db: Database, staff: SignedInStaff, locationId: number) {
  const location = await readEffectiveRecord(db, staff, "location", locationId);
  if (!location) return null;
  const blocks = await locationHoursBlocks(db, locationId);
  return {
    name: String(location.values.name),
    blocks: await Promise.all(
      blocks.map(async (b) => {
        const block = await readEffectiveRecord(db, staff, "hoursBlock", b.id);
        const items = await listEffectiveRecords(db, staff, "hoursItem", { column: "hoursBlockId", value: b.id });
        return {
          id: b.id,
          type: b.type,
          block: block ? formRecord("hoursBlock", block, HOURS_BLOCK_FIELDS) : null,
          items: items.map((i) => formRecord("hoursItem", i, HOURS_ITEM_FIELDS)),
          blank: blankFormValues("hoursItem", HOURS_ITEM_FIELDS, { open: "09:00", close: "17:00" }),
        };
      }),
    ),
  };
}

export async function hoursTargets(db: Database, locationId: number): Promise<Record<string, EditTarget>> {
  const blockIds = (await locationHoursBlocks(db, locationId)).map((b) => b.id);
  return {
    hoursBlock: { entity: "hoursBlock", fields: HOURS_BLOCK_FIELDS },
    hoursItem: { entity: "hoursItem", fields: HOURS_ITEM_FIELDS, parents: { hoursBlockId: blockIds } },
  };
}

/** The location's special hours (by date). */
export async function specialHoursPage(db: Database, staff: SignedInStaff, locationId: number) {
  const location = await readEffectiveRecord(db, staff, "location", locationId);
  if (!location) return null;
  const rows = await listEffectiveRecords(db, staff, "specialHours", { column: "locationId", value: locationId });
  rows.sort((a, b) => String(a.values.date).localeCompare(String(b.values.date)));
  return {
    name: String(location.values.name),
    dates: rows.map((r) => formRecord("specialHours", r, SPECIAL_HOURS_FIELDS)),
    blank: blankFormValues("specialHours", SPECIAL_HOURS_FIELDS, { isClosed: true }),
  };
}

export function specialHoursTargets(locationId: number): Record<string, EditTarget> {
  return { specialHours: { entity: "specialHours", fields: SPECIAL_HOURS_FIELDS, createValues: { locationId } } };
}

/** The location's amenities, in order. */
export async function amenitiesPage(db: Database, staff: SignedInStaff, locationId: number) {
  const location = await readEffectiveRecord(db, staff, "location", locationId);
  if (!location) return null;
  const rows = await listEffectiveRecords(db, staff, "amenity", { column: "locationId", value: locationId });
  return {
    name: String(location.values.name),
    amenities: rows.map((r) => ({ ...formRecord("amenity", r, AMENITY_FIELDS), hasImage: r.values.image != null })),
    blank: blankFormValues("amenity", AMENITY_FIELDS),
  };
}

export async function amenitiesTargets(db: Database, staff: SignedInStaff, locationId: number): Promise<Record<string, EditTarget>> {
  const rows = await listEffectiveRecords(db, staff, "amenity", { column: "locationId", value: locationId });
  const last = rows.reduce((m, r) => Math.max(m, Number(r.values.index ?? 0)), 0);
  return { amenity: { entity: "amenity", fields: AMENITY_FIELDS, createValues: { locationId, index: last + 10 }, siblings: ["locationId"] } };
}

/**
 * One unit type's page: visibility and description, and the promotion that applies (issue 40): its
 * form (at SiteLink a select of the site's plans, read now), the words it will show, and what the
 * office must know about the published one (decision 673).
 */
export async function unitTypePage(db: Database, staff: SignedInStaff, unitTypeId: number, now: Date = clockNow()) {
  const heading = await unitTypeHeading(db, unitTypeId);
  if (!heading) return null;
  const record = await readEffectiveRecord(db, staff, "unitType", unitTypeId);
  if (!record) return null;
  const chosen = typeof record.values.promotionPlanId === "number" ? record.values.promotionPlanId : null;
  const choices = await promotionChoices(db, heading.locationId, chosen);
  const promotionFields = unitTypePromotionFields(choices.software);
  const attention = (await promotionsNeedingAttention(db, [heading.locationId], now)).find((a) => a.unitTypeId === unitTypeId) ?? null;
  return {
    heading: { ...heading, label: `${heading.width}×${heading.length} ${heading.name}` },
    form: formRecord("unitType", record, UNIT_TYPE_FIELDS),
    promotionFields,
    promotionForm: formRecord("unitType", record, promotionFields),
    promotionShown: promotionPreview(record.values, await planAsRead(db, heading.locationId, record.values.promotionPlanId)),
    promotionAttention: attention?.message ?? null,
    software: choices.software,
    promotionChoices: choices.choices,
    plansNotOffered: choices.plansNotOffered,
    plansProblem: choices.plansProblem,
    photoCount: Array.isArray(record.values.images) ? record.values.images.length : 0,
  };
}

/** The unit type page's forms: how it is shown, and its promotion (whose plans are the location's). */
export async function unitTypeTargets(db: Database, unitTypeId: number): Promise<Record<string, EditTarget>> {
  const heading = await unitTypeHeading(db, unitTypeId);
  const base: Record<string, EditTarget> = { unitType: { entity: "unitType", fields: UNIT_TYPE_FIELDS } };
  return heading ? { ...base, unitTypePromotion: await promotionTarget(db, heading.locationId) } : base;
}

// ---- account-wide pages (owners: decision 303) --------------------------------------------------

/** Account-wide content (website, company, menus, pages, FAQs, redirects) needs every location: owners. */
export function requireAccountWide(staff: SignedInStaff): void {
  if (!staff.scope.all) throw data({ message: FORBIDDEN_MESSAGE }, { status: 403, headers: consoleHeaders() });
}

async function websiteIdOf(db: Database, staff: SignedInStaff): Promise<number> {
  const id = await accountWebsiteId(db, staff.accountId);
  if (id === null) throw notFound(consoleHeaders());
  return id;
}

export async function websitePage(db: Database, staff: SignedInStaff) {
  const websiteId = await websiteIdOf(db, staff);
  const website = await readEffectiveRecord(db, staff, "website", websiteId);
  if (!website) throw notFound(consoleHeaders());
  const jsonGroups = Object.fromEntries(
    (Object.keys(WEBSITE_JSON_GROUPS) as WebsiteJsonGroupName[]).map((g) => {
      const column = WEBSITE_JSON_GROUPS[g].column;
      const values = jsonGroupValues(g, website.values[column]);
      const fields = Object.keys(values);
      return [
        g,
        {
          values: Object.fromEntries(fields.map((f) => [f, toFormValue(controlOf(g, f), values[f])])),
          base: JSON.stringify(values),
          pending: website.pending.includes(column) ? fields : [],
        },
      ];
    }),
  ) as Record<WebsiteJsonGroupName, { values: Record<string, string | string[]>; base: string; pending: string[] }>;
  const menuNames = (await websiteMenus(db, websiteId)).map((m) => m.name);
  return {
    websiteId,
    groups: Object.fromEntries(Object.entries(WEBSITE_GROUPS).map(([key, g]) => [key, formRecord("website", website, g.fields)])),
    jsonGroups,
    menuChoices: menuNames.map((n) => ({ value: n, label: n })),
    logos: { logo: website.values.logo != null, footerLogo: website.values.footerLogo != null },
  };
}

/**
 * The website page's forms of values inside its JSON fields (announcement bar, navigation bar,
 * footer, global styles: decisions 304 and 362); null for its other forms.
 */
export async function saveWebsiteJsonForm(db: Database, staff: SignedInStaff, form: FormData, now: Date): Promise<ContentFormOutcome | null> {
  const group = String(form.get("target") ?? "");
  if (!isWebsiteJsonGroup(group)) return null;
  const websiteId = await websiteIdOf(db, staff);
  const menus = (await websiteMenus(db, websiteId)).map((m) => m.name);
  return saveJsonGroup(db, staff, { websiteId, group, menus }, form, now);
}

export function websiteTargets(): Record<string, EditTarget> {
  return Object.fromEntries(Object.entries(WEBSITE_GROUPS).map(([key, g]) => [key, { entity: "website", fields: g.fields }]));
}

export async function companyPage(db: Database, staff: SignedInStaff) {
  const account = await readEffectiveRecord(db, staff, "account", staff.accountId);
  if (!account) throw notFound(consoleHeaders());
  return { accountId: staff.accountId, form: formRecord("account", account, COMPANY_FIELDS), hasMainImage: account.values.mainImage != null };
}

export const COMPANY_TARGETS: Record<string, EditTarget> = { account: { entity: "account", fields: COMPANY_FIELDS } };

export async function pagesPage(db: Database, staff: SignedInStaff) {
  const rows = await listEffectiveRecords(db, staff, "page", { column: "accountId", value: staff.accountId });
  const slugs = new Map((await db.select({ id: pages.id, slug: pages.slug }).from(pages).where(eq(pages.accountId, staff.accountId))).map((p) => [p.id, p.slug]));
  return { pages: rows.map((r) => ({ ...formRecord("page", r, PAGE_FIELDS), slug: slugs.get(r.id ?? 0) ?? "" })) };
}

export const PAGE_TARGETS: Record<string, EditTarget> = { page: { entity: "page", fields: PAGE_FIELDS } };

export async function faqsPage(db: Database, staff: SignedInStaff) {
  const rows = await listEffectiveRecords(db, staff, "contentItem", { column: "accountId", value: staff.accountId });
  const forms = rows.map((r) => formRecord("contentItem", r, CONTENT_ITEM_FIELDS));
  return {
    faqs: forms.filter((f) => f.raw.tag === "FAQ"),
    tips: forms.filter((f) => f.raw.tag !== "FAQ"),
    blank: blankFormValues("contentItem", CONTENT_ITEM_FIELDS, { tag: "FAQ" }),
  };
}

export async function faqsTargets(db: Database, staff: SignedInStaff): Promise<Record<string, EditTarget>> {
  const rows = await listEffectiveRecords(db, staff, "contentItem", { column: "accountId", value: staff.accountId });
  const last = rows.reduce((m, r) => Math.max(m, Number(r.values.index ?? 0)), 0);
  return { contentItem: { entity: "contentItem", fields: CONTENT_ITEM_FIELDS, createValues: { accountId: staff.accountId, index: last + 10 }, siblings: ["accountId", "tag"] } };
}

export async function menusPage(db: Database, staff: SignedInStaff) {
  const websiteId = await websiteIdOf(db, staff);
  const list = await websiteMenus(db, websiteId);
  return {
    menus: await Promise.all(
      list.map(async (m) => {
        const menu = await readEffectiveRecord(db, staff, "menu", m.id);
        const items = await listEffectiveRecords(db, staff, "menuItem", { column: "menuId", value: m.id });
        const top = items.filter((i) => i.values.parentId == null && i.id != null);
        // Children under their parent, in order.
        const ordered = top.flatMap((t) => [t, ...items.filter((i) => i.values.parentId === t.id)]);
        const rest = items.filter((i) => !ordered.includes(i));
        return {
          id: m.id,
          name: m.name,
          heading: menu ? formRecord("menu", menu, ["heading"]) : null,
          items: [...ordered, ...rest].map((i) => ({ ...formRecord("menuItem", i, MENU_ITEM_FIELDS), nested: i.values.parentId != null })),
          parents: top.map((t) => ({ value: String(t.id), label: String(t.values.name) })),
          blank: blankFormValues("menuItem", MENU_ITEM_FIELDS, { isInternal: true, isTargetBlank: false }),
        };
      }),
    ),
  };
}

export async function menusTargets(db: Database, staff: SignedInStaff): Promise<Record<string, EditTarget>> {
  const websiteId = await websiteIdOf(db, staff);
  const menuIds = (await websiteMenus(db, websiteId)).map((m) => m.id);
  const items = (await Promise.all(menuIds.map((id) => listEffectiveRecords(db, staff, "menuItem", { column: "menuId", value: id })))).flat();
  const last = items.reduce((m, r) => Math.max(m, Number(r.values.index ?? 0)), 0);
  return {
    menu: { entity: "menu", fields: ["heading"] },
    menuItem: {
      entity: "menuItem",
      fields: MENU_ITEM_FIELDS,
      parents: { menuId: menuIds },
      createValues: { index: last + 10 },
      siblings: ["menuId", "parentId"],
      verify: async (values, record) => menuNestingProblems(items, values, record),
    },
  };
}

/** One level of nesting: the parent is a top-level item of the same menu, and the item has no children. */
function menuNestingProblems(items: Awaited<ReturnType<typeof listEffectiveRecords>>, values: Record<string, unknown>, record: { id: number | null; createKey: string | null }): FieldErrors {
  const parentId = values.parentId;
  if (parentId == null) return {};
  const self = items.find((i) => (record.id != null ? i.id === record.id : record.createKey != null && i.createKey === record.createKey));
  const menuId = values.menuId ?? self?.values.menuId;
  const parent = items.find((i) => i.id === parentId);
  if (!parent || parent.values.menuId !== menuId) return { parentId: "Choose an item of the same menu." };
  if (record.id != null && parentId === record.id) return { parentId: "An item cannot be under itself." };
  if (parent.values.parentId != null) return { parentId: "Menus have one level: choose a top-level item." };
  if (record.id != null && items.some((i) => i.values.parentId === record.id)) return { parentId: "This item has items under it: move them first (menus have one level)." };
  return {};
}

export async function redirectsPage(db: Database, staff: SignedInStaff) {
  const websiteId = await websiteIdOf(db, staff);
  const rules = await listEffectiveRecords(db, staff, "redirect", { column: "websiteId", value: websiteId });
  const domains = await listEffectiveRecords(db, staff, "oldDomain", { column: "websiteId", value: websiteId });
  const locs = await contentLocations(db, staff);
  const [site] = await db.select({ domain: websites.domain }).from(websites).where(eq(websites.id, websiteId));
  return {
    // Each with the host it leaves the site for, if it does (issue 36: shown as external).
    redirects: rules.map((r) => ({ ...formRecord("redirect", r, REDIRECT_FIELDS), externalHost: externalRedirectHost(String(r.values.toPath ?? ""), site?.domain) })),
    domains: domains.map((d) => formRecord("oldDomain", d, OLD_DOMAIN_FIELDS)),
    locations: locs.map((l) => ({ value: String(l.id), label: l.name })),
    blankRedirect: blankFormValues("redirect", REDIRECT_FIELDS, { statusCode: 301, isForced: true }),
    blankDomain: blankFormValues("oldDomain", OLD_DOMAIN_FIELDS, { locationId: locs[0]?.id ?? null }),
  };
}

export async function redirectsTargets(db: Database, staff: SignedInStaff): Promise<Record<string, EditTarget>> {
  const websiteId = await websiteIdOf(db, staff);
  const [site] = await db.select({ domain: websites.domain }).from(websites).where(eq(websites.id, websiteId));
  const locationIds = (await contentLocations(db, staff)).map((l) => l.id);
  const same = (record: { id: number | null; createKey: string | null }) => (r: { id: number | null; createKey: string | null }) =>
    (record.id != null && r.id === record.id) || (record.createKey != null && r.createKey === record.createKey);
  return {
    redirect: {
      entity: "redirect",
      fields: REDIRECT_FIELDS,
      createValues: { websiteId },
      normalise: (v) => ({ ...v, fromPath: typeof v.fromPath === "string" && v.fromPath.trim() ? normalizePath(v.fromPath.trim()) : v.fromPath, toPath: typeof v.toPath === "string" ? v.toPath.trim() : v.toPath }),
      verify: async (values, record): Promise<FieldErrors> => {
        const rule = { fromPath: String(values.fromPath), toPath: String(values.toPath) };
        const invalid = validateRedirectRule(rule);
        if (invalid) return { [/old path|home page/.test(invalid) ? "fromPath" : "toPath"]: invalid };
        // The set this rule joins: the live rules with the draft over them (creates in, deletes out).
        const others = (await listEffectiveRecords(db, staff, "redirect", { column: "websiteId", value: websiteId })).filter((r) => !same(record)(r));
        if (others.some((r) => normalizePath(String(r.values.fromPath)) === rule.fromPath)) return { fromPath: `There is already a redirect from ${rule.fromPath}: change that one instead.` };
        const problem = redirectChainProblem(
          others.map((r) => ({ fromPath: String(r.values.fromPath), toPath: String(r.values.toPath) })),
          rule,
          { primaryHost: site?.domain },
        );
        return problem ? { toPath: problem } : {};
      },
    },
    oldDomain: {
      entity: "oldDomain",
      fields: OLD_DOMAIN_FIELDS,
      createValues: { websiteId },
      normalise: (v) => ({ ...v, hostname: typeof v.hostname === "string" ? bareHostname(v.hostname.replace(/^https?:\/\//i, "").split("/")[0]) : v.hostname }),
      verify: async (values, record): Promise<FieldErrors> => {
        const hostname = String(values.hostname);
        if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(hostname)) return { hostname: "Enter a domain such as old-storage.example." };
        if (!locationIds.includes(Number(values.locationId))) return { locationId: "Choose one of your locations." };
        const others = (await listEffectiveRecords(db, staff, "oldDomain", { column: "websiteId", value: websiteId })).filter((r) => !same(record)(r));
        if (others.some((r) => r.values.hostname === hostname)) return { hostname: `${hostname} already redirects.` };
        const [elsewhere] = await db.select({ id: oldDomains.id }).from(oldDomains).where(and(eq(oldDomains.hostname, hostname), ne(oldDomains.websiteId, websiteId)));
        return elsewhere ? { hostname: `${hostname} is already in use.` } : {};
      },
    },
  };
}
