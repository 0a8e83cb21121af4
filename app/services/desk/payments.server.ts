import { and, desc, eq, or, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, ledgerEntries, locations, payments, tenants, units } from "~/db/schema";
import { dayTotals, DESK_PAYMENT_STATUS_LABELS, type DayTotal, type DeskPaymentStatus } from "~/domain/desk/lists";
import type { DeskFilter } from "~/domain/desk/filters";
import { formatCents } from "~/domain/shared/money";
import type { CsvColumn } from "../web/csv.server";
import { dayBetween, inLocations, localDay, matchesSearch, type DeskViewer } from "./scope.server";
import { readRefunds, refundedWithin, refundsOfPayment, type RefundOfPayment } from "./refund-lines.server";

/**
 * The desk's payments (issue 23, decision 256): approved, declined and refunded card payments, by
 * location and day, with each day's totals beside the ledger's. An approved payment's day is its
 * ledger line's date (so the totals are the ledger's by construction, and `ledgerDayTotals` checks
 * it); a declined attempt has no ledger line and is dated by when it was tried, in the location's
 * calendar. A payment's location is its lease's, or (a declined move-in, no lease yet) the one
 * recorded with it.
 */
interface DeskPaymentRow {
  id: number;
  day: string;
  /** When it was tried (ISO). */
  at: string;
  locationId: number;
  location: string;
  /** The tenant's page (where a payment is refunded), when the payment has a tenant. */
  tenantId: number | null;
  tenant: string;
  email: string;
  unit: string;
  source: string;
  card: string;
  amount: number;
  status: DeskPaymentStatus;
  /** The day of its latest refund (its reversing ledger line's date), else null. */
  refundDay: string | null;
  /** Cents given back so far, and each refund (decision 509: a payment may be refunded in parts). */
  refunded: number;
  refunds: RefundOfPayment[];
  reference: string;
  declineReason: string;
}


/** Each payment's true source, in the office's words (decision 508). */
const PAYMENT_SOURCE_LABELS: Record<string, string> = { move_in: "Online rental", portal: "Portal", prepay: "Prepayment", autopay: "Autopay", pay_link: "Pay link" };

const locationOf = sql<number>`coalesce(${payments.locationId}, ${leases.locationId})`;

/** The payments the filter shows, newest first (every page). */
export async function listDeskPayments(db: Database, viewer: DeskViewer, query: { filter: DeskFilter; locationIds: readonly number[] }): Promise<DeskPaymentRow[]> {
  const day = sql<string>`coalesce(${ledgerEntries.entryDate}::text, ${localDay(payments.createdAt)})`;
  const rows = await db
    .select({
      id: payments.id,
      day,
      at: payments.createdAt,
      locationId: locationOf,
      location: locations.name,
      tenantId: payments.tenantId,
      firstName: tenants.firstName,
      lastName: tenants.lastName,
      email: tenants.email,
      unit: units.name,
      source: payments.source,
      cardBrand: payments.cardBrand,
      cardLast4: payments.cardLast4,
      amount: payments.amount,
      status: payments.status,
      refunds: refundsOfPayment,
      refunded: payments.refundedAmount,
      reference: payments.authReference,
      declineReason: payments.declineReason,
    })
    .from(payments)
    .leftJoin(leases, eq(leases.id, payments.leaseId))
    .innerJoin(locations, eq(locations.id, locationOf))
    .leftJoin(tenants, eq(tenants.id, payments.tenantId))
    .leftJoin(units, eq(units.id, leases.unitId))
    .leftJoin(ledgerEntries, and(eq(ledgerEntries.paymentId, payments.id), eq(ledgerEntries.kind, "payment")))
    .where(
      and(
        eq(locations.accountId, viewer.accountId),
        inLocations(locationOf, query.locationIds),
        // "Refunded": any payment with money given back (in full or in part, decision 509).
        query.filter.status === "refunded" ? sql`${payments.refundedAmount} > 0` : query.filter.status ? sql`${payments.status} = ${query.filter.status}` : undefined,
        // A refunded payment is within the dates when it was taken or given back (a refund of it) within them.
        query.filter.from || query.filter.to ? or(dayBetween(day, query.filter), refundedWithin((d) => dayBetween(d, query.filter))) : undefined,
      ),
    )
    .orderBy(desc(day), desc(payments.createdAt), desc(payments.id));
  return rows
    .map((r) => ({
      refunds: readRefunds(r.refunds),
      id: r.id,
      day: r.day,
      at: new Date(r.at).toISOString(),
      locationId: Number(r.locationId),
      location: r.location,
      tenantId: r.tenantId,
      tenant: `${r.firstName ?? ""} ${r.lastName ?? ""}`.trim(),
      email: r.email ?? "",
      unit: r.unit ?? "",
      source: PAYMENT_SOURCE_LABELS[r.source] ?? r.source,
      card: `${r.cardBrand} ${r.cardLast4}`.trim(),
      amount: r.amount,
      status: r.status as DeskPaymentStatus,
      refundDay: readRefunds(r.refunds).at(-1)?.day ?? null,
      refunded: r.refunded,
      reference: r.reference ?? "",
      declineReason: r.declineReason ?? "",
    }))
    .filter((r) => matchesSearch(query.filter.q, r.tenant, r.email, r.unit, r.card, r.reference));
}

interface DeskDayTotal extends DayTotal {
  location: string;
  /** The ledger's payment lines that day at that location (payments less refunds), cents: equals `net`. */
  ledger: number;
}

/**
 * The ledger's payment lines per location and day (their own dates), for the locations and dates of
 * the filter: what the day's approved total must equal.
 */
async function ledgerDayTotals(db: Database, viewer: DeskViewer, query: { filter: DeskFilter; locationIds: readonly number[] }): Promise<Map<string, number>> {
  const day = sql<string>`${ledgerEntries.entryDate}::text`;
  const rows = await db
    .select({ locationId: leases.locationId, day, total: sql<string>`sum(${ledgerEntries.amount})` })
    .from(ledgerEntries)
    .innerJoin(leases, eq(leases.id, ledgerEntries.leaseId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(and(eq(locations.accountId, viewer.accountId), inLocations(leases.locationId, query.locationIds), eq(ledgerEntries.kind, "payment"), dayBetween(day, query.filter)))
    .groupBy(leases.locationId, ledgerEntries.entryDate);
  return new Map(rows.map((r) => [`${r.locationId}|${r.day}`, Number(r.total)]));
}

/** Each location's day in the rows, with its totals and the ledger's. */
export async function deskPaymentTotals(
  db: Database,
  viewer: DeskViewer,
  query: { filter: DeskFilter; locationIds: readonly number[] },
  rows: readonly DeskPaymentRow[],
): Promise<DeskDayTotal[]> {
  const ledger = await ledgerDayTotals(db, viewer, query);
  const names = new Map(rows.map((r) => [r.locationId, r.location]));
  return dayTotals(rows, query.filter).map((t) => ({ ...t, location: names.get(t.locationId) ?? "", ledger: ledger.get(`${t.locationId}|${t.day}`) ?? 0 }));
}

export const DESK_PAYMENT_CSV: CsvColumn<DeskPaymentRow>[] = [
  { header: "Day", value: (r) => r.day },
  { header: "Location", value: (r) => r.location },
  { header: "Tenant", value: (r) => r.tenant },
  { header: "E-mail", value: (r) => r.email },
  { header: "Unit", value: (r) => r.unit },
  { header: "Source", value: (r) => r.source },
  { header: "Card", value: (r) => r.card },
  { header: "Amount", value: (r) => formatCents(r.amount) },
  { header: "Amount (cents)", value: (r) => r.amount },
  { header: "Status", value: (r) => DESK_PAYMENT_STATUS_LABELS[r.status] },
  { header: "Refunded", value: (r) => (r.refunded ? formatCents(r.refunded) : "") },
  { header: "Refunded on", value: (r) => r.refundDay ?? "" },
  { header: "Reference", value: (r) => r.reference },
  { header: "Decline reason", value: (r) => r.declineReason },
];
