/**
 * Reconciliation of a location's day (issue 35, decision 440): the card processor's own list of
 * charges and refunds set against our payments, and every difference with what the office should do,
 * in its words. Pure: the service reads both sides and stores what this finds.
 */
import { formatCents } from "../shared/money";

export interface ListedCharge {
  /** The processor's payment id (our payments' `authReference`). */
  id: string;
  key: string | null;
  amount: number;
  refunded: number;
  created: Date;
  card: string;
}

interface ListedRefund {
  id: string;
  chargeId: string;
  amount: number;
  created: Date;
}

/** One of our payments, wherever it is (matching needs the whole account's, to skip other locations'). */
export interface OurPayment {
  id: number;
  locationId: number;
  /** The payment's day: its ledger line's date, else (declined) the day it was tried. */
  day: string;
  /** The day its refund was posted, when refunded. */
  refundDay: string | null;
  /** Each refund (day and cents) and the cents refunded in all, when known (decision 509: refunds may be partial). */
  refunds?: ReadonlyArray<{ day: string; amount: number }>;
  refunded?: number;
  status: "approved" | "declined" | "refunded";
  amount: number;
  reference: string | null;
  key: string;
  tenant: string;
  card: string;
}

export type DifferenceKind = "not_recorded" | "unknown_to_processor" | "amount_differs";

interface FoundDifference {
  kind: DifferenceKind;
  /** Null: no payment of ours names the money, so no location (owners see it). */
  locationId: number | null;
  reference: string;
  processorAmount: number | null;
  recordedAmount: number | null;
  paymentId: number | null;
  detail: string;
}

export interface DayTotals {
  charged: number;
  refunded: number;
  net: number;
  count: number;
}

interface DayReconciliation {
  processor: DayTotals;
  recorded: DayTotals;
  differences: FoundDifference[];
  /** The processor's charges of the range that were looked at (what a later check may clear). */
  seen: string[];
}

/** The key a declined move-in attempt is kept under (decision 412): the charge's key with `:declined`. */
const DECLINED_SUFFIX = ":declined";

function matchCharge(p: OurPayment, charges: readonly ListedCharge[]): ListedCharge | undefined {
  return (
    (p.reference ? charges.find((c) => c.id === p.reference) : undefined) ??
    charges.find((c) => c.key !== null && (c.key === p.key || `${c.key}${DECLINED_SUFFIX}` === p.key))
  );
}

function matchPayment(c: ListedCharge, ours: readonly OurPayment[]): OurPayment | undefined {
  const byReference = ours.find((p) => p.reference === c.id && p.status !== "declined");
  if (byReference) return byReference;
  if (c.key === null) return undefined;
  return ours.find((p) => p.key === c.key) ?? ours.find((p) => p.key === `${c.key}${DECLINED_SUFFIX}`);
}

/**
 * The day `day` of location `locationId`, whose hours are `[from, to)`. `charges` and `refunds`: the
 * processor's, listed over a wider range (a day either side), so that a payment recorded just across
 * midnight still finds its charge; `ours`: the account's payments over the same wider range.
 */
export function reconcileDay(input: {
  locationId: number;
  day: string;
  from: Date;
  to: Date;
  charges: readonly ListedCharge[];
  refunds: readonly ListedRefund[];
  ours: readonly OurPayment[];
}): DayReconciliation {
  const within = (at: Date) => at >= input.from && at < input.to;
  const here = input.ours.filter((p) => p.locationId === input.locationId);
  const processor: DayTotals = { charged: 0, refunded: 0, net: 0, count: 0 };
  const recorded: DayTotals = { charged: 0, refunded: 0, net: 0, count: 0 };
  const differences: FoundDifference[] = [];
  const seen: string[] = [];
  const chargeOwner = new Map<string, OurPayment | undefined>();
  for (const c of input.charges) chargeOwner.set(c.id, matchPayment(c, input.ours));

  for (const c of input.charges) {
    if (!within(c.created)) continue;
    seen.push(c.id);
    const owner = chargeOwner.get(c.id);
    const kept = c.amount - c.refunded;
    if (owner && owner.locationId !== input.locationId) continue;
    if (!owner) {
      if (kept > 0) {
        differences.push({
          kind: "not_recorded",
          locationId: null,
          reference: c.id,
          processorAmount: kept,
          recordedAmount: null,
          paymentId: null,
          detail: `${formatCents(kept)} taken${c.card ? ` on ${c.card}` : ""}; no payment of ours carries it.`,
        });
      }
      continue;
    }
    processor.charged += c.amount;
    processor.count += 1;
    if (owner.status === "declined" && kept > 0) {
      differences.push({
        kind: "not_recorded",
        locationId: input.locationId,
        reference: c.id,
        processorAmount: kept,
        recordedAmount: 0,
        paymentId: owner.id,
        detail: `${formatCents(kept)} taken from ${owner.tenant || "a visitor"}${c.card ? ` on ${c.card}` : ""}; we recorded this payment as declined.`,
      });
    }
  }
  for (const r of input.refunds) {
    if (!within(r.created)) continue;
    const charge = input.charges.find((c) => c.id === r.chargeId);
    const owner = charge ? chargeOwner.get(charge.id) : undefined;
    if (!owner || owner.locationId !== input.locationId) continue;
    processor.refunded += r.amount;
  }
  processor.net = processor.charged - processor.refunded;

  for (const p of here) {
    if (p.status === "declined") continue;
    if (p.day === input.day) {
      recorded.charged += p.amount;
      recorded.count += 1;
    }
    const refunds = p.refunds ?? (p.status === "refunded" && p.refundDay ? [{ day: p.refundDay, amount: p.amount }] : []);
    for (const r of refunds) if (r.day === input.day) recorded.refunded += r.amount;
    if (p.day !== input.day) continue;
    const keptHere = p.amount - (p.refunded ?? (p.status === "refunded" ? p.amount : 0));
    const charge = matchCharge(p, input.charges);
    if (!charge) {
      differences.push({
        kind: "unknown_to_processor",
        locationId: input.locationId,
        reference: `payment:${p.id}`,
        processorAmount: null,
        recordedAmount: keptHere,
        paymentId: p.id,
        detail: `${formatCents(p.amount)} from ${p.tenant || "a tenant"}${p.card ? ` (${p.card})` : ""}; the processor has no such charge.`,
      });
      continue;
    }
    const keptThere = charge.amount - charge.refunded;
    if (keptThere !== keptHere) {
      differences.push({
        kind: "amount_differs",
        locationId: input.locationId,
        reference: charge.id,
        processorAmount: keptThere,
        recordedAmount: keptHere,
        paymentId: p.id,
        detail: `${p.tenant || "A tenant"}${p.card ? ` (${p.card})` : ""}: the processor kept ${formatCents(keptThere)}, we recorded ${formatCents(keptHere)}.`,
      });
    }
  }
  recorded.net = recorded.charged - recorded.refunded;
  return { processor, recorded, differences, seen };
}

/** What the office should do about a difference, in its words. */
export function whatToDo(d: { kind: DifferenceKind; locationId: number | null; recordedAmount: number | null }): string {
  if (d.kind === "not_recorded" && d.locationId === null) {
    return "Money came in that no tenant's ledger shows. Look the payment up in the card processor's dashboard by its id to see whose card it was. If it is a tenant's payment, post it to their ledger; if nobody owes it, refund it there. Then mark this resolved and say what you did.";
  }
  if (d.kind === "not_recorded") {
    return "The card was charged although our records say it was declined, so the tenant's balance does not show the money. Refund it in the card processor's dashboard, or post it as a payment on the tenant's ledger if they meant to pay. Then mark this resolved and say what you did.";
  }
  if (d.kind === "unknown_to_processor") {
    return "We recorded a payment the card processor never took: no money came in for it. Search the processor's dashboard for it; if it is not there, reverse it on the tenant's ledger and ask them to pay again. Then mark this resolved and say what you did.";
  }
  return "The card processor kept a different amount than we recorded (often a refund made in the dashboard only, or a partial refund). Compare the payment in the dashboard with the tenant's ledger and correct the one that is wrong. Then mark this resolved and say what you did.";
}

export const DIFFERENCE_LABELS: Record<DifferenceKind, string> = {
  not_recorded: "Money at the processor, no payment here",
  unknown_to_processor: "Payment here, the processor does not know it",
  amount_differs: "Amounts differ",
};
