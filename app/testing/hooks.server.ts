/**
 * Test hooks for the browser tests: the e2e server holds its PGlite database in-process, so a spec
 * cannot write to it directly. These handlers run inside the server, only when E2E_HOOKS=1 and either
 * NODE_ENV=test or, in production, GATEHOUSE_TEST_RUNNER=1 (playwright.config.ts sets it, decision
 * 432); everywhere else the route answers 404 (and a production server with E2E_HOOKS=1 alone does not start).
 *
 * Each feature adds its own handler to `testHooks` (intent name → function). Keep them small and
 * make them call the same services the site uses.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, locations, navMenuItems, rateLimitHits, redirects, specialHours, unitTypes, websites } from "~/db/schema";
import { env, testSwitchesAllowed, type Env } from "~/platform/env.server";

type TestHook = (db: Database, body: Record<string, unknown>) => Promise<unknown>;

export function testHooksEnabled(e: Pick<Env, "E2E_HOOKS" | "NODE_ENV" | "GATEHOUSE_TEST_RUNNER"> = env()): boolean {
  return e.E2E_HOOKS === "1" && testSwitchesAllowed(e);
}

export const testHooks: Record<string, TestHook> = {
  /** Forgets every rate-limit count: the browser tests all come from 127.0.0.1 (decisions 065, 066). */
  clearRateLimits: async (db) => {
    await db.delete(rateLimitHits);
    return { ok: true };
  },
  /**
   * Pins the server's clock (app/platform/clock.server.ts) at `at` (an ISO date-time), or lets it run
   * again with `at: null`; returns the previous pin. The clock stands still while pinned (a whole
   * rental "last night" happens at one instant).
   */
  async setClock(_db, body) {
    const { pinClockForTests } = await import("~/platform/clock.server");
    let at: Date | null = null;
    if (body.at !== null && body.at !== undefined && body.at !== "") {
      at = new Date(String(body.at));
      if (Number.isNaN(at.getTime())) throw new Error("at must be an ISO date-time or null");
    }
    const previous = pinClockForTests(at);
    return { previous: previous?.toISOString() ?? null };
  },
  /**
   * Issue 24's public content at one location (`slug`): replaces its special hours with `specialHours`
   * and gives its unit types `images` and `promotion`: the columns of a promotion that applies
   * (`{ promotionKind: "percent", promotionPercent: 100, promotionMonths: 1 }`), or none when absent
   * (decision 674: only a promotion that applies shows text). For the browser checks of the pages
   * that show them.
   */
  async setPublicContent(db, body) {
    const [loc] = await db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, String(body.slug)));
    if (!loc) throw new Error("no such location");
    const rows = Array.isArray(body.specialHours) ? (body.specialHours as Array<{ date: string; label?: string; isClosed: boolean; open?: string; close?: string }>) : [];
    await db.delete(specialHours).where(eq(specialHours.locationId, loc.id));
    if (rows.length) await db.insert(specialHours).values(rows.map((r) => ({ locationId: loc.id, date: r.date, label: r.label ?? "", isClosed: r.isClosed, open: r.open ?? null, close: r.close ?? null })));
    await db
      .update(unitTypes)
      .set({
        promotionKind: "none",
        promotionAmount: 0,
        promotionPercent: 0,
        promotionMonths: 1,
        promotionPlanId: null,
        promotionPlanWording: "",
        promotionStartsOn: null,
        promotionEndsOn: null,
        ...(body.promotion && typeof body.promotion === "object" ? (body.promotion as Record<string, never>) : {}),
        images: Array.isArray(body.images) ? (body.images as never) : [],
      })
      .where(eq(unitTypes.locationId, loc.id));
    return { ok: true };
  },
  /** Merges `settings` into every account's global_settings (e.g. { is_rentals_enabled: false }). */
  async setAccountSettings(db, body) {
    const settings = body.settings;
    if (!settings || typeof settings !== "object") throw new Error("settings must be an object");
    await db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || ${JSON.stringify(settings)}::jsonb` });
    return { ok: true };
  },
  /** Sets every account's tagline (shown on the home and about pages); returns the previous one. */
  async setTagline(db, body) {
    if (typeof body.tagline !== "string") throw new Error("tagline must be a string");
    const [before] = await db.select({ tagline: accounts.tagline }).from(accounts).limit(1);
    await db.update(accounts).set({ tagline: body.tagline });
    return { previous: before?.tagline ?? "" };
  },
  /**
   * Sets the website's operator code (analyticsId, customJs, customHeaderCode, customBodyCode,
   * customCss; only the keys given) and returns the previous values, so a spec can put them back.
   */
  async setWebsiteCode(db, body) {
    const keys = ["analyticsId", "customJs", "customHeaderCode", "customBodyCode", "customCss"] as const;
    const [before] = await db.select().from(websites).limit(1);
    if (!before) throw new Error("no website");
    const set: Partial<Record<(typeof keys)[number], string | null>> = {};
    for (const k of keys) if (k in body) set[k] = body[k] == null ? (k === "analyticsId" ? null : "") : String(body[k]);
    if (Object.keys(set).length) await db.update(websites).set(set as Partial<typeof websites.$inferInsert>);
    return Object.fromEntries(keys.map((k) => [k, before[k]]));
  },
  /** Renames the menu items called `from` to `to` (the navbar and footer of every page); returns how many. */
  async renameMenuItem(db, body) {
    const rows = await db.update(navMenuItems).set({ name: String(body.to) }).where(eq(navMenuItems.name, String(body.from))).returning({ id: navMenuItems.id });
    return { renamed: rows.length };
  },
  /** Adds a redirect rule (through the service the seed uses), or removes it with `remove: true`. */
  async setRedirect(db, body) {
    const [website] = await db.select({ id: websites.id }).from(websites).limit(1);
    if (!website) throw new Error("no website");
    if (body.remove === true) {
      await db.delete(redirects).where(and(eq(redirects.websiteId, website.id), eq(redirects.fromPath, String(body.fromPath))));
      return { ok: true };
    }
    const { saveRedirect } = await import("../services/content/redirects.server");
    await saveRedirect(db, { websiteId: website.id, fromPath: String(body.fromPath), toPath: String(body.toPath) });
    return { ok: true };
  },
  /** Portal: a tenant with a paid lease, as a move-in leaves them ({ email, password }). */
  async createTenantWithLease(db, body) {
    const { createTenantWithLease } = await import("../services/portal/demo-tenant.server");
    const { now } = await import("~/platform/clock.server");
    return createTenantWithLease(db, { email: String(body.email), password: String(body.password), now: now(), withInsurance: body.withInsurance === true });
  },
  /** Portal: the billing run for `date` (YYYY-MM-DD, e.g. a month ahead), for one tenant's leases when `email` is given. */
  async runBilling(db, body) {
    const { runBilling } = await import("../services/payments/billing-run.server");
    const { tenants } = await import("~/db/schema");
    const { eq } = await import("drizzle-orm");
    let tenantId: number | undefined;
    if (typeof body.email === "string") {
      const [t] = await db.select({ id: tenants.id }).from(tenants).where(eq(tenants.email, body.email.toLowerCase()));
      if (!t) throw new Error(`No tenant ${body.email}`);
      tenantId = t.id;
    }
    return runBilling(db, { runDate: String(body.date), force: true, tenantId });
  },
  /** Rentals: the newest email sent to `to` (subject and text), e.g. to follow a reservation's cancel link. */
  /**
   * Adds `count` available units to a location's unit type (found by width, length and name), so a
   * spec that rents or reserves has its own stock instead of using up the demo inventory.
   */
  async addUnits(db, body) {
    const { and, eq } = await import("drizzle-orm");
    const { locations, unitTypes, units } = await import("~/db/schema");
    const count = Number(body.count ?? 1);
    if (!Number.isInteger(count) || count < 1 || count > 50) throw new Error("count must be 1..50");
    const [type] = await db
      .select({ id: unitTypes.id, locationId: unitTypes.locationId, floor: unitTypes.floor })
      .from(unitTypes)
      .innerJoin(locations, eq(locations.id, unitTypes.locationId))
      .where(
        and(
          eq(locations.urlSlug, String(body.locationSlug)),
          eq(unitTypes.width, Number(body.width)),
          eq(unitTypes.length, Number(body.length)),
          eq(unitTypes.name, String(body.name)),
        ),
      );
    if (!type) throw new Error("no such unit type");
    const prefix = `E2E-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    await db.insert(units).values(
      Array.from({ length: count }, (_, i) => ({
        locationId: type.locationId,
        unitTypeId: type.id,
        name: `${prefix}-${i + 1}`,
        floor: type.floor,
        status: "available" as const,
      })),
    );
    return { ok: true, unitTypeId: type.id };
  },

  /**
   * SiteLink: sets a location's pay-method ids (sitelink_sites.pay_method_ids, decision 181) and
   * forgets the remembered adapter choices so the next call reads them; returns the previous ids so
   * a spec can put them back. Issue 20: the browser tests run against each reading of iPayMethod.
   */
  async setSiteLinkPayMethodIds(db, body) {
    const { locations, sitelinkSites } = await import("~/db/schema");
    const { forgetStorageChoices } = await import("~/storage-software/index.server");
    const ids = body.payMethodIds as Record<string, unknown> | undefined;
    const valid = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= -1;
    if (!ids || !valid(ids.card) || !valid(ids.cash) || !valid(ids.check)) throw new Error("payMethodIds must be { card, cash, check } integers");
    const [site] = await db
      .select({ locationId: sitelinkSites.locationId, payMethodIds: sitelinkSites.payMethodIds })
      .from(sitelinkSites)
      .innerJoin(locations, eq(locations.id, sitelinkSites.locationId))
      .where(eq(locations.urlSlug, String(body.locationSlug)));
    if (!site) throw new Error(`no SiteLink settings for ${String(body.locationSlug)}`);
    const payMethodIds = { card: Number(ids.card), cash: Number(ids.cash), check: Number(ids.check) };
    await db.update(sitelinkSites).set({ payMethodIds }).where(eq(sitelinkSites.locationId, site.locationId));
    // The simulator's location stays switched on for its new ids, as the demo seed records it (issue
    // 37): these specs show the adapter's own handling of a site that reads the id otherwise.
    const { recordSimulatorPass } = await import("~/storage-software/index.server");
    await recordSimulatorPass(db, site.locationId, new Date());
    forgetStorageChoices(db);
    return { previous: site.payMethodIds };
  },

  /**
   * Pay links (decision 240): sends a pay link for the first lease of the tenant `email`, as the back
   * office does (through sendPayLink); the spec reads the link from the e-mail (lastEmailTo).
   */
  async sendPayLink(db, body) {
    const { sendPayLink } = await import("../services/payments/pay-links.server");
    const { leases, tenants } = await import("~/db/schema");
    const { now } = await import("~/platform/clock.server");
    const [row] = await db
      .select({ tenantId: tenants.id, leaseId: leases.id })
      .from(tenants)
      .innerJoin(leases, eq(leases.tenantId, tenants.id))
      .where(eq(tenants.email, String(body.email).toLowerCase()))
      .limit(1);
    if (!row) throw new Error(`No tenant with a lease ${String(body.email)}`);
    const r = await sendPayLink(db, { ...row, staffId: null, now: now() });
    return r.ok ? { ok: true, linkId: r.linkId } : r;
  },

  /** Texts (issue 40): sets a location's text message number (`sms`, null for none); returns the previous one. */
  async setLocationSms(db, body) {
    const [before] = await db.select({ sms: locations.sms }).from(locations).where(eq(locations.urlSlug, String(body.slug)));
    if (!before) throw new Error("no such location");
    await db.update(locations).set({ sms: typeof body.sms === "string" ? body.sms : null }).where(eq(locations.urlSlug, String(body.slug)));
    return { previous: before.sms };
  },

  /**
   * Abandoned-rental recovery (issue 40, decision 517): one housekeeping pass of the reminders at the
   * server's clock; returns what it sent and how many mails `to` has in the outbox.
   */
  async sendRentalRecoveryReminders(db, body) {
    const { sendRentalRecoveryReminders } = await import("../services/rental/recovery.server");
    const { emailOutbox } = await import("~/db/schema");
    const { now } = await import("~/platform/clock.server");
    const sent = await sendRentalRecoveryReminders(db, now());
    const mails = typeof body.to === "string" ? (await db.select({ id: emailOutbox.id }).from(emailOutbox).where(eq(emailOutbox.to, body.to))).length : 0;
    return { ...sent, mailsTo: mails };
  },

  /**
   * Promotions (issue 40): gives the unit type of `slug` sized `width`×`length` a promotion (`values`:
   * promotionKind, promotionPlanId, … as the console's form posts them) through the same services as
   * the console (the form's target completes a SiteLink plan's terms and checks it, the draft, the
   * publish), as an owner of the account made for the purpose. Returns the text it will show.
   */
  async publishUnitTypePromotion(db, body) {
    const { staffMembers } = await import("~/db/schema");
    const { planAsRead, promotionTarget, promotionPreview } = await import("~/services/content/promotion.server");
    const { saveDraftEdit } = await import("~/services/content/changesets.server");
    const { publishDraft } = await import("~/services/content/publish.server");
    const { changesets } = await import("~/db/schema");
    const { scopeFor } = await import("~/domain/staff/roles");
    const { now } = await import("~/platform/clock.server");
    const [loc] = await db.select({ id: locations.id, accountId: locations.accountId }).from(locations).where(eq(locations.urlSlug, String(body.slug)));
    if (!loc) throw new Error("no such location");
    const findType = async () =>
      (
        await db
          .select({ id: unitTypes.id })
          .from(unitTypes)
          .where(and(eq(unitTypes.locationId, loc.id), eq(unitTypes.width, Number(body.width)), eq(unitTypes.length, Number(body.length))))
      )[0];
    let type = await findType();
    if (!type) {
      // A type SiteLink has and our catalogue has not synced yet: the sync the server runs, now.
      const { runSiteLinkSync } = await import("~/storage-software/index.server");
      await runSiteLinkSync(db, { full: true, now: now() });
      type = await findType();
    }
    if (!type) throw new Error("no such unit type");
    const email = "e2e-promotions@office.example";
    let [owner] = await db.select({ id: staffMembers.id }).from(staffMembers).where(eq(staffMembers.email, email));
    owner ??= (await db.insert(staffMembers).values({ accountId: loc.accountId, email, name: "Promotions", role: "owner", passwordHash: "not-used" }).returning({ id: staffMembers.id }))[0]!;
    const staff = { staffId: owner.id, accountId: loc.accountId, email, name: "Promotions", role: "owner" as const, scope: scopeFor("owner", []), factorAt: now(), sessionHash: "", ip: null };
    const target = await promotionTarget(db, loc.id);
    const values = target.normalise!({ ...(body.values as Record<string, unknown>) });
    const problems = await target.verify!(values, { id: type.id, createKey: null });
    if (Object.keys(problems).length) throw new Error(JSON.stringify(problems));
    const saved = await saveDraftEdit(db, staff, { op: "update", entity: "unitType", recordId: type.id, values, base: {} });
    if (!saved.ok) throw new Error(JSON.stringify(saved));
    const [draft] = await db.select({ id: changesets.id }).from(changesets).where(and(eq(changesets.accountId, loc.accountId), eq(changesets.status, "draft")));
    if (draft) {
      const published = await publishDraft(db, staff, { changesetId: draft.id, now: now() });
      // Already live (a second run): the draft holds nothing to publish.
      if (!published.ok && published.reason !== "empty") throw new Error(JSON.stringify(published));
    }
    return { unitTypeId: type.id, shown: promotionPreview(values, await planAsRead(db, loc.id, values.promotionPlanId)) };
  },

  /**
   * The site's discount plans of the location `slug` read from SiteLink now, as the server's sync does
   * every 15 minutes (decision 673): what a browser check of a plan changed in SiteLink waits for.
   */
  async readDiscountPlansNow(db, body) {
    const { storageFor } = await import("~/storage-software/index.server");
    const [loc] = await db.select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status }).from(locations).where(eq(locations.urlSlug, String(body.slug)));
    if (!loc) throw new Error("no such location");
    return { plans: (await storageFor(db, loc).listDiscountPlans()).length };
  },

  async lastEmailTo(db, body) {
    const { emailOutbox } = await import("~/db/schema");
    const { desc, eq } = await import("drizzle-orm");
    const [mail] = await db.select().from(emailOutbox).where(eq(emailOutbox.to, String(body.to))).orderBy(desc(emailOutbox.id)).limit(1);
    const { readOutboxMail } = await import("~/services/mail/outbox.server");
    return mail ? { subject: mail.subject, text: readOutboxMail(mail).text } : { subject: null, text: null };
  },
};
