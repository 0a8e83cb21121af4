/**
 * The site's discount plans (issue 40, decisions 604, 672, 673): SiteLink's DiscountPlansRetrieve
 * (`ConcessionPlans`, evidence §3) read as what each plan gives, and the mirror the website words a
 * published promotion from.
 *
 * What a plan gives, from the columns the outside sources read (decision 672):
 * - `iAmtType` 0: an amount off (`dcFixedDiscount`); 1: a percentage off (`dcPCDiscount`); 2: a fixed
 *   rent (`dcChgAmt`) (ST's SiteLinkService, MC's transformer and API notes agree);
 * - `iInMonth`: the month of the rental it starts in, 1 the month moved in (ST: months before it are
 *   paid in full; MC: "in month N");
 * - `iExpirMonths`: for how many months (ST's `expireMonth`: the discount times that many months; LK's
 *   ECRI: the discount ends `iExpirMonths` after it started);
 * - `dcMaxAmountOff`: a cap on the discount (MC); `bPrepay`/`iPrePaidMonths`: months paid ahead first.
 *
 * Where the sources disagree, a plan whose meaning depends on the reading is not offered (listed with
 * the reason, never chosen), so what the website says is what SiteLink applies under every reading:
 * both a percentage and an amount (LK: the percentage wins; ST/MC: iAmtType decides, unless they
 * agree), `iInMonth` 0 (MC: every month; MC's route and LK: the first), `bNeverExpires` (LK's ECRI: the
 * discount never ends; LK's candidates: only the offer has no end date), rounding (`bRound`, MC
 * only), a fixed rent, prepay plans, a month or duration not given. Disabled, deleted or archived
 * plans, and plans outside their SiteLink dates, are not offered either.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { sitelinkDiscountPlans } from "~/db/schema";
import type { PlanReading, PromotionTerms } from "~/domain/rental/promotion";
import type { DiscountPlanOption } from "../port";
import type { SiteLinkCall } from "./client";
import { rowsOf, type Row } from "./dataset";
import { okRead } from "./errors";
import { decimalToNumber, intOrNull, isTrue, optionalCents } from "./money";

const dateOf = (v: string | undefined) => (v && /^\d{4}-\d{2}-\d{2}/.test(v.trim()) ? v.trim().slice(0, 10) : null);

/** One ConcessionPlans row as a plan we offer or not (with why); null for a row that is no plan. */
export function discountPlanOf(r: Row, today: string): DiscountPlanOption | null {
  const id = intOrNull(r.ConcessionID);
  if (id === null || id <= 0) return null;
  const name = (r.sPlanName ?? "").trim() || `Plan ${id}`;
  const plan = (terms: PromotionTerms | null, notOffered: string | null): DiscountPlanOption => ({ id, name, terms, notOffered });
  const no = (why: string) => plan(null, why);
  if (dateOf(r.dDisabled) || dateOf(r.dDeleted) || dateOf(r.dArchived)) return no("disabled in SiteLink");
  const starts = dateOf(r.dPlanStrt);
  const ends = dateOf(r.dPlanEnd);
  if (starts && starts > today) return no(`SiteLink offers it from ${starts}`);
  if (ends && ends < today && !isTrue(r.bNeverExpires)) return no(`SiteLink's offer ended on ${ends}`);
  if (isTrue(r.bPrepay)) return no(`it needs ${intOrNull(r.iPrePaidMonths) ?? "some"} months paid in advance at move-in`);
  if (isTrue(r.bNeverExpires)) return no("SiteLink marks it as never expiring, which the sources read two ways (for good, or only the offer)");
  const type = intOrNull(r.iAmtType);
  if (type === 2) return no("it sets a fixed rent rather than taking an amount or a percentage off");
  if (type !== null && type !== 0 && type !== 1) return no(`an unknown kind of discount (iAmtType ${type})`);
  let percent: number;
  let amount: number;
  let cap: number;
  try {
    percent = decimalToNumber(r.dcPCDiscount, 0);
    amount = optionalCents(r.dcFixedDiscount);
    cap = optionalCents(r.dcMaxAmountOff);
  } catch {
    return no("SiteLink's amounts could not be read");
  }
  if (percent > 0 && amount > 0) return no("both a percentage and an amount, which the sources apply differently");
  if (percent <= 0 && amount <= 0) return no("it gives no amount or percentage");
  if (type !== null && (type === 1) !== percent > 0) return no("its kind and its amounts disagree");
  if (isTrue(r.bRound) && decimalOrZero(r.dcRoundTo) > 0) return no("it rounds its discount, which no source shows for certain");
  const from = intOrNull(r.iInMonth);
  if (from === null) return no("SiteLink does not say from which month");
  if (from <= 0) return no("it starts in month 0, which the sources read two ways (every month, or the first)");
  const months = intOrNull(r.iExpirMonths);
  if (months === null || months <= 0) return no("SiteLink does not say for how many months");
  if (percent > 0) return plan({ kind: "percent", percent: Math.min(100, percent), months, fromMonth: from, ...(cap > 0 ? { maxAmount: cap } : {}) }, null);
  return plan({ kind: "amount", amount: cap > 0 ? Math.min(amount, cap) : amount, months, fromMonth: from }, null);
}

function decimalOrZero(v: string | undefined): number {
  try {
    return decimalToNumber(v, 0);
  } catch {
    return 0;
  }
}

/** The site's plans from a DiscountPlansRetrieve answer's ConcessionPlans rows, by ConcessionID. */
export function discountPlansOf(rows: Row[], today: string): DiscountPlanOption[] {
  return rows
    .map((r) => discountPlanOf(r, today))
    .filter((p): p is DiscountPlanOption => p !== null)
    .sort((a, b) => a.id - b.id);
}

const sameTerms = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Keeps the mirror as SiteLink listed the plans just now: each plan's name, terms and why not offered;
 * a plan SiteLink no longer lists marked so. Writes only what changed (a read that finds nothing new
 * sends no write, so it drops no page cache).
 */
async function mirrorDiscountPlans(db: Database, locationId: number, plans: DiscountPlanOption[], now: Date): Promise<void> {
  const stored = await db.select().from(sitelinkDiscountPlans).where(eq(sitelinkDiscountPlans.locationId, locationId));
  const byId = new Map(stored.map((r) => [r.concessionId, r]));
  const seen = new Set<number>();
  for (const p of plans) {
    seen.add(p.id);
    const row = byId.get(p.id);
    if (row && row.listed && row.name === p.name && row.notOffered === p.notOffered && sameTerms(row.terms, p.terms)) continue;
    const values = { name: p.name, terms: p.terms, notOffered: p.notOffered, listed: true, changedAt: now };
    await db
      .insert(sitelinkDiscountPlans)
      .values({ locationId, concessionId: p.id, ...values })
      .onConflictDoUpdate({ target: [sitelinkDiscountPlans.locationId, sitelinkDiscountPlans.concessionId], set: values });
  }
  const gone = stored.filter((r) => r.listed && !seen.has(r.concessionId)).map((r) => r.concessionId);
  if (gone.length) {
    await db
      .update(sitelinkDiscountPlans)
      .set({ listed: false, changedAt: now })
      .where(and(eq(sitelinkDiscountPlans.locationId, locationId), inArray(sitelinkDiscountPlans.concessionId, gone)));
  }
}

/**
 * The site's plans as SiteLink lists them now (`today`: the site's date, for the plans' own dates),
 * mirrored. Throws SoftwareUnreachableError when SiteLink cannot answer (the mirror is left as it was).
 */
export async function readDiscountPlans(deps: { db: Database; locationId: number; call: SiteLinkCall; now: Date }, today: string): Promise<DiscountPlanOption[]> {
  const answer = okRead(await deps.call("DiscountPlansRetrieve", {}), "DiscountPlansRetrieve");
  const plans = discountPlansOf(rowsOf(answer, "ConcessionPlans"), today);
  await mirrorDiscountPlans(deps.db, deps.locationId, plans, deps.now);
  return plans;
}

/** The plans of these locations as last read (the mirror), by location and ConcessionID. */
export async function discountPlansAsRead(db: Database, locationIds: readonly number[]): Promise<Map<number, Map<number, PlanReading>>> {
  const out = new Map<number, Map<number, PlanReading>>();
  if (!locationIds.length) return out;
  const rows = await db.select().from(sitelinkDiscountPlans).where(inArray(sitelinkDiscountPlans.locationId, [...locationIds]));
  for (const r of rows) {
    let plans = out.get(r.locationId);
    if (!plans) out.set(r.locationId, (plans = new Map()));
    plans.set(r.concessionId, { name: r.name, listed: r.listed, terms: r.terms ?? null, notOffered: r.notOffered });
  }
  return out;
}
