/**
 * Promotions that apply at rent time (issue 40, decisions 600–604, 670–674), against the SiteLink
 * simulator over real SOAP/HTTP and the app over HTTP:
 * - the console's promotion form at a SiteLink location offers the site's discount plans in a select,
 *   each named with what it gives (read from SiteLink), and lists the plans not offered with why; it
 *   saves a plan into the draft (the live site unchanged), refuses a kind that is not a plan, a plan
 *   not listed or not offered; publishing puts it live: the location page shows the plan's words;
 * - SiteLink unreachable: the page says so beside the plan field and keeps the plan chosen; a save is
 *   refused beside the field; never a 500;
 * - the rental's quote (SiteLink's MoveInCostRetrieve with the plan), the lease and the move-in apply
 *   it: MoveInWithDiscount_v7 names the plan, the simulator's ledger holds the concession, and our
 *   record's lines show the same words and add up to the payment;
 * - a plan of two months: the quote, the lease and the receipt say what the later month gets, and the
 *   simulator's billing run takes it off the second month and not the third;
 * - every reading of which move-in rent lines a plan discounts (a late first-of-month move-in): the
 *   promotion's words only where SiteLink's figures are what the plan gives;
 * - a plan changed, made unwordable or removed in SiteLink after publishing: the website words it as
 *   it is now or stops offering it, the quote sends it or not accordingly, and the console home, the
 *   location's content page and the unit type's page say so until the office saves it again;
 * - the "empty" reading of DiscountPlansRetrieve: no plan offered, the page says why;
 * - at a local location, $20 off each of the first 3 months (typed in dollars): the quote and the
 *   move-in take it off the first month, the billing run off the second and third, not the fourth;
 * - the migration that retires typed promotion text (decision 674).
 */
import fs from "node:fs";
import { and, asc, desc, eq, isNotNull, ne, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, changesets, changesetChanges, emailOutbox, leases, ledgerEntries, locations, unitTypes, units } from "~/db/schema";
import { readEffectiveRecord } from "~/services/content/changesets.server";
import { publishDraft } from "~/services/content/publish.server";
import { placeMoveIn, quoteRental } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { forgetStorageChoices, runSiteLinkSync, storageFor } from "~/storage-software/index.server";
import type { ConcessionPlan } from "../../../sitelink-simulator/state";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";
import type { DatabaseHandle } from "~/db/client.server";

const ORIGIN = "https://www.example.com";
const LUMBERTON = "lumberton-nc-28358";
const FREE_MONTH: ConcessionPlan = { ConcessionID: 41, sPlanName: "1st Month Free", pcDiscount: 100 };
const TEN_OFF: ConcessionPlan = { ConcessionID: 42, sPlanName: "Ten dollars", pcDiscount: 0, fixedDiscount: 1000 };
const HALF_TWO: ConcessionPlan = { ConcessionID: 43, sPlanName: "Half off two months", pcDiscount: 50, expirMonths: 2 };
const PREPAY: ConcessionPlan = { ConcessionID: 44, sPlanName: "Prepay three", pcDiscount: 100, prepay: true, prePaidMonths: 3 };
const FOREVER: ConcessionPlan = { ConcessionID: 45, sPlanName: "Ten percent for good", pcDiscount: 10, neverExpires: true };
const BOTH: ConcessionPlan = { ConcessionID: 46, sPlanName: "Ten or ten percent", pcDiscount: 10, fixedDiscount: 1000, amtType: 0 };
const L001_PLANS = [FREE_MONTH, TEN_OFF, HALF_TWO, PREPAY, FOREVER, BOTH];

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

function client(app: () => AppServer) {
  return {
    async get(path: string, member?: TestStaffMember) {
      const res = await fetch(app().origin + path, { redirect: "manual", headers: member ? { Cookie: member.cookie } : {} });
      return { status: res.status, location: res.headers.get("Location"), body: decode(await res.text()) };
    },
    async post(path: string, fields: Record<string, string>, member: TestStaffMember) {
      const minted = await getCsrfToken(new Request(app().origin + path, { headers: { Cookie: member.cookie } }));
      const cookie = minted.setCookie ? `${minted.setCookie.split(";")[0]}; ${member.cookie}` : member.cookie;
      const res = await fetch(app().origin + path, {
        method: "POST",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Referer: app().origin + path },
        body: new URLSearchParams({ [CSRF_FIELD]: minted.token, ...fields }),
      });
      return { status: res.status, location: res.headers.get("Location"), body: decode(await res.text()) };
    },
  };
}

function formOf(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start, `form ${id} on the page`).toBeGreaterThan(-1);
  return html.slice(html.lastIndexOf("<form", start), html.indexOf("</form>", start));
}
const baseOf = (form: string) => /name="base" value="([^"]*)"/.exec(form)![1]!;
/** The plan select's options: [value, label, selected]. */
const planOptions = (form: string) =>
  [...(/<select[^>]*name="promotionPlanId"[^>]*>([\s\S]*?)<\/select>/.exec(form)?.[1] ?? "").matchAll(/<option value="([^"]*)"( selected="")?>([^<]*)<\/option>/g)].map((m) => [m[1], m[3], Boolean(m[2])]);

async function publishAll(db: DatabaseHandle["db"], owner: TestStaffMember) {
  const [draft] = await db.select({ id: changesets.id }).from(changesets).where(eq(changesets.status, "draft"));
  expect(draft, "a draft to publish").toBeTruthy();
  expect(await publishDraft(db, owner.signedIn, { changesetId: draft!.id, now: NOW })).toMatchObject({ ok: true });
}

describe("a promotion at a SiteLink location: one of the site's discount plans, applied by SiteLink", () => {
  let bed: SiteLinkTestbed;
  let app: AppServer;
  let owner: TestStaffMember;
  let unitTypeId: string;
  let secondTypeId: string;
  let visits = 0;
  const http = client(() => app);

  beforeAll(async () => {
    bed = await startSyncedSiteLinkTestbed(NOW);
    bed.sim.control.configureSite("L001", { concessions: L001_PLANS });
    bed.sim.control.configureSite("L002", { concessions: [HALF_TWO] });
    unitTypeId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
    const [second] = await bed.handle.db
      .select({ id: unitTypes.id })
      .from(unitTypes)
      .innerJoin(units, and(eq(units.unitTypeId, unitTypes.id), eq(units.status, "available")))
      .where(and(eq(unitTypes.locationId, bed.lumberton.id), isNotNull(unitTypes.externalId), ne(unitTypes.category, "parking"), ne(unitTypes.id, Number(unitTypeId))))
      .groupBy(unitTypes.id)
      .orderBy(sql`count(*) desc`, asc(unitTypes.id))
      .limit(1);
    secondTypeId = String(second!.id);
    const [loc] = await bed.handle.db.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, bed.lumberton.id));
    owner = await signedInStaffMember(bed.handle.db, { accountId: loc!.accountId, role: "owner" });
    app = await startAppServer(bed.handle.db);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await bed?.close();
  });

  const page = (id = unitTypeId) => `/admin/content/unit-types/${id}`;
  const save = async (id: string, plan: string, dates: { starts?: string; ends?: string } = {}) => {
    const form = formOf((await http.get(page(id), owner)).body, "promotion-applies");
    return http.post(page(id), { formId: "promotion-applies", target: "unitTypePromotion", intent: "save", recordId: id, base: baseOf(form), promotionKind: "plan", promotionPlanId: plan, promotionStartsOn: dates.starts ?? "", promotionEndsOn: dates.ends ?? "" }, owner);
  };
  const locationPage = async () => (await http.get(`/locations/${LUMBERTON}?visit=${++visits}`)).body;
  const homePromotions = async () => {
    const html = (await http.get("/admin", owner)).body;
    const m = new RegExp(`<a href="([^"]+)" data-number="promotions"><span class="home-number__count">(\\d+)</span>`).exec(html);
    return m ? { href: m[1]!, count: Number(m[2]) } : null;
  };
  const quote = async (id = unitTypeId, now = NOW) => (await quoteRental(await ctxFor(bed.handle.db, id, now), null)).quote;
  const lastConcessionSent = () => bed.sim.control.calls({ operation: "MoveInCostRetrieveWithDiscount_v4", location: "L001" }).at(-1)!.params.ConcessionPlanID;

  it("the console offers the site's plans in a select, each with what it gives; a plan goes into the draft, not live; others are refused", async () => {
    const shown = await http.get(page(), owner);
    expect(shown.status).toBe(200);
    const form = formOf(shown.body, "promotion-applies");
    // At a SiteLink location the form asks for a plan, not an amount, among the plans SiteLink offers.
    expect(form).not.toContain('name="promotionPercent"');
    expect(planOptions(form)).toEqual([
      ["", "(none)", true],
      ["41", "1st Month Free: First month free", false],
      ["42", "Ten dollars: $10 off the first month", false],
      ["43", "Half off two months: 50% off the first 2 months", false],
    ]);
    // The plans whose terms the sources read two ways, or that are not an amount or a percentage off, with why.
    expect(shown.body).toContain("Prepay three (plan 44): it needs 3 months paid in advance at move-in.");
    expect(shown.body).toContain("Ten percent for good (plan 45): SiteLink marks it as never expiring, which the sources read two ways");
    expect(shown.body).toContain("Ten or ten percent (plan 46): both a percentage and an amount, which the sources apply differently.");

    const post = (fields: Record<string, string>) => http.post(page(), { formId: "promotion-applies", target: "unitTypePromotion", intent: "save", recordId: unitTypeId, base: baseOf(form), promotionStartsOn: "", promotionEndsOn: "", ...fields }, owner);
    const refused = await post({ promotionKind: "percent", promotionPlanId: "" });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain("At a SiteLink location a promotion is one of the site's discount plans");
    expect((await post({ promotionKind: "plan", promotionPlanId: "99" })).body).toContain("Choose one of the site's discount plans.");
    const prepay = await post({ promotionKind: "plan", promotionPlanId: "44" });
    expect(prepay.status).toBe(400);
    expect(prepay.body).toContain("This plan is not offered: it needs 3 months paid in advance at move-in. Choose another.");

    const saved = await save(unitTypeId, "41", { starts: "2026-11-01", ends: "2026-12-31" });
    expect(saved.status, saved.body.slice(0, 500)).toBe(303);
    const [live] = await bed.handle.db.select({ kind: unitTypes.promotionKind }).from(unitTypes).where(eq(unitTypes.id, Number(unitTypeId)));
    expect(live!.kind).toBe("none");
    const draft = await readEffectiveRecord(bed.handle.db, owner.signedIn, "unitType", Number(unitTypeId));
    expect(draft!.values).toMatchObject({ promotionKind: "plan", promotionPlanId: 41, promotionPlanWording: "First month free", promotionStartsOn: "2026-11-01", promotionEndsOn: "2026-12-31" });
    const again = await http.get(page(), owner);
    expect(again.body).toContain("Shown as: “First month free”");
    expect(planOptions(formOf(again.body, "promotion-applies")).find((o) => o[2])).toEqual(["41", "1st Month Free: First month free", true]);

    await publishAll(bed.handle.db, owner);
    expect(await locationPage()).toContain("First month free");
  });

  it("SiteLink unreachable: the page says so beside the plan field and keeps the plan chosen; a save is refused there, never a 500", async () => {
    bed.sim.control.addFault({ operation: "DiscountPlansRetrieve", kind: "rt_error" });
    try {
      const shown = await http.get(page(), owner);
      expect(shown.status).toBe(200);
      const form = formOf(shown.body, "promotion-applies");
      const hint = /<p id="([^"]+)" class="console-hint">(SiteLink could not be reached[^<]*)<\/p>\s*<select[^>]*aria-describedby="\1"[^>]*name="promotionPlanId"/.exec(form) ?? /<p id="([^"]+)" class="console-hint">(SiteLink could not be reached[^<]*)<\/p>/.exec(form);
      expect(hint?.[2]).toBe("SiteLink could not be reached to list the site's discount plans just now. The plan chosen is kept; try again in a moment.");
      expect(form).toMatch(new RegExp(`aria-describedby="${hint![1]}"`));
      expect(planOptions(form)).toEqual([
        ["", "(none)", false],
        ["41", "Plan 41 (as chosen)", true],
      ]);
      const refused = await save(unitTypeId, "41");
      expect(refused.status).toBe(400);
      expect(refused.body).toContain("SiteLink could not be reached to list the site's discount plans just now. Nothing was saved; try again in a moment.");
      expect(planOptions(formOf(refused.body, "promotion-applies")).find((o) => o[2])?.[0]).toBe("41");
      // The public page words the plan as last read meanwhile.
      expect(await locationPage()).toContain("First month free");
    } finally {
      bed.sim.control.clearFaults();
    }
  });

  it("the quote, the lease and the move-in apply it: SiteLink's ledger holds the concession, every line says the same words", async () => {
    const { id, quote } = await signedRental(bed.handle.db, unitTypeId);
    const promo = quote.lines.find((l) => l.kind === "discount");
    const rent = quote.lines.find((l) => l.kind === "rent")!;
    expect(promo).toMatchObject({ description: "Promotion: First month free", amount: -rent.amount });
    expect(quote.promotion).toMatchObject({ wording: "First month free", planId: 41, later: "" });
    const rental = (await getRental(bed.handle.db, id, unitTypeId))!;

    const ctx = await ctxFor(bed.handle.db, unitTypeId);
    const outcome = await placeMoveIn(bed.handle.db, ctx, rental, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: ORIGIN });
    expect(outcome).toMatchObject({ status: "completed", created: true });
    const sent = bed.sim.control.calls({ operation: "MoveInWithDiscount_v7", location: "L001" }).at(-1)!;
    expect(sent.params.ConcessionPlanID).toBe("41");
    expect(Math.round(Number(sent.params.dcPaymentAmount) * 100)).toBe(quote.total);
    expect(lastConcessionSent()).toBe("41");

    const site = bed.sim.control.inspectSite("L001");
    const ledger = site.ledgers.at(-1)!;
    const rentCharge = site.charges.find((c) => c.LedgerID === ledger.LedgerID && c.sChgCategory === "Rent")!;
    expect(rentCharge).toMatchObject({ ConcessionID: 41, discount: rent.amount, amount: 0 });
    expect(site.payments.filter((p) => p.LedgerID === ledger.LedgerID)[0]!.amount).toBe(quote.total);

    const record = await ctx.storage.getMoveIn((outcome as { leaseId: string }).leaseId);
    expect(record!.lines.map((l) => l.description)).toContain("Promotion: First month free");
    // The signed lease lists it among the move-in charges.
    expect(record!.lease.text).toContain("Promotion: First month free");
    expect(record!.lines.reduce((s, l) => s + l.amount + l.tax, 0)).toBe(quote.total);
  });

  it("two months of 50% off: the quote, the lease and the receipt say what month 2 gets, and SiteLink's billing takes it off month 2, not month 3", async () => {
    expect((await save(secondTypeId, "43")).status).toBe(303);
    await publishAll(bed.handle.db, owner);
    const LATER = "The promotion (50% off the first 2 months) also applies to the rent of month 2, when it is billed.";
    const { id, quote, details } = await signedRental(bed.handle.db, secondTypeId, { plan: "none" });
    const rent = quote.lines.find((l) => l.kind === "rent")!;
    expect(quote.lines.find((l) => l.kind === "discount")).toMatchObject({ description: "Promotion: 50% off the first 2 months", amount: -Math.round(rent.amount / 2) });
    expect(quote.promotion).toMatchObject({ wording: "50% off the first 2 months", planId: 43, later: LATER });
    const ctx = await ctxFor(bed.handle.db, secondTypeId);
    const outcome = await placeMoveIn(bed.handle.db, ctx, (await getRental(bed.handle.db, id, secondTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: ORIGIN });
    expect(outcome).toMatchObject({ status: "completed" });
    const record = await ctx.storage.getMoveIn((outcome as { leaseId: string }).leaseId);
    expect(record!.lease.text).toContain(LATER);
    const [mail] = await bed.handle.db.select({ text: emailOutbox.text }).from(emailOutbox).where(eq(emailOutbox.to, details.email)).orderBy(desc(emailOutbox.id)).limit(1);
    expect(mail?.text ?? "").toContain(LATER);

    // SiteLink bills months 2 and 3 (anniversary: from 22 December and 22 January).
    const ledger = bed.sim.control.inspectSite("L001").ledgers.at(-1)!;
    bed.sim.control.runBilling({ location: "L001", date: "2027-01-22" });
    const rents = bed.sim.control
      .inspectSite("L001")
      .charges.filter((c) => c.LedgerID === ledger.LedgerID && c.sChgCategory === "Rent")
      .sort((a, b) => a.start.localeCompare(b.start));
    expect(rents.map((c) => [c.start, c.discount ?? 0])).toEqual([
      [quote.moveInDate, Math.round(rent.amount / 2)],
      ["2026-12-22", Math.round(ledger.rent / 2)],
      ["2027-01-22", 0],
    ]);
  });

  it.each(["each", "first"] as const)("reading planMonths %s: a late move-in at a first-of-month site shows the promotion's words only where SiteLink's figures are the plan's", async (planMonths) => {
    bed.sim.control.configureSite("L002", { readings: { planMonths } });
    const jacksonvilleType = (await roomiestSyncedUnitType(bed, bed.jacksonville)).id;
    if (planMonths === "each") {
      expect((await save(jacksonvilleType, "43")).status).toBe(303);
      await publishAll(bed.handle.db, owner);
    }
    // 22 November, after iDayStrtProratePlusNext (17): the rest of November and all of December today.
    const q = await quote(jacksonvilleType);
    const rents = q.lines.filter((l) => l.kind === "rent");
    expect(rents).toHaveLength(2);
    const discounts = q.lines.filter((l) => l.kind === "discount");
    if (planMonths === "each") {
      expect(discounts.map((l) => l.description)).toEqual(["Promotion: 50% off the first 2 months", "Promotion: 50% off the first 2 months"]);
      expect(q.promotion).toMatchObject({ wording: "50% off the first 2 months", later: "" });
    } else {
      // SiteLink took it off the first line only: its figure stands in its own words, and no promotion words are shown.
      expect(discounts).toHaveLength(1);
      expect(discounts[0]!.description).not.toContain("Promotion:");
      expect(q.promotion).toMatchObject({ wording: "", planId: 43, later: "" });
    }
    expect(bed.sim.control.calls({ operation: "MoveInCostRetrieveWithDiscount_v4", location: "L002" }).at(-1)!.params.ConcessionPlanID).toBe("43");
  });

  it("a plan changed in SiteLink after publishing: the website words it as it is now, and the office is told until it saves it again", async () => {
    bed.sim.control.configureSite("L001", { concessions: L001_PLANS.map((p) => (p.ConcessionID === 41 ? { ...p, pcDiscount: 50 } : p)) });
    expect((await runSiteLinkSync(bed.handle.db, { full: true, now: NOW })).every((r) => r.ok)).toBe(true);
    const html = await locationPage();
    expect(html).toContain("50% off the first month");
    expect(html).not.toContain("First month free");
    const q = await quote();
    expect(q.lines.find((l) => l.kind === "discount")).toMatchObject({ description: "Promotion: 50% off the first month" });

    const home = await homePromotions();
    expect(home).toEqual({ href: `/admin/content/locations/${bed.lumberton.id}#promotions-attention-list`, count: 1 });
    const listed = (await http.get(home!.href.split("#")[0]!, owner)).body;
    expect(listed).toMatch(/class="desk-list__count">1 result</);
    expect(listed).toContain(`href="/admin/content/unit-types/${unitTypeId}"`);
    const NOTE = "SiteLink's discount plan 41 (1st Month Free) now gives “50% off the first month”; it gave “First month free” when the promotion was saved.";
    expect(listed).toContain(NOTE);
    const typePage = (await http.get(page(), owner)).body;
    expect(typePage).toContain(`Needs attention:</strong> ${NOTE}`);
    expect(typePage).toContain("Shown as: “50% off the first month”");

    // Saved again (and published): nothing to tell.
    expect((await save(unitTypeId, "41", { starts: "2026-11-01", ends: "2026-12-31" })).status).toBe(303);
    await publishAll(bed.handle.db, owner);
    expect(await homePromotions()).toBeNull();
    expect((await http.get(page(), owner)).body).not.toContain("Needs attention:");
  });

  it.each(["recurring", "offer"] as const)("a plan made never-expiring in SiteLink (reading %s): not shown, not sent, the office told", async (neverExpires) => {
    bed.sim.control.configureSite("L001", { concessions: L001_PLANS.map((p) => (p.ConcessionID === 41 ? { ...p, pcDiscount: 50, neverExpires: true } : p)), readings: { neverExpires } });
    try {
      expect((await runSiteLinkSync(bed.handle.db, { full: true, now: NOW })).every((r) => r.ok)).toBe(true);
      expect(await locationPage()).not.toContain("50% off the first month");
      const q = await quote();
      expect(q.lines.some((l) => l.kind === "discount")).toBe(false);
      expect(q.promotion ?? null).toBeNull();
      expect(lastConcessionSent()).toBe("-999");
      expect((await http.get(page(), owner)).body).toContain("now gives something the website cannot word for certain (SiteLink marks it as never expiring");
    } finally {
      bed.sim.control.configureSite("L001", { readings: { neverExpires: "recurring" } });
    }
  });

  it("a plan removed in SiteLink after publishing: not shown, not sent, the office told", async () => {
    bed.sim.control.configureSite("L001", { concessions: L001_PLANS.map((p) => (p.ConcessionID === 41 ? { ...p, pcDiscount: 50, disabled: true } : p)) });
    expect((await runSiteLinkSync(bed.handle.db, { full: true, now: NOW })).every((r) => r.ok)).toBe(true);
    expect(await locationPage()).not.toContain("50% off the first month");
    const q = await quote();
    expect(q.promotion ?? null).toBeNull();
    expect(lastConcessionSent()).toBe("-999");
    expect(await homePromotions()).toMatchObject({ count: 1 });
    expect((await http.get(page(), owner)).body).toContain("SiteLink no longer lists discount plan 41 (1st Month Free): the promotion is not shown and not applied.");
    // Back as it was (50% off, saved), for the tests after this one.
    bed.sim.control.configureSite("L001", { concessions: L001_PLANS.map((p) => (p.ConcessionID === 41 ? { ...p, pcDiscount: 50 } : p)) });
    expect((await runSiteLinkSync(bed.handle.db, { full: true, now: NOW })).every((r) => r.ok)).toBe(true);
    expect(await homePromotions()).toBeNull();
  });

  it("after its end date the promotion is not shown, not quoted and not sent", async () => {
    const later = new Date("2027-01-02T15:00:00Z");
    bed.sim.control.setClock({ to: later.toISOString() });
    try {
      const { quote } = await signedRental(bed.handle.db, unitTypeId, { now: later });
      expect(quote.lines.some((l) => l.kind === "discount")).toBe(false);
      expect(quote.promotion ?? null).toBeNull();
      const types = await storageFor(bed.handle.db, bed.lumberton).listUnitTypes({ now: later });
      expect(types.find((t) => t.id === unitTypeId)!.promotion).toBe("");
      expect(lastConcessionSent()).toBe("-999");
    } finally {
      bed.sim.control.setClock({ to: NOW.toISOString() });
    }
  });

  it("DiscountPlansRetrieve answering no rows (LSETUP's reading): no plan offered, the page says why", async () => {
    bed.sim.control.configureSite("L001", { readings: { discountPlans: "empty" } });
    forgetStorageChoices(bed.handle.db);
    try {
      const shown = await http.get(page(), owner);
      expect(shown.body).toContain("SiteLink lists no discount plan for this site");
      const refused = await save(unitTypeId, "41");
      expect(refused.status).toBe(400);
    } finally {
      bed.sim.control.configureSite("L001", { readings: { discountPlans: "table" } });
    }
  });
});

describe("a promotion at a local location: an amount off its first months, computed by us", () => {
  let handle: DatabaseHandle;
  let unitTypeId: string;

  beforeAll(async () => {
    handle = await createTestDatabase({ seeded: true });
    unitTypeId = (await lumbertonUnitType(handle.db)).unitTypeId;
    await handle.db.update(unitTypes).set({ promotionKind: "amount", promotionAmount: 2000, promotionMonths: 3 }).where(eq(unitTypes.id, Number(unitTypeId)));
  }, 120_000);
  afterAll(() => handle?.close());

  it("$20 off each of the first 3 months: the quote and the move-in take it off the first month, the billing run off the second and third only", async () => {
    const { id, quote } = await signedRental(handle.db, unitTypeId, { plan: "none" });
    const line = quote.lines.find((l) => l.postingKey.startsWith("promotion:"));
    expect(line).toMatchObject({ description: "Promotion: $20 off each of the first 3 months", amount: -2000 });
    const ctx = await ctxFor(handle.db, unitTypeId);
    expect((await ctx.storage.getUnitType(unitTypeId, { now: NOW }))!.promotion).toBe("$20 off each of the first 3 months");
    const rental = (await getRental(handle.db, id, unitTypeId))!;
    const outcome = await placeMoveIn(handle.db, ctx, rental, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: ORIGIN });
    expect(outcome).toMatchObject({ status: "completed" });
    const leaseId = Number((outcome as { leaseId: string }).leaseId);
    const [lease] = await handle.db.select().from(leases).where(eq(leases.id, leaseId));
    expect(lease).toMatchObject({ promotionDiscount: 2000, promotionMonths: 3, promotionWording: "$20 off each of the first 3 months" });

    // Four months of billing: the promotion's lines for months 2 and 3, none for month 4.
    for (const runDate of ["2026-12-22", "2027-01-22", "2027-02-22"]) await ctx.storage.billLeases({ runDate, now: NOW });
    const promoLines = await handle.db
      .select({ kind: ledgerEntries.kind, amount: ledgerEntries.amount, key: ledgerEntries.postingKey })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.leaseId, leaseId)));
    const keys = promoLines.filter((l) => l.key?.startsWith("promotion:")).map((l) => [l.key, l.kind, l.amount]);
    expect(keys).toEqual([
      [`promotion:${quote.moveInDate}`, "credit", 2000],
      ["promotion:2026-12-22", "credit", 2000],
      ["promotion:2027-01-22", "credit", 2000],
    ]);
    expect(promoLines.some((l) => l.key === "rent:2027-02-22")).toBe(true);
  });
});

describe("typed promotion text retired (migration 0030, decision 674)", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase({ seeded: true });
  }, 120_000);
  afterAll(() => handle?.close());

  it("text that says exactly what a local promotion gives becomes it; other text goes, kept in the audit trail; drafts lose it", async () => {
    const db = handle.db;
    // As before 0030: the typed text column, some texts, a SiteLink plan's old terms, and drafts holding text.
    await db.execute(sql`alter table unit_types add column promotion text not null default ''`);
    const types = await db.select({ id: unitTypes.id, locationId: unitTypes.locationId }).from(unitTypes).orderBy(asc(unitTypes.id)).limit(8);
    expect(types).toHaveLength(8);
    const texts = ["First month free", " $12.50 off each of the first 3 months ", "25% off the first 2 months", "First month $1", "$20.00 off the first month", "First month free", "$1,000 off the first month"];
    for (const [i, text] of texts.entries()) await db.execute(sql`update unit_types set promotion = ${text} where id = ${types[i]!.id}`);
    // The sixth already has a promotion that applies: its text goes (it could only have been that promotion's words or nothing).
    await db.update(unitTypes).set({ promotionKind: "amount", promotionAmount: 500 }).where(eq(unitTypes.id, types[5]!.id));
    // A SiteLink plan saved before 0030 kept its terms in the percent column.
    await db.update(unitTypes).set({ promotionKind: "plan", promotionPlanId: 41, promotionPercent: 100 }).where(eq(unitTypes.id, types[7]!.id));
    const [loc] = await db.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, types[0]!.locationId));
    const [draft] = await db.insert(changesets).values({ accountId: loc!.accountId, status: "draft" }).returning({ id: changesets.id });
    await db.insert(changesetChanges).values([
      { changesetId: draft!.id, entity: "unitType", op: "update", recordId: types[0]!.id, locationId: types[0]!.locationId, values: { promotion: "Half off", description: "Wide door" }, base: { promotion: "First month free", description: "" } },
      { changesetId: draft!.id, entity: "unitType", op: "update", recordId: types[1]!.id, locationId: types[1]!.locationId, values: { promotion: "Gone" }, base: { promotion: "" } },
      { changesetId: draft!.id, entity: "unitType", op: "update", recordId: types[2]!.id, locationId: types[2]!.locationId, values: { promotionKind: "plan", promotionPlanId: 42, promotionAmount: 1000 }, base: {} },
    ]);

    for (const file of ["0030_promotion_text_retired.sql", "0031_promotion_text_dropped.sql"]) {
      for (const statement of fs.readFileSync(`drizzle/${file}`, "utf8").split("--> statement-breakpoint")) {
        // (The mirror's triggers are there already: the test database has every migration.)
        if (statement.replace(/--.*$/gm, "").trim() && !statement.includes("CREATE TRIGGER")) await db.execute(sql.raw(statement));
      }
    }

    const after = await db
      .select({ id: unitTypes.id, kind: unitTypes.promotionKind, amount: unitTypes.promotionAmount, percent: unitTypes.promotionPercent, months: unitTypes.promotionMonths, wording: unitTypes.promotionPlanWording })
      .from(unitTypes)
      .where(sql`${unitTypes.id} in ${types.map((t) => t.id)}`)
      .orderBy(asc(unitTypes.id));
    expect(after.map(({ id: _id, ...rest }) => rest)).toEqual([
      { kind: "percent", amount: 0, percent: 100, months: 1, wording: "" },
      { kind: "amount", amount: 1250, percent: 0, months: 3, wording: "" },
      { kind: "percent", amount: 0, percent: 25, months: 2, wording: "" },
      { kind: "none", amount: 0, percent: 0, months: 1, wording: "" },
      { kind: "none", amount: 0, percent: 0, months: 1, wording: "" },
      { kind: "amount", amount: 500, percent: 0, months: 1, wording: "" },
      { kind: "amount", amount: 100_000, percent: 0, months: 1, wording: "" },
      { kind: "plan", amount: 0, percent: 100, months: 1, wording: "First month free" },
    ]);
    const columns = (await db.execute(sql`select column_name from information_schema.columns where table_name = 'unit_types' and column_name = 'promotion'`)) as unknown as { rows: unknown[] };
    expect(columns.rows).toEqual([]);

    const trail = await db.select().from(auditEvents).where(eq(auditEvents.action, "content.promotion_text_retired")).orderBy(asc(auditEvents.entityId));
    expect(trail).toHaveLength(7);
    const byType = new Map(trail.map((e) => [Number(e.entityId), e]));
    expect(byType.get(types[3]!.id)).toMatchObject({ actor: "migration 0030", entity: "unit_type", changes: { promotion: { before: "First month $1", after: "" } }, detail: { note: expect.stringContaining("no longer shown") } });
    expect(byType.get(types[0]!.id)!.detail).toMatchObject({ note: expect.stringContaining("now applies at rent time") });

    const changes = await db.select({ recordId: changesetChanges.recordId, values: changesetChanges.values, base: changesetChanges.base }).from(changesetChanges).where(eq(changesetChanges.changesetId, draft!.id)).orderBy(asc(changesetChanges.recordId));
    expect(changes).toEqual([
      { recordId: types[0]!.id, values: { description: "Wide door" }, base: { description: "" } },
      { recordId: types[2]!.id, values: { promotionKind: "plan", promotionPlanId: 42, promotionAmount: 1000, promotionPlanWording: "$10 off the first month" }, base: {} },
    ]);
  });
});
