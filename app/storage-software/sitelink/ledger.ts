/**
 * The ledger of a SiteLink lease as SiteLink holds it (issue 11, decision 169): every charge
 * (ChargesAllByLedgerID: move-in lines, monthly rent and protection posted by SiteLink's billing,
 * fees the office posts, with their tax) and every payment (PaymentsByLedgerID, table PmtHistory:
 * online, autopay and office payments), mapped into the port's LedgerEntry so both adapters show the
 * same shape. Amounts are SiteLink's decimals converted to cents with string arithmetic; dates are
 * SiteLink's wall-clock dates of the site (its time zone), the first ten characters, never shifted.
 *
 * A payment line links to our receipt (paymentId) only when we took that payment (our payment
 * record of this lease): matched by SiteLink's receipt number when we kept it, else by amount and
 * date. Payments made at the office or by SiteLink's autopay have no receipt page here.
 */
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { ledgerEntries, payments } from "~/db/schema";
import type { LedgerEntry } from "../port";
import { rows } from "./calls";
import { type Row } from "./dataset";
import { type SiteLinkCall } from "./client";
import { okRead } from "./errors";
import { dateOf, decimalToCents } from "./quote";

interface Line extends Omit<LedgerEntry, "runningBalance"> {
  order: number;
  sortKey: number;
}

/** Our approved payments on this lease (what a receipt page can show), oldest first. */
async function ourPayments(db: Database, leaseId: number) {
  return db
    .select({ id: payments.id, amount: ledgerEntries.amount, entryDate: ledgerEntries.entryDate, authReference: payments.authReference })
    .from(ledgerEntries)
    .innerJoin(payments, eq(payments.id, ledgerEntries.paymentId))
    .where(and(eq(ledgerEntries.leaseId, leaseId), eq(ledgerEntries.kind, "payment"), eq(payments.status, "approved")))
    .orderBy(asc(ledgerEntries.entryDate), asc(ledgerEntries.id));
}

function chargeLine(r: Row): Line {
  const amount = decimalToCents(r.dcAmt ?? r.dcPrice);
  const tax = decimalToCents(r.dcTax1) + decimalToCents(r.dcTax2);
  const description = r.sChgDesc?.trim() || r.sChgCategory?.trim() || "Charge";
  const entryDate = dateOf(r.dChgStrt) ?? "";
  const id = `charge-${r.ChargeID ?? ""}`;
  // A negative charge is a credit the office gave (a concession, an adjustment).
  if (amount + tax < 0) return { id, kind: "credit", description, amount: -(amount + tax), tax: 0, entryDate, paymentId: null, order: 0, sortKey: Number(r.ChargeID ?? 0) };
  return { id, kind: "charge", description, amount, tax, entryDate, paymentId: null, order: 0, sortKey: Number(r.ChargeID ?? 0) };
}

function paymentLine(r: Row): Line {
  const amount = decimalToCents(r.Payment);
  const description = r.Description?.trim() || "Payment";
  const entryDate = dateOf(r.dPmt) ?? "";
  const id = `payment-${r.Receipt ?? ""}`;
  // A negative payment is money given back (a refund): it raises the balance like a charge.
  if (amount < 0) return { id, kind: "charge", description, amount: -amount, tax: 0, entryDate, paymentId: null, order: 1, sortKey: Number(r.Receipt ?? 0) };
  return { id, kind: "payment", description, amount, tax: 0, entryDate, paymentId: null, order: 1, sortKey: Number(r.Receipt ?? 0) };
}

/**
 * SiteLink's charges and payments of one ledger, by date (a day's charges before its payments, then
 * in SiteLink's own order), with the running balance. Throws SoftwareUnreachableError when SiteLink
 * cannot answer (never our own lines instead: they would not be SiteLink's ledger).
 */
export async function siteLinkLedger(db: Database, call: SiteLinkCall, lease: { leaseId: number; ledgerId: string }): Promise<LedgerEntry[]> {
  const [charges, paid] = await Promise.all([
    call("ChargesAllByLedgerID", { ledgerId: lease.ledgerId }, { write: false }).then((a) => rows(okRead(a, "ChargesAllByLedgerID"), "Table")),
    call("PaymentsByLedgerID", { sLedgerID: lease.ledgerId }, { write: false }).then((a) => rows(okRead(a, "PaymentsByLedgerID"), "PmtHistory")),
  ]);
  const lines = [...charges.map(chargeLine), ...paid.map(paymentLine)].sort(
    (a, b) => a.entryDate.localeCompare(b.entryDate) || a.order - b.order || a.sortKey - b.sortKey,
  );

  // Our receipts: SiteLink's receipt number first, then the same amount on the same day, then the same amount.
  const ours = await ourPayments(db, lease.leaseId);
  const unmatched = new Set(ours.map((p) => p.id));
  const take = (line: Line, pick: (p: (typeof ours)[number]) => boolean) => {
    const found = ours.find((p) => unmatched.has(p.id) && pick(p));
    if (!found) return false;
    unmatched.delete(found.id);
    line.paymentId = String(found.id);
    return true;
  };
  const paymentLines = lines.filter((l) => l.kind === "payment");
  const pending = paymentLines.filter((l) => !take(l, (p) => p.authReference === `SiteLink receipt ${l.id.slice("payment-".length)}`));
  const left = pending.filter((l) => !take(l, (p) => p.amount === l.amount && p.entryDate === l.entryDate));
  for (const l of left) take(l, (p) => p.amount === l.amount);

  let balance = 0;
  return lines.map(({ order: _order, sortKey: _sortKey, ...l }) => {
    balance += l.kind === "charge" ? l.amount + l.tax : -l.amount;
    return { ...l, runningBalance: balance };
  });
}
