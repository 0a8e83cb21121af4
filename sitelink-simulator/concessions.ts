/**
 * The site's discount plans (ConcessionPlans) as SiteLink applies them (issue 40, decisions 604, 672):
 * an amount off (iAmtType 0, dcFixedDiscount), a percentage off (1, dcPCDiscount, half up) or a fixed
 * rent (2, dcChgAmt), capped by dcMaxAmountOff and rounded to dcRoundTo when bRound (MC), over the
 * months iInMonth .. iInMonth + iExpirMonths − 1 of the rental. Where the sources disagree the site's
 * readings decide (state.ts SiteReadings: planType, neverExpires, inMonthZero; planMonths is the
 * move-in's, operations/move-in.ts). The move-in keeps the plan on the ledger as it was, and the
 * billing run (ledger.ts) discounts the later months it covers.
 */
import { readingsOf, type ConcessionPlan, type SiteRecord } from "./state";
import { money4, rate4 } from "./values";
import type { Row } from "./wire";

/** iAmtType as SiteLink lists it: given, or 1 for a percentage and 0 for an amount. */
function amtTypeOf(c: ConcessionPlan): 0 | 1 | 2 {
  return c.amtType ?? (c.pcDiscount > 0 ? 1 : 0);
}

/** The months of the rental the plan discounts (1: the month moved in; `to` Infinity: for good), or null for none. */
function concessionMonths(site: SiteRecord, c: ConcessionPlan): { from: number; to: number } | null {
  const r = readingsOf(site);
  const inMonth = c.inMonth ?? 1;
  if (inMonth <= 0 && r.inMonthZero === "every") return { from: 1, to: Number.POSITIVE_INFINITY };
  const from = Math.max(1, inMonth);
  const to = c.neverExpires && r.neverExpires === "recurring" ? Number.POSITIVE_INFINITY : from + (c.expirMonths ?? 1) - 1;
  return to >= from ? { from, to } : null;
}

/** The plan's discount on a rent amount of month `month` (cents): 0 outside its months; never more than the amount. */
export function concessionDiscount(site: SiteRecord, c: ConcessionPlan, month: number, amount: number): number {
  const months = concessionMonths(site, c);
  if (!months || month < months.from || month > months.to) return 0;
  const pc = c.pcDiscount;
  const type = readingsOf(site).planType === "percentFirst" && pc > 0 ? 1 : amtTypeOf(c);
  let off = type === 1 ? Math.floor((amount * Math.round(pc * 100) + 5000) / 10000) : type === 0 ? (c.fixedDiscount ?? 0) : amount - (c.chgAmt ?? amount);
  if ((c.maxAmountOff ?? 0) > 0) off = Math.min(off, c.maxAmountOff!);
  if (c.round && (c.roundTo ?? 0) > 0) off = Math.round(off / c.roundTo!) * c.roundTo!;
  return Math.max(0, Math.min(amount, off));
}

/** Whether a move-in on `date` may name the plan: not disabled, within its SiteLink dates. */
export function concessionUsable(site: SiteRecord, c: ConcessionPlan, date: string): boolean {
  if (c.disabled) return false;
  if (c.planStart && date < c.planStart) return false;
  const endLifted = c.neverExpires && readingsOf(site).neverExpires === "offer";
  return !(c.planEnd && date > c.planEnd && !endLifted);
}

/** The plan's ConcessionPlans row (the columns LK's pipeline, ST and MC read); null columns left out, as SiteLink does. */
export function concessionRow(site: SiteRecord, c: ConcessionPlan, dt: (value: string | undefined) => string | null): Row {
  const row: Row = {
    ConcessionID: c.ConcessionID,
    SiteID: site.SiteID,
    sPlanName: c.sPlanName,
    sDescription: c.sPlanName,
    iShowOn: 0,
    iAvailableAt: 0,
    bForAllUnits: true,
    iAmtType: amtTypeOf(c),
    dcPCDiscount: rate4(c.pcDiscount),
    dcFixedDiscount: money4(c.fixedDiscount ?? 0),
    dcChgAmt: money4(c.chgAmt ?? 0),
    dcMaxAmountOff: money4(c.maxAmountOff ?? 0),
    iInMonth: c.inMonth ?? 1,
    iExpirMonths: c.expirMonths ?? 1,
    bNeverExpires: c.neverExpires ?? false,
    bPrepay: c.prepay ?? false,
    iPrePaidMonths: c.prePaidMonths ?? 0,
    bRound: c.round ?? false,
    dcRoundTo: money4(c.roundTo ?? 0),
  };
  const start = dt(c.planStart);
  const end = dt(c.planEnd);
  if (start) row.dPlanStrt = start;
  if (end) row.dPlanEnd = end;
  return row;
}
