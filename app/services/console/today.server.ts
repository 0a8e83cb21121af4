/**
 * The console home's numbers (issue 39, decision 514): for each location the member may see, today's
 * new rentals, reservations, leads and abandoned rentals, the move-ins and move-outs due in the next
 * days, today's payments (their net) and declines, occupancy from the storage software, and what needs
 * attention (SiteLink write journal, mail that could not be sent (decision 645), promotions whose SiteLink plan changed or went (decision 673); the payment differences are listed on the home page itself). "Today" is each location's own calendar date.
 *
 * Every number is counted by the very function that lists its rows on the page it links to, with the
 * filter that link carries: the number and the list's count cannot drift apart. A number for all the
 * member's locations together is given only when they all share today's date (else one link could not
 * show "today" for each of them).
 */
import type { Database } from "~/db/client.server";
import { locationsWithSoftware } from "~/db/queries/location-software.server";
import { deskFilterQuery, type DeskFilter } from "~/domain/desk/filters";
import { addDaysIso, localDate } from "~/domain/shared/calendar";
import { storageFor } from "~/storage-software/index.server";
import { listDeskJournal } from "../desk/journal.server";
import { leadRecoverySummary, listDeskLeads } from "../desk/leads.server";
import { listDeskPayments, deskPaymentTotals } from "../desk/payments.server";
import { openDifferences } from "../desk/reconciliation.server";
import { listDeskRentals } from "../desk/rentals.server";
import { listDeskReservations } from "../desk/reservations.server";
import { deskLocations, type DeskLocation, type DeskViewer } from "../desk/scope.server";
import { listDeskTenants } from "../desk/tenants.server";
import { listUnsentMail } from "../mail/unsent.server";
import { promotionsNeedingAttention } from "../content/promotion.server";
import { can } from "~/domain/staff/roles";
import type { SignedInStaff } from "../staff/context.server";

/** How many days ahead "due" looks, today included as day 0 (the move-outs list of decision 500 uses the same). */
const DUE_WITHIN_DAYS = 7;

export interface HomeNumber {
  key: string;
  label: string;
  count: number;
  /** The filtered list showing exactly `count` rows. */
  href: string;
  /** Money beside the count (payments' net, declines' total), cents. */
  cents?: number;
}

interface Occupancy {
  /** Units not available to rent (rented, reserved, held or out of service), of `total`. */
  taken: number;
  total: number;
  available: number;
  /** When the counts come from a sync (SiteLink): that time; null when live (our own database). */
  asOf: Date | null;
}

export interface HomeSection {
  /** Null: every location of the member together. */
  locationId: number | null;
  title: string;
  timeZone: string;
  /** Today, in the section's location(s) calendar. */
  today: string;
  dueTo: string;
  numbers: HomeNumber[];
  attention: HomeNumber[];
  /** Null for the all-locations section; `{ error }` when the software could not be read. */
  occupancy: Occupancy | { error: string } | null;
  /**
   * Abandoned-rental recovery over the last seven days (issue 40, decision 519): reminders sent and the
   * rentals that came back and rented, as the linked leads list's own summary line counts them.
   */
  recovery: { remindersSent: number; recovered: number; href: string };
}

/** The days the recovery line looks back over, today included. */
const RECOVERY_DAYS = 7;

const pathWith = (path: string, filter: Omit<DeskFilter, "page">) => `${path}${deskFilterQuery({ ...filter, page: 1 })}`;

async function sectionNumbers(db: Database, staff: SignedInStaff, locationIds: number[], location: number | undefined, today: string, now: Date, sitelink: boolean) {
  const viewer: DeskViewer = { accountId: staff.accountId, scope: staff.scope };
  const dueTo = addDaysIso(today, DUE_WITHIN_DAYS);
  const day = { location, from: today, to: today };
  const q = (filter: Omit<DeskFilter, "page">) => ({ filter: { ...filter, page: 1 }, locationIds });
  const week = { location, from: addDaysIso(today, -(RECOVERY_DAYS - 1)), to: today, kind: "abandoned_rental" as const };
  const [rentals, reservations, leads, abandoned, moveIns, moveOuts, payments, declines, journal, abandonedWeek, unsentMail] = await Promise.all([
    listDeskRentals(db, viewer, q(day), now),
    listDeskReservations(db, viewer, q(day), now),
    listDeskLeads(db, viewer, q(day), now),
    listDeskLeads(db, viewer, q({ ...day, kind: "abandoned_rental" }), now),
    listDeskReservations(db, viewer, q({ location, status: "active", due_from: today, due_to: dueTo }), now),
    listDeskTenants(db, staff, { location, due_to: dueTo, page: 1 }, { now }),
    listDeskPayments(db, viewer, q(day)),
    listDeskPayments(db, viewer, q({ ...day, status: "declined" })),
    listDeskJournal(db, staff, { location, page: 1 }, now),
    listDeskLeads(db, viewer, q(week), now),
    listUnsentMail(db, viewer, { location, page: 1 }),
  ]);
  const recovery = { ...leadRecoverySummary(abandonedWeek), href: pathWith("/admin/leads", week) };
  const totals = await deskPaymentTotals(db, viewer, q(day), payments);
  const net = totals.reduce((sum, t) => sum + t.net, 0);
  const numbers: HomeNumber[] = [
    { key: "rentals", label: "New rentals today", count: rentals.length, href: pathWith("/admin/rentals", day) },
    { key: "reservations", label: "New reservations today", count: reservations.length, href: pathWith("/admin/reservations", day) },
    { key: "leads", label: "New leads today", count: leads.length, href: pathWith("/admin/leads", day) },
    { key: "abandoned", label: "Abandoned rentals today", count: abandoned.length, href: pathWith("/admin/leads", { ...day, kind: "abandoned_rental" }) },
    { key: "move-ins", label: `Move-ins due in the next ${DUE_WITHIN_DAYS} days`, count: moveIns.length, href: pathWith("/admin/reservations", { location, status: "active", due_from: today, due_to: dueTo }) },
    { key: "move-outs", label: `Move-outs due in the next ${DUE_WITHIN_DAYS} days`, count: moveOuts.ok ? moveOuts.total : 0, href: pathWith("/admin/tenants", { location, due_to: dueTo }) },
    { key: "payments", label: "Payments today", count: payments.length, cents: net, href: pathWith("/admin/payments", day) },
    { key: "declines", label: "Declined payments today", count: declines.length, cents: declines.reduce((s, p) => s + p.amount, 0), href: pathWith("/admin/payments", { ...day, status: "declined" }) },
  ];
  // Published promotions whose SiteLink plan changed, went or can no longer be worded (decision 673),
  // for those who can change them, per location: counted by the list the location's content page shows.
  const promotions = location !== undefined && can(staff.role, "content.edit") ? await promotionsNeedingAttention(db, [location], now) : [];
  const attention: HomeNumber[] = [
    ...(sitelink ? [{ key: "journal", label: "SiteLink writes waiting or failed", count: journal.ok ? journal.total : 0, href: pathWith("/admin/sitelink-journal", { location }) }] : []),
    ...(location !== undefined && can(staff.role, "content.edit")
      ? [{ key: "promotions", label: "Promotions whose SiteLink plan changed or went", count: promotions.length, href: `/admin/content/locations/${location}#promotions-attention-list` }]
      : []),
    // Counted by the list it links to, with the same location (decision 645).
    { key: "unsent-mail", label: "Mail that could not be sent", count: unsentMail.ok ? unsentMail.total : 0, href: pathWith("/admin/unsent-mail", { location }) },
  ];
  return { numbers, attention, dueTo, recovery };
}

async function occupancyOf(db: Database, location: { id: number; name: string; software: "sitelink" | "no_api"; status: "Live" | "Coming Soon" }, now: Date): Promise<Occupancy | { error: string }> {
  try {
    const storage = storageFor(db, location);
    const [types, asOf] = await Promise.all([storage.listUnitTypes({ now }), storage.availabilityAsOf()]);
    const total = types.reduce((s, t) => s + t.totalCount, 0);
    const available = types.reduce((s, t) => s + t.availableCount, 0);
    return { total, available, taken: total - available, asOf };
  } catch {
    return { error: "The units could not be read from the facility's system just now." };
  }
}

/**
 * The home's sections: every location together (when they share today's date and there are several),
 * then each location; and the open payment differences (listed on the home page itself).
 */
export async function homeNumbers(db: Database, staff: SignedInStaff, now: Date): Promise<{ sections: HomeSection[]; differences: Awaited<ReturnType<typeof openDifferences>> }> {
  const viewer: DeskViewer = { accountId: staff.accountId, scope: staff.scope };
  const mine: DeskLocation[] = await deskLocations(db, viewer);
  const differences = await openDifferences(db, viewer);
  if (!mine.length) return { sections: [], differences };
  const refs = new Map((await locationsWithSoftware(db, staff.accountId, mine.map((l) => l.id))).map((r) => [r.id, r]));
  const sections: HomeSection[] = [];
  const dates = new Set(mine.map((l) => localDate(now, l.timeZone)));
  if (mine.length > 1 && dates.size === 1) {
    const today = [...dates][0]!;
    const anySiteLink = [...refs.values()].some((r) => r.software === "sitelink");
    const n = await sectionNumbers(db, staff, mine.map((l) => l.id), undefined, today, now, anySiteLink);
    sections.push({
      locationId: null,
      title: "All your locations",
      timeZone: mine[0]!.timeZone,
      today,
      dueTo: n.dueTo,
      numbers: n.numbers,
      attention: n.attention,
      occupancy: null,
      recovery: n.recovery,
    });
  }
  for (const l of mine) {
    const today = localDate(now, l.timeZone);
    const ref = refs.get(l.id);
    const [n, occupancy] = await Promise.all([sectionNumbers(db, staff, [l.id], l.id, today, now, ref?.software === "sitelink"), ref ? occupancyOf(db, ref, now) : Promise.resolve(null)]);
    sections.push({
      locationId: l.id,
      title: l.name,
      timeZone: l.timeZone,
      today,
      dueTo: n.dueTo,
      numbers: n.numbers,
      attention: n.attention,
      occupancy,
      recovery: n.recovery,
    });
  }
  return { sections, differences };
}
