/**
 * The unit type page's promotion form (issue 40, decisions 600–603): what the promotion gives, its
 * dates, and at a SiteLink location the site's own discount plans to choose from (read from SiteLink
 * when the page is drawn and again when the form is saved). Edits go into the draft like any other.
 */
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations } from "~/db/schema";
import { promotionWording, promotionTerms, type PromotionTerms } from "~/domain/rental/promotion";
import type { FieldErrors } from "~/domain/content/editable";
import { unitTypePromotionFields } from "~/domain/content/form";
import { storageFor } from "~/storage-software/index.server";
import type { DiscountPlanOption } from "~/storage-software/port";
import { logger } from "~/platform/logger.server";
import type { EditTarget } from "./editor.server";

type Row = Record<string, unknown>;

interface PromotionPlanChoice {
  id: number;
  name: string;
  /** What it gives in the promotion's words, or null when it gives nothing we can show (not choosable). */
  wording: string | null;
}

/** The terms a SiteLink plan gives: a percentage or a fixed amount off the first month. */
function planTerms(plan: DiscountPlanOption): PromotionTerms | null {
  if (plan.percent > 0) return { kind: "percent", percent: plan.percent, months: 1 };
  if (plan.amount > 0) return { kind: "amount", amount: plan.amount, months: 1 };
  return null;
}

async function locationOf(db: Database, locationId: number) {
  const [loc] = await db
    .select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(locations)
    .where(eq(locations.id, locationId));
  return loc ?? null;
}

/**
 * The location's software and its discount plans as SiteLink lists them now. A SiteLink that cannot be
 * reached, or answers no plan (evidence §3: LSETUP's empty answer), gives none and says why.
 */
async function sitePlans(db: Database, locationId: number): Promise<{ software: "local" | "sitelink"; plans: DiscountPlanOption[]; problem: string | null }> {
  const loc = await locationOf(db, locationId);
  if (!loc || loc.software !== "sitelink") return { software: "local", plans: [], problem: null };
  try {
    const plans = await storageFor(db, loc).listDiscountPlans();
    return { software: "sitelink", plans, problem: plans.length ? null : "SiteLink lists no discount plan for this site: add one in SiteLink, then reload this page." };
  } catch (error) {
    logger.warn({ err: error, locationId }, "SiteLink's discount plans could not be read");
    return { software: "sitelink", plans: [], problem: "SiteLink could not be reached to list the site's discount plans. Try again in a moment." };
  }
}

/** The page's choices: the software and each plan with what it gives in the promotion's words. */
export async function promotionChoices(db: Database, locationId: number): Promise<{ software: "local" | "sitelink"; plans: PromotionPlanChoice[]; plansProblem: string | null }> {
  const { software, plans, problem } = await sitePlans(db, locationId);
  return {
    software,
    plans: plans.map((p) => {
      const terms = planTerms(p);
      return { id: p.id, name: p.name, wording: terms ? promotionWording(terms) : null };
    }),
    plansProblem: problem,
  };
}

/**
 * The promotion form's edit target. Its values are completed on the server: a SiteLink plan's terms
 * as SiteLink lists them now (so the text shown is the plan's), one month; a local location's kind
 * must be an amount or a percentage, a SiteLink location's a plan; the typed display text is cleared
 * (the text shown comes from what the promotion gives).
 */
export async function promotionTarget(db: Database, locationId: number): Promise<EditTarget> {
  const { software, plans } = await sitePlans(db, locationId);
  return {
    entity: "unitType",
    fields: unitTypePromotionFields(software),
    normalise(values: Row): Row {
      const kind = String(values.promotionKind ?? "none");
      if (kind === "none") return { ...values, promotionPlanId: null };
      const out: Row = { ...values, promotion: "" };
      if (kind === "plan") {
        const plan = plans.find((p) => p.id === values.promotionPlanId);
        const terms = plan ? planTerms(plan) : null;
        out.promotionMonths = 1;
        out.promotionPercent = terms?.kind === "percent" ? terms.percent : 0;
        out.promotionAmount = terms?.kind === "amount" ? terms.amount : 0;
      } else {
        out.promotionPlanId = null;
      }
      return out;
    },
    async verify(values: Row): Promise<FieldErrors> {
      const kind = String(values.promotionKind ?? "none");
      if (kind === "none") return {};
      if (software === "sitelink" && kind !== "plan") return { promotionKind: "At a SiteLink location a promotion is one of the site's discount plans: choose \u201cplan\u201d." };
      if (software === "local" && kind === "plan") return { promotionKind: "Discount plans are SiteLink's: here choose an amount or a percentage." };
      if (kind === "plan") {
        const plan = plans.find((p) => p.id === values.promotionPlanId);
        if (!plan) return { promotionPlanId: "Choose one of the site's discount plans listed above." };
        if (!planTerms(plan)) return { promotionPlanId: "This plan gives no amount or percentage we can show: choose another." };
      }
      return {};
    },
  };
}

/** The wording the promotion of these (effective) values shows, or "" for none. */
export function promotionPreview(values: Row): string {
  const terms = promotionTerms({
    promotionKind: String(values.promotionKind ?? "none"),
    promotionAmount: Number(values.promotionAmount ?? 0),
    promotionPercent: Number(values.promotionPercent ?? 0),
    promotionMonths: Number(values.promotionMonths ?? 1),
  });
  return terms ? promotionWording(terms) : "";
}
