/**
 * The unit type page's promotion form (issue 40, decisions 600–603, 670–673): what the promotion gives,
 * its dates, and at a SiteLink location a select of the site's own discount plans, each named with
 * what it gives (read from SiteLink when the page is drawn and again when the form is saved). Edits
 * go into the draft like any other. And what the office must be told about a published promotion
 * whose plan SiteLink changed, removed or no longer lets us word (decision 673): on the unit type's
 * page, the location's content page and the console home, all from `promotionsNeedingAttention`.
 */
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations, unitTypes } from "~/db/schema";
import { planAttention, promotionTerms, promotionWording, type PlanReading } from "~/domain/rental/promotion";
import type { FieldErrors } from "~/domain/content/editable";
import { unitTypePromotionFields } from "~/domain/content/form";
import { localDate } from "~/domain/shared/calendar";
import { discountPlansAsRead, promotionSoftwareOf, storageFor } from "~/storage-software/index.server";
import type { DiscountPlanOption } from "~/storage-software/port";
import { logger } from "~/platform/logger.server";
import type { EditTarget } from "./editor.server";

type Row = Record<string, unknown>;

interface Choice {
  value: string;
  label: string;
}

const UNREACHABLE = "SiteLink could not be reached to list the site's discount plans just now.";

async function locationOf(db: Database, locationId: number) {
  const [loc] = await db
    .select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(locations)
    .where(eq(locations.id, locationId));
  return loc ?? null;
}

/**
 * Whose promotions the location takes and, at SiteLink, its discount plans as SiteLink lists them now
 * (mirrored). A SiteLink that cannot be reached, or answers no plan (evidence §3: LSETUP's empty
 * answer), gives none, and the page says why; nothing here throws for SiteLink's sake.
 */
async function sitePlans(db: Database, locationId: number): Promise<{ software: "local" | "sitelink"; plans: DiscountPlanOption[]; problem: string | null; unreachable: boolean }> {
  const loc = await locationOf(db, locationId);
  if (!loc || (await promotionSoftwareOf(db, locationId)) !== "sitelink") return { software: "local", plans: [], problem: null, unreachable: false };
  try {
    const plans = await storageFor(db, loc).listDiscountPlans();
    return { software: "sitelink", plans, problem: plans.length ? null : "SiteLink lists no discount plan for this site: add one in SiteLink, then reload this page.", unreachable: false };
  } catch (error) {
    logger.warn({ err: error, locationId }, "SiteLink's discount plans could not be read");
    return { software: "sitelink", plans: [], problem: `${UNREACHABLE} The plan chosen is kept; try again in a moment.`, unreachable: true };
  }
}

/** A plan as the select names it: its name in SiteLink and what it gives ("1st Month Free: First month free"). */
const planLabel = (p: DiscountPlanOption) => `${p.name}: ${p.terms ? promotionWording(p.terms) : "not offered"}`;

const KIND_LABELS: Record<string, string> = {
  none: "No promotion",
  amount: "An amount off each month",
  percent: "A percentage off each month",
  plan: "One of the site's SiteLink discount plans",
};

/**
 * The page's choices: the kinds this location's promotions may be; at SiteLink the select of the
 * site's plans offered (each with what it gives), the chosen one kept even when SiteLink does not list
 * it now or cannot be reached (so nothing chosen is lost); the plans not offered, with why; and what
 * to say beside the select when SiteLink could not be read.
 */
export async function promotionChoices(db: Database, locationId: number, chosenPlanId: number | null) {
  const { software, plans, problem } = await sitePlans(db, locationId);
  const offered = plans.filter((p) => p.terms);
  const planChoices: Choice[] = offered.map((p) => ({ value: String(p.id), label: planLabel(p) }));
  if (chosenPlanId !== null && !offered.some((p) => p.id === chosenPlanId)) {
    const listed = plans.find((p) => p.id === chosenPlanId);
    planChoices.unshift({ value: String(chosenPlanId), label: listed ? `${listed.name} (plan ${chosenPlanId}): not offered now` : `Plan ${chosenPlanId} (as chosen${problem ? "" : "; SiteLink no longer lists it"})` });
  }
  const kinds = software === "sitelink" ? ["none", "plan"] : ["none", "amount", "percent"];
  return {
    software,
    choices: {
      promotionKind: kinds.map((k) => ({ value: k, label: KIND_LABELS[k]! })),
      ...(software === "sitelink" ? { promotionPlanId: planChoices } : {}),
    } as Record<string, Choice[]>,
    plansNotOffered: plans.filter((p) => !p.terms).map((p) => ({ id: p.id, name: p.name, reason: p.notOffered ?? "" })),
    plansProblem: problem,
  };
}

/**
 * The promotion form's edit target. Its values are completed on the server: a SiteLink plan's words
 * as SiteLink lists it now (`promotionPlanWording`, what the office is told about if the plan changes),
 * the local kinds' fields emptied; a local location's kind must be an amount or a percentage, a
 * SiteLink location's a plan SiteLink lists now and whose terms can be worded.
 */
export async function promotionTarget(db: Database, locationId: number): Promise<EditTarget> {
  const { software, plans, unreachable } = await sitePlans(db, locationId);
  const planOf = (values: Row) => plans.find((p) => p.id === values.promotionPlanId);
  return {
    entity: "unitType",
    fields: unitTypePromotionFields(software),
    normalise(values: Row): Row {
      const kind = String(values.promotionKind ?? "none");
      if (kind === "none") return { ...values, promotionPlanId: null, promotionPlanWording: "" };
      if (kind === "plan") {
        const terms = planOf(values)?.terms ?? null;
        return { ...values, promotionAmount: 0, promotionPercent: 0, promotionMonths: 1, promotionPlanWording: terms ? promotionWording(terms) : "" };
      }
      return { ...values, promotionPlanId: null, promotionPlanWording: "" };
    },
    async verify(values: Row): Promise<FieldErrors> {
      const kind = String(values.promotionKind ?? "none");
      if (kind === "none") return {};
      if (software === "sitelink" && kind !== "plan") return { promotionKind: "At a SiteLink location a promotion is one of the site's discount plans: choose a plan." };
      if (software === "local" && kind === "plan") return { promotionKind: "Discount plans are SiteLink's: here choose an amount or a percentage." };
      if (kind === "plan") {
        if (unreachable) return { promotionPlanId: `${UNREACHABLE} Nothing was saved; try again in a moment.` };
        const plan = planOf(values);
        if (!plan) return { promotionPlanId: "Choose one of the site's discount plans." };
        if (!plan.terms) return { promotionPlanId: `This plan is not offered: ${plan.notOffered ?? "what it gives cannot be worded for certain"}. Choose another.` };
      }
      return {};
    },
  };
}

/** The wording the promotion of these (effective) values shows, or "" for none; a plan's from the plan as last read. */
export function promotionPreview(values: Row, plan: PlanReading | null): string {
  const kind = String(values.promotionKind ?? "none");
  if (kind === "plan") return plan?.listed && plan.terms ? promotionWording(plan.terms) : "";
  const terms = promotionTerms({
    promotionKind: kind,
    promotionAmount: Number(values.promotionAmount ?? 0),
    promotionPercent: Number(values.promotionPercent ?? 0),
    promotionMonths: Number(values.promotionMonths ?? 1),
  });
  return terms ? promotionWording(terms) : "";
}

/** The plan a promotion names as SiteLink last listed it (the mirror), or null. */
export async function planAsRead(db: Database, locationId: number, planId: unknown): Promise<PlanReading | null> {
  if (typeof planId !== "number") return null;
  return (await discountPlansAsRead(db, [locationId])).get(locationId)?.get(planId) ?? null;
}

interface PromotionAttention {
  unitTypeId: number;
  locationId: number;
  /** "10×10 Drive-Up". */
  label: string;
  message: string;
}

/**
 * The published SiteLink promotions of these locations that need the office (decision 673): their plan
 * is no longer listed by SiteLink, no longer worded for certain, or gives something else than when the
 * promotion was saved; promotions past their end date are left out. One list for the console home's
 * number, the location's content page and the unit type's page. Reads our tables only (the mirror is
 * kept by the sync, the console and each quote).
 */
export async function promotionsNeedingAttention(db: Database, locationIds: readonly number[], now: Date): Promise<PromotionAttention[]> {
  if (!locationIds.length) return [];
  const rows = await db
    .select({
      id: unitTypes.id,
      locationId: unitTypes.locationId,
      name: unitTypes.name,
      width: unitTypes.width,
      length: unitTypes.length,
      planId: unitTypes.promotionPlanId,
      planWording: unitTypes.promotionPlanWording,
      endsOn: unitTypes.promotionEndsOn,
      timeZone: locations.timeZone,
    })
    .from(unitTypes)
    .innerJoin(locations, eq(locations.id, unitTypes.locationId))
    .where(and(inArray(unitTypes.locationId, [...locationIds]), eq(unitTypes.promotionKind, "plan"), isNotNull(unitTypes.promotionPlanId)))
    .orderBy(unitTypes.locationId, unitTypes.id);
  if (!rows.length) return [];
  const siteLinkLocations = new Set<number>();
  for (const l of new Set(rows.map((r) => r.locationId))) if ((await promotionSoftwareOf(db, l)) === "sitelink") siteLinkLocations.add(l);
  const plans = await discountPlansAsRead(db, [...siteLinkLocations]);
  const out: PromotionAttention[] = [];
  for (const r of rows) {
    if (!siteLinkLocations.has(r.locationId)) continue;
    if (r.endsOn && r.endsOn < localDate(now, r.timeZone.timeZoneId)) continue;
    const read = plans.get(r.locationId);
    const message = read
      ? planAttention({ promotionPlanId: r.planId!, promotionPlanWording: r.planWording }, read.get(r.planId!) ?? null)
      : "SiteLink's discount plans have not been read for this location yet: the promotion is not shown until they are (the sync reads them within 15 minutes).";
    if (message) out.push({ unitTypeId: r.id, locationId: r.locationId, label: `${r.width}×${r.length} ${r.name}`, message });
  }
  return out;
}
