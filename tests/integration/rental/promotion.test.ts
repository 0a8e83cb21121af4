/**
 * Promotions that apply at rent time (issue 40, decisions 600–604), against the SiteLink simulator
 * over real SOAP/HTTP and the app over HTTP:
 * - the console's promotion form at a SiteLink location lists the site's discount plans (read from
 *   SiteLink), saves a plan into the draft (the live site unchanged), refuses a kind that is not a
 *   plan; publishing puts it live: the location page shows the plan's words;
 * - the rental's quote (SiteLink's MoveInCostRetrieve with the plan), the lease and the move-in apply
 *   it: MoveInWithDiscount_v7 names the plan, the simulator's ledger holds the concession, and our
 *   record's lines show the same words and add up to the payment;
 * - a typed text that is not the wording of what is applied is refused (at save, so at publish);
 * - the "empty" reading of DiscountPlansRetrieve: no plan offered, the page says why;
 * - at a local location, $20 off each of the first 3 months: the quote and the move-in take it off
 *   the first month, the billing run off the second and third, not the fourth.
 */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changesets, leases, ledgerEntries, locations, unitTypes } from "~/db/schema";
import { readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { publishDraft } from "~/services/content/publish.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { forgetStorageChoices, storageFor } from "~/storage-software/index.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";
import type { DatabaseHandle } from "~/db/client.server";

const ORIGIN = "https://www.example.com";
const LUMBERTON = "lumberton-nc-28358";
const FREE_MONTH = { ConcessionID: 41, sPlanName: "1st Month Free", pcDiscount: 100 };
const TEN_OFF = { ConcessionID: 42, sPlanName: "Ten dollars", pcDiscount: 0, fixedDiscount: 1000 };

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
  const http = client(() => app);

  beforeAll(async () => {
    bed = await startSyncedSiteLinkTestbed(NOW);
    bed.sim.control.configureSite("L001", { concessions: [FREE_MONTH, TEN_OFF] });
    unitTypeId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
    const [loc] = await bed.handle.db.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, bed.lumberton.id));
    owner = await signedInStaffMember(bed.handle.db, { accountId: loc!.accountId, role: "owner" });
    app = await startAppServer(bed.handle.db);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await bed?.close();
  });

  const page = () => `/admin/content/unit-types/${unitTypeId}`;

  it("the console lists the site's plans in the promotion's words; a plan goes into the draft, not live; another kind is refused", async () => {
    const shown = await http.get(page(), owner);
    expect(shown.status).toBe(200);
    expect(shown.body).toContain("The site’s discount plans in SiteLink");
    expect(shown.body).toMatch(/<td>41<\/td><td>1st Month Free<\/td><td>First month free<\/td>/);
    expect(shown.body).toMatch(/<td>42<\/td><td>Ten dollars<\/td><td>\$10 off the first month<\/td>/);
    const form = formOf(shown.body, "promotion-applies");
    // At a SiteLink location the form asks for a plan, not an amount.
    expect(form).toContain('name="promotionPlanId"');
    expect(form).not.toContain('name="promotionPercent"');

    const refused = await http.post(page(), { formId: "promotion-applies", target: "unitTypePromotion", intent: "save", recordId: unitTypeId, base: baseOf(form), promotionKind: "percent", promotionPlanId: "", promotionStartsOn: "", promotionEndsOn: "" }, owner);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain("At a SiteLink location a promotion is one of the site's discount plans");

    const unknown = await http.post(page(), { formId: "promotion-applies", target: "unitTypePromotion", intent: "save", recordId: unitTypeId, base: baseOf(form), promotionKind: "plan", promotionPlanId: "99", promotionStartsOn: "", promotionEndsOn: "" }, owner);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toContain("Choose one of the site's discount plans listed above.");

    const saved = await http.post(page(), { formId: "promotion-applies", target: "unitTypePromotion", intent: "save", recordId: unitTypeId, base: baseOf(form), promotionKind: "plan", promotionPlanId: "41", promotionStartsOn: "2026-11-01", promotionEndsOn: "2026-12-31" }, owner);
    expect(saved.status, saved.body.slice(0, 500)).toBe(303);
    const [live] = await bed.handle.db.select({ kind: unitTypes.promotionKind }).from(unitTypes).where(eq(unitTypes.id, Number(unitTypeId)));
    expect(live!.kind).toBe("none");
    const draft = await readEffectiveRecord(bed.handle.db, owner.signedIn, "unitType", Number(unitTypeId));
    expect(draft!.values).toMatchObject({ promotionKind: "plan", promotionPlanId: 41, promotionPercent: 100, promotionMonths: 1, promotionStartsOn: "2026-11-01", promotionEndsOn: "2026-12-31" });
    expect((await http.get(page(), owner)).body).toContain("Shown as: “First month free”");

    // A typed text that says something else is refused: the text comes from what is applied.
    const typed = await saveDraftEdit(bed.handle.db, owner.signedIn, { op: "update", entity: "unitType", recordId: Number(unitTypeId), values: { promotion: "First month $1" }, base: {} });
    expect(typed).toMatchObject({ ok: false, reason: "invalid", errors: { promotion: expect.stringContaining("«First month free»") } });

    await publishAll(bed.handle.db, owner);
    const location = await http.get(`/locations/${LUMBERTON}?promo=1`);
    expect(location.body).toContain("First month free");
  });

  it("the quote, the lease and the move-in apply it: SiteLink's ledger holds the concession, every line says the same words", async () => {
    const { id, quote } = await signedRental(bed.handle.db, unitTypeId);
    const promo = quote.lines.find((l) => l.kind === "discount");
    const rent = quote.lines.find((l) => l.kind === "rent")!;
    expect(promo).toMatchObject({ description: "Promotion: First month free", amount: -rent.amount });
    expect(quote.promotion).toMatchObject({ wording: "First month free", planId: 41 });
    const rental = (await getRental(bed.handle.db, id, unitTypeId))!;

    const ctx = await ctxFor(bed.handle.db, unitTypeId);
    const outcome = await placeMoveIn(bed.handle.db, ctx, rental, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: ORIGIN });
    expect(outcome).toMatchObject({ status: "completed", created: true });
    const sent = bed.sim.control.calls({ operation: "MoveInWithDiscount_v7", location: "L001" }).at(-1)!;
    expect(sent.params.ConcessionPlanID).toBe("41");
    expect(Math.round(Number(sent.params.dcPaymentAmount) * 100)).toBe(quote.total);
    const quoted = bed.sim.control.calls({ operation: "MoveInCostRetrieveWithDiscount_v4", location: "L001" }).at(-1)!;
    expect(quoted.params.ConcessionPlanID).toBe("41");

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

  it("after its end date the promotion is not shown, not quoted and not sent", async () => {
    const later = new Date("2027-01-02T15:00:00Z");
    bed.sim.control.setClock({ to: later.toISOString() });
    try {
      const { quote } = await signedRental(bed.handle.db, unitTypeId, { now: later });
      expect(quote.lines.some((l) => l.kind === "discount")).toBe(false);
      expect(quote.promotion ?? null).toBeNull();
      const types = await storageFor(bed.handle.db, bed.lumberton).listUnitTypes({ now: later });
      expect(types.find((t) => t.id === unitTypeId)!.promotion).toBe("");
      expect(bed.sim.control.calls({ operation: "MoveInCostRetrieveWithDiscount_v4", location: "L001" }).at(-1)!.params.ConcessionPlanID).toBe("-999");
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
      const form = formOf(shown.body, "promotion-applies");
      const refused = await http.post(page(), { formId: "promotion-applies", target: "unitTypePromotion", intent: "save", recordId: unitTypeId, base: baseOf(form), promotionKind: "plan", promotionPlanId: "41", promotionStartsOn: "", promotionEndsOn: "" }, owner);
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
