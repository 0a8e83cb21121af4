/**
 * The back office's tenants (issue 23, decision 260): the list (search by name, e-mail, phone or
 * unit; filter by location; paged; CSV of exactly what the filter shows), a tenant's page (leases,
 * ledger, payments, autopay, the e-mail outbox, the portal sign-in lockout) and the desk's actions
 * on it (lift the lockout, resend the lease or a receipt e-mail).
 *
 * Scope (decision 245): a tenant is within a member's locations when one of their leases is (or, with
 * no lease, one of their reservations); otherwise the tenant does not exist for that member (null,
 * which the route answers 404). Only the leases, payments and ledgers at the member's locations are
 * shown. The lists read our own records of tenants, leases and payments (what both adapters keep,
 * app/storage-software/shared); balances, ledgers and receipts come through the storage port.
 *
 * Every action runs in one transaction with its audit row (recordAudit); a mail it sends is written
 * to the outbox in that transaction and sent after the commit.
 */
import { and, asc, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { emailOutbox, leases, locations, payments, rateLimitHits, reservations, savedCards, tenants, units, websites } from "~/db/schema";
import { DESK_PAGE_SIZE, type DeskFilter } from "~/domain/desk/filters";
import { likeAnywhere, lockoutView, refundAmountOf, outboxState, tenantSearch, tenantStatuses, tenantStatusText, type DeskTenantStatus, type LockoutView, type OutboxState } from "~/domain/desk/tenants";
import { formatDeskTime } from "~/domain/desk/time";
import { formatCents } from "~/domain/shared/money";
import { formatPhone } from "~/domain/shared/phone";
import { localDate } from "~/domain/shared/calendar";
import type { LedgerEntry } from "~/storage-software/port";
import { storageFor } from "~/storage-software/index.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";
import { recordAudit } from "../audit/events.server";
import { SIGNIN_LIMIT_PER_ACCOUNT, signInAccountKey, signInAccountKeySql } from "../portal/sign-in-limits.server";
import { mailCanBeSent, queueEmail, sendQueuedEmail } from "../mail/outbox.server";
import { leaseLinkLine, leaseLinkSecrets, LEASE_LINK_DAYS } from "../rental/lease-links.server";
import { sendPayLink, withDeskPayLink } from "../payments/pay-links.server";
import { receiptEmail } from "../payments/receipt-email.server";
import { publicOrigin } from "../site/origin.server";

/** The locations a member sees (the list's location filter offers only these), by name. */
export async function deskLocations(db: Database, staff: SignedInStaff): Promise<Array<{ id: number; name: string; timeZone: string }>> {
  const rows = await db
    .select({ id: locations.id, name: locations.name, timeZone: locations.timeZone })
    .from(locations)
    .where(and(eq(locations.accountId, staff.accountId), staff.scope.all ? undefined : staff.scope.locationIds.length ? inArray(locations.id, [...staff.scope.locationIds]) : sql`false`))
    .orderBy(asc(locations.name));
  return rows.map((r) => ({ id: r.id, name: r.name, timeZone: r.timeZone.timeZoneId }));
}

/** A tenant is at one of `locationIds` when a lease is there, or (no lease at all) a reservation is. */
function tenantAt(locationIds: readonly number[]): SQL {
  if (!locationIds.length) return sql`false`;
  const ids = sql.join(
    locationIds.map((id) => sql`${id}`),
    sql`, `,
  );
  return sql`(exists (select 1 from ${leases} where ${leases.tenantId} = ${tenants.id} and ${leases.locationId} in (${ids}))
    or (not exists (select 1 from ${leases} where ${leases.tenantId} = ${tenants.id})
      and exists (select 1 from ${reservations} where ${reservations.tenantId} = ${tenants.id} and ${reservations.locationId} in (${ids}))))`;
}

interface TenantListRow {
  id: number;
  name: string;
  email: string;
  phone: string;
  /** The tenant's units at the member's locations, e.g. "A12 (Lumberton)". */
  units: string;
  since: string;
  /** The latest move-in date of their leases at the member's locations (or the one chosen), YYYY-MM-DD. */
  movedIn: string | null;
  statuses: DeskTenantStatus[];
}

type TenantListResult = { ok: true; rows: TenantListRow[]; total: number } | { ok: false; field: "location"; message: string };

const idList = (ids: readonly number[]) =>
  sql.join(
    (ids.length ? ids : [0]).map((id) => sql`${id}`),
    sql`, `,
  );

/**
 * The facts the status filter and column read, as SQL over the tenant row (decision 340). `ids`: the
 * locations looked at (the one chosen, else the member's). Aliased by hand: inside a selected
 * expression Drizzle writes columns without their table.
 */
function tenantFacts(ids: readonly number[], now: Date) {
  const at = idList(ids);
  const today = sql`(timezone(lo.time_zone->>'timeZoneId', ${now.toISOString()}::timestamptz))::date`;
  return {
    leases: sql`(select count(*) from leases l where l.tenant_id = "tenants"."id" and l.location_id in (${at}))`,
    activeLeases: sql`(select count(*) from leases l where l.tenant_id = "tenants"."id" and l.location_id in (${at}) and l.status = 'active')`,
    movingOutLeases: sql`(select count(*) from leases l where l.tenant_id = "tenants"."id" and l.location_id in (${at}) and l.status = 'active' and l.move_out_date is not null)`,
    pastDue: sql`exists (select 1 from leases l join locations lo on lo.id = l.location_id
      where l.tenant_id = "tenants"."id" and l.location_id in (${at}) and l.status = 'active' and l.next_due_date < ${today})`,
    lockedOut: sql`exists (select 1 from rate_limit_hits h where h.key = ${signInAccountKeySql(sql`"tenants"."account_id"`, sql`"tenants"."email"`)}
      and h.count >= ${SIGNIN_LIMIT_PER_ACCOUNT} and h.reset_at > ${now.toISOString()}::timestamptz)`,
    movedIn: sql<string | null>`(select max(l.move_in_date)::text from leases l where l.tenant_id = "tenants"."id" and l.location_id in (${at}))`,
    /** An active lease at the locations with notice given for a move-out date within the range (issue 39, decision 514). */
    // With a start date, a lease already ended on a date in the range counts too (the reports' move-outs
    // of a past week, decision 611); with an end date only (the home's "due"), active leases only.
    moveOutBetween: (from?: string, to?: string) =>
      sql`exists (select 1 from leases l where l.tenant_id = "tenants"."id" and l.location_id in (${at}) and ${from ? sql`l.status in ('active', 'moved_out')` : sql`l.status = 'active'`} and l.move_out_date is not null
        ${from ? sql`and l.move_out_date >= ${from}::date` : sql``} ${to ? sql`and l.move_out_date <= ${to}::date` : sql``})`,
    movedInBetween: (from?: string, to?: string) =>
      sql`exists (select 1 from leases l where l.tenant_id = "tenants"."id" and l.location_id in (${at})
        ${from ? sql`and l.move_in_date >= ${from}::date` : sql``} ${to ? sql`and l.move_in_date <= ${to}::date` : sql``})`,
  };
}

function statusCondition(status: DeskTenantStatus, facts: ReturnType<typeof tenantFacts>): SQL {
  switch (status) {
    case "current":
      return sql`${facts.activeLeases} > ${facts.movingOutLeases}`;
    case "moving_out":
      return sql`${facts.movingOutLeases} > 0`;
    case "past_due":
      return facts.pastDue;
    case "moved_out":
      return sql`(${facts.leases} > 0 and ${facts.activeLeases} = 0)`;
    case "locked_out":
      return facts.lockedOut;
  }
}

function tenantListWhere(staff: SignedInStaff, locationIds: readonly number[], filter: DeskFilter, now: Date): SQL {
  const search = tenantSearch(filter.q);
  const pattern = search ? likeAnywhere(search.text) : null;
  const unitIds = idList(locationIds);
  const facts = tenantFacts(filter.location ? [filter.location] : locationIds, now);
  return and(
    eq(tenants.accountId, staff.accountId),
    filter.location ? tenantAt([filter.location]) : staff.scope.all ? undefined : tenantAt(locationIds),
    search
      ? sql`(lower(${tenants.firstName} || ' ' || ${tenants.lastName}) like ${pattern}
          or lower(${tenants.email}) like ${pattern}
          ${search.digits ? sql`or regexp_replace(${tenants.cellPhone}, '[^0-9]', '', 'g') like ${likeAnywhere(search.digits)}` : sql``}
          ${locationIds.length ? sql`or exists (select 1 from ${leases} join ${units} on ${units.id} = ${leases.unitId} where ${leases.tenantId} = ${tenants.id} and ${leases.locationId} in (${unitIds}) and lower(${units.name}) like ${pattern})` : sql``})`
      : undefined,
    filter.from || filter.to ? facts.movedInBetween(filter.from, filter.to) : undefined,
    filter.due_from || filter.due_to ? facts.moveOutBetween(filter.due_from, filter.due_to) : undefined,
    filter.status ? statusCondition(filter.status as DeskTenantStatus, facts) : undefined,
  )!;
}

/**
 * The member's tenants matching the filter (location, moved-in dates, status, search), by name, one
 * page (or every row matching, for the CSV: `all`). A location outside the member's is refused
 * beside the field; the route checks the status against DESK_TENANT_STATUSES (parseDeskFilter).
 */
export async function listDeskTenants(db: Database, staff: SignedInStaff, filter: DeskFilter, options: { all?: boolean; now: Date }): Promise<TenantListResult> {
  const mine = await deskLocations(db, staff);
  if (filter.location && !mine.some((l) => l.id === filter.location)) return { ok: false, field: "location", message: "Choose a location from the list." };
  const locationIds = mine.map((l) => l.id);
  const where = tenantListWhere(staff, locationIds, filter, options.now);
  const [total] = await db.select({ n: count() }).from(tenants).where(where);
  const ids = idList(locationIds);
  const facts = tenantFacts(filter.location ? [filter.location] : locationIds, options.now);
  const rows = await db
    .select({
      id: tenants.id,
      firstName: tenants.firstName,
      lastName: tenants.lastName,
      email: tenants.email,
      cellPhone: tenants.cellPhone,
      createdAt: tenants.createdAt,
      // Aliased by hand: inside a selected expression Drizzle writes columns without their table.
      units: sql<string | null>`(select string_agg(u.name || ' (' || lo.name || ')', ', ' order by u.name)
        from leases l join units u on u.id = l.unit_id join locations lo on lo.id = l.location_id
        where l.tenant_id = "tenants"."id" and l.status = 'active' and l.location_id in (${ids}))`,
      leases: sql<number>`${facts.leases}`.mapWith(Number),
      activeLeases: sql<number>`${facts.activeLeases}`.mapWith(Number),
      movingOutLeases: sql<number>`${facts.movingOutLeases}`.mapWith(Number),
      pastDue: sql<boolean>`${facts.pastDue}`,
      lockedOut: sql<boolean>`${facts.lockedOut}`,
      movedIn: facts.movedIn,
    })
    .from(tenants)
    .where(where)
    .orderBy(asc(sql`lower(${tenants.lastName})`), asc(sql`lower(${tenants.firstName})`), asc(tenants.id))
    .limit(options.all ? 10_000 : DESK_PAGE_SIZE)
    .offset(options.all ? 0 : (filter.page - 1) * DESK_PAGE_SIZE);
  const zone = mine[0]?.timeZone ?? "America/New_York";
  return {
    ok: true,
    total: total?.n ?? 0,
    rows: rows.map((r) => ({
      id: r.id,
      name: `${r.firstName} ${r.lastName}`.trim(),
      email: r.email,
      phone: formatPhone(r.cellPhone),
      units: r.units ?? "",
      since: formatDeskTime(r.createdAt, zone),
      movedIn: r.movedIn ?? null,
      statuses: tenantStatuses({ leases: r.leases, activeLeases: r.activeLeases, movingOutLeases: r.movingOutLeases, pastDue: Boolean(r.pastDue), lockedOut: Boolean(r.lockedOut) }),
    })),
  };
}

interface DeskLease {
  leaseId: number;
  locationId: number;
  locationName: string;
  timeZone: string;
  unitName: string;
  status: "active" | "moved_out";
  moveInDate: string;
  paidThroughDate: string;
  nextDueDate: string;
  moveOutDate: string | null;
  monthlyRate: number;
  insurancePremium: number;
  /** From the location's software (null when it could not be read just now). */
  balance: number | null;
  autopay: { enabled: boolean; card: string | null };
  ledger: LedgerEntry[] | null;
}

interface DeskPayment {
  id: number;
  leaseId: number | null;
  unitName: string | null;
  amount: number;
  status: "approved" | "declined" | "refunded";
  /** Cents given back so far (decision 509). */
  refunded: number;
  source: string;
  card: string;
  authReference: string | null;
  declineReason: string | null;
  at: string;
}

interface DeskOutboxMail {
  id: number;
  subject: string;
  state: OutboxState;
  at: string;
  sentAt: string | null;
  failedAt: string | null;
  attempts: number;
  /** Why the last attempt failed (SMTP's words, scrubbed when recorded). */
  error: string | null;
}

interface TenantDesk {
  tenant: { id: number; name: string; firstName: string; email: string; phone: string; address: string; since: string };
  leases: DeskLease[];
  /** The facility's software could not be read for some lease just now (balances and ledgers missing). */
  softwareUnreachable: boolean;
  payments: DeskPayment[];
  outbox: DeskOutboxMail[];
  lockout: LockoutView & { untilText: string | null };
  timeZone: string;
}

/** The tenant's row when within the member's locations (else null: 404), with the in-scope location ids. */
export async function tenantInScope(db: Database, staff: SignedInStaff, tenantId: number) {
  const mine = await deskLocations(db, staff);
  const [row] = await db
    .select()
    .from(tenants)
    .where(and(eq(tenants.id, tenantId), eq(tenants.accountId, staff.accountId), staff.scope.all ? undefined : tenantAt(mine.map((l) => l.id))));
  return row ? { tenant: row, locations: mine } : null;
}

const OUTBOX_SHOWN = 50;

/** A tenant's page, or null when the tenant is not within the member's locations (404). */
export async function getTenantDesk(db: Database, staff: SignedInStaff, tenantId: number, now: Date): Promise<TenantDesk | null> {
  const found = await tenantInScope(db, staff, tenantId);
  if (!found) return null;
  const { tenant, locations: mine } = found;
  const ids = mine.map((l) => l.id);
  const leaseRows = ids.length
    ? await db
        .select({ lease: leases, unitName: units.name, location: { id: locations.id, name: locations.name, software: locations.software, status: locations.status, timeZone: locations.timeZone } })
        .from(leases)
        .innerJoin(units, eq(units.id, leases.unitId))
        .innerJoin(locations, eq(locations.id, leases.locationId))
        .where(and(eq(leases.tenantId, tenant.id), inArray(leases.locationId, ids)))
        .orderBy(asc(leases.status), desc(leases.moveInDate), desc(leases.id))
    : [];
  const cards = await db.select().from(savedCards).where(eq(savedCards.tenantId, tenant.id));
  let softwareUnreachable = false;
  const deskLeases: DeskLease[] = [];
  for (const r of leaseRows) {
    const storage = storageFor(db, { id: r.location.id, name: r.location.name, software: r.location.software, status: r.location.status });
    const [live, ledger] = await Promise.all([
      storage.getTenantLease(String(tenant.id), String(r.lease.id)).catch(() => undefined),
      storage.getLedger(String(tenant.id), String(r.lease.id)).catch(() => undefined),
    ]);
    if (live === undefined || ledger === undefined) softwareUnreachable = true;
    const card = live?.autopay.card ?? cards.find((c) => c.id === r.lease.autopayCardId) ?? null;
    deskLeases.push({
      leaseId: r.lease.id,
      locationId: r.location.id,
      locationName: r.location.name,
      timeZone: r.location.timeZone.timeZoneId,
      unitName: r.unitName,
      status: r.lease.status,
      moveInDate: r.lease.moveInDate,
      paidThroughDate: live?.paidThroughDate ?? r.lease.paidThroughDate,
      nextDueDate: live?.nextDueDate ?? r.lease.nextDueDate,
      moveOutDate: live?.moveOutDate ?? r.lease.moveOutDate,
      monthlyRate: r.lease.monthlyRate,
      insurancePremium: r.lease.insurancePremium,
      balance: live ? live.balance : null,
      autopay: { enabled: live ? live.autopay.enabled : r.lease.autopayEnabled, card: card && (live ? live.autopay.enabled : r.lease.autopayEnabled) ? `${card.brand} ending ${card.last4}` : null },
      ledger: ledger ?? null,
    });
  }
  const zone = deskLeases[0]?.timeZone ?? mine[0]?.timeZone ?? "America/New_York";
  const leaseIds = deskLeases.map((l) => l.leaseId);
  const paymentRows = leaseIds.length
    ? await db
        .select()
        .from(payments)
        .where(and(eq(payments.tenantId, tenant.id), inArray(payments.leaseId, leaseIds)))
        .orderBy(desc(payments.createdAt), desc(payments.id))
        .limit(100)
    : [];
  const outbox = await db
    .select({
      id: emailOutbox.id,
      subject: emailOutbox.subject,
      createdAt: emailOutbox.createdAt,
      sentAt: emailOutbox.sentAt,
      failedAt: emailOutbox.failedAt,
      attempts: emailOutbox.attempts,
      error: emailOutbox.error,
    })
    .from(emailOutbox)
    .where(sql`lower(${emailOutbox.to}) = ${tenant.email.trim().toLowerCase()}`)
    .orderBy(desc(emailOutbox.createdAt), desc(emailOutbox.id))
    .limit(OUTBOX_SHOWN);
  const [hit] = await db.select().from(rateLimitHits).where(eq(rateLimitHits.key, signInAccountKey(tenant.accountId, tenant.email)));
  const lockout = lockoutView(hit ? { count: hit.count, resetAt: new Date(hit.resetAt) } : null, now, SIGNIN_LIMIT_PER_ACCOUNT);
  const zoneOfLease = (leaseId: number | null) => deskLeases.find((l) => l.leaseId === leaseId)?.timeZone ?? zone;
  return {
    tenant: {
      id: tenant.id,
      name: `${tenant.firstName} ${tenant.lastName}`.trim(),
      firstName: tenant.firstName,
      email: tenant.email,
      phone: formatPhone(tenant.cellPhone),
      address: [tenant.addr1, tenant.addr2, `${tenant.city}, ${tenant.region} ${tenant.postalCode}`].filter(Boolean).join(", "),
      since: formatDeskTime(tenant.createdAt, zone),
    },
    leases: deskLeases,
    softwareUnreachable,
    payments: paymentRows.map((p) => ({
      id: p.id,
      leaseId: p.leaseId,
      unitName: deskLeases.find((l) => l.leaseId === p.leaseId)?.unitName ?? null,
      amount: p.amount,
      status: p.status,
      refunded: p.refundedAmount,
      source: p.source,
      card: `${p.cardBrand} ending ${p.cardLast4}`,
      authReference: p.authReference,
      declineReason: p.declineReason,
      at: formatDeskTime(p.createdAt, zoneOfLease(p.leaseId)),
    })),
    outbox: outbox.map((m) => ({
      id: m.id,
      subject: m.subject,
      state: outboxState(m),
      at: formatDeskTime(m.createdAt, zone),
      sentAt: m.sentAt ? formatDeskTime(m.sentAt, zone) : null,
      failedAt: m.failedAt ? formatDeskTime(m.failedAt, zone) : null,
      attempts: m.attempts,
      error: m.error,
    })),
    lockout: { ...lockout, untilText: lockout.until ? formatDeskTime(lockout.until, zone) : null },
    timeZone: zone,
  };
}

/** `done`: which confirmation the page shows, when not the action's usual one. */
export type DeskActionOutcome = { ok: true; message: string; done?: string } | { ok: false; message: string; field?: string };

/**
 * Lifts the tenant's portal sign-in lockout (the failed sign-ins counted against the account, the
 * `signInAccountKey` window of auth.server.ts), with its audit row, in one transaction. Null: the
 * tenant is not within the member's locations (404).
 */
export async function liftTenantLockout(db: Database, staff: SignedInStaff, tenantId: number, now: Date): Promise<DeskActionOutcome | null> {
  const found = await tenantInScope(db, staff, tenantId);
  if (!found) return null;
  const { tenant } = found;
  const key = signInAccountKey(tenant.accountId, tenant.email);
  const locationId = await tenantLocation(db, tenant.id, found.locations.map((l) => l.id));
  return db.transaction(async (tx) => {
    const [hit] = await tx.select().from(rateLimitHits).where(eq(rateLimitHits.key, key)).for("update");
    const view = lockoutView(hit ? { count: hit.count, resetAt: new Date(hit.resetAt) } : null, now, SIGNIN_LIMIT_PER_ACCOUNT);
    if (view.attempts === 0) return { ok: false as const, message: "This tenant has no failed sign-ins to clear: the portal lets them sign in." };
    await tx.delete(rateLimitHits).where(eq(rateLimitHits.key, key));
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "tenant.lockout_lifted",
      entity: "tenant",
      entityId: tenant.id,
      locationId,
      changes: {
        failedSignIns: { before: view.attempts, after: 0 },
        lockedUntil: { before: view.locked && view.until ? view.until.toISOString() : null, after: null },
      },
      at: now,
    });
    return { ok: true as const, message: view.locked ? "The lockout is lifted: the tenant can sign in to the portal again." : "The failed sign-ins are cleared." };
  });
}

/** The first of the tenant's in-scope lease locations (the audit row's location), else a reservation's. */
async function tenantLocation(db: Database, tenantId: number, ids: number[]): Promise<number | null> {
  if (!ids.length) return null;
  const [l] = await db.select({ id: leases.locationId }).from(leases).where(and(eq(leases.tenantId, tenantId), inArray(leases.locationId, ids))).orderBy(desc(leases.id)).limit(1);
  if (l) return l.id;
  const [r] = await db.select({ id: reservations.locationId }).from(reservations).where(and(eq(reservations.tenantId, tenantId), inArray(reservations.locationId, ids))).limit(1);
  return r?.id ?? null;
}

async function websiteOf(db: Database, accountId: number) {
  const [w] = await db.select({ domain: websites.domain, name: websites.websiteName }).from(websites).where(eq(websites.accountId, accountId)).limit(1);
  return { origin: publicOrigin({ domain: w?.domain ?? "localhost" }), siteName: w?.name ?? "" };
}

/**
 * Sends the tenant the link to a signed lease again (the welcome e-mail's lease line, a fresh
 * expiring link; never the gate code). Null: tenant or lease not within the member's locations (404).
 */
export async function resendLeaseEmail(db: Database, staff: SignedInStaff, input: { tenantId: number; leaseId: number; now: Date }): Promise<DeskActionOutcome | null> {
  const found = await tenantInScope(db, staff, input.tenantId);
  if (!found) return null;
  const { tenant } = found;
  const [row] = await db
    .select({ lease: leases, unitName: units.name, locationName: locations.name })
    .from(leases)
    .innerJoin(units, eq(units.id, leases.unitId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(and(eq(leases.id, input.leaseId), eq(leases.tenantId, tenant.id), inArray(leases.locationId, found.locations.map((l) => l.id).concat(-1))));
  if (!row) return null;
  const { origin, siteName } = await websiteOf(db, tenant.accountId);
  const mail = {
    locationId: row.lease.locationId,
    to: tenant.email,
    subject: `Your lease at ${siteName} ${row.locationName}`.replace(/\s+/g, " ").trim(),
    text: [
      `Hello ${tenant.firstName},`,
      "",
      `Here is your signed lease for unit ${row.unitName} at ${row.locationName}, as you asked the office.`,
      "",
      leaseLinkLine(origin, row.lease.id, input.now),
      `The link works for ${LEASE_LINK_DAYS} days. After that, sign in at ${origin}/customer-portal/login to see your lease.`,
      "",
      siteName,
    ].join("\n"),
    secrets: leaseLinkSecrets(origin, row.lease.id, input.now),
  };
  const outboxId = await db.transaction(async (tx) => {
    const { id } = await queueEmail(tx, mail);
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "lease.email_resent",
      entity: "lease",
      entityId: row.lease.id,
      locationId: row.lease.locationId,
      detail: { tenantId: tenant.id, outboxId: id, subject: mail.subject },
      at: input.now,
    });
    return id;
  });
  await sendQueuedEmail(db, outboxId);
  return { ok: true, message: `The lease e-mail for unit ${row.unitName} is on its way to ${tenant.email}.` };
}

/** Sends a payment's receipt e-mail again (the one the portal sends). Null: not within the member's locations (404). */
export async function resendReceiptEmail(db: Database, staff: SignedInStaff, input: { tenantId: number; paymentId: number; now: Date }): Promise<DeskActionOutcome | null> {
  const found = await tenantInScope(db, staff, input.tenantId);
  if (!found) return null;
  const { tenant } = found;
  const [row] = await db
    .select({ payment: payments, location: { id: locations.id, name: locations.name, software: locations.software, status: locations.status } })
    .from(payments)
    .innerJoin(leases, eq(leases.id, payments.leaseId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(and(eq(payments.id, input.paymentId), eq(payments.tenantId, tenant.id), inArray(leases.locationId, found.locations.map((l) => l.id).concat(-1))));
  if (!row) return null;
  if (row.payment.status !== "approved") return { ok: false, message: "A declined payment has no receipt.", field: "paymentId" };
  const storage = storageFor(db, row.location);
  let receipt;
  try {
    receipt = await storage.getReceipt(String(tenant.id), String(row.payment.id));
  } catch {
    return { ok: false, message: "The facility's system could not be reached just now. Nothing was sent; please try again in a few minutes." };
  }
  if (!receipt) return { ok: false, message: "The facility's system has no receipt for this payment. Nothing was sent." };
  const { origin, siteName } = await websiteOf(db, tenant.accountId);
  const mail = receiptEmail({
    tenant: { email: tenant.email, firstName: tenant.firstName },
    receipt,
    payment: { ...receipt.payment, id: String(row.payment.id) },
    origin,
    siteName,
  });
  const outboxId = await db.transaction(async (tx) => {
    const { id } = await queueEmail(tx, { ...mail, locationId: row.location.id });
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "payment.receipt_resent",
      entity: "payment",
      entityId: row.payment.id,
      locationId: row.location.id,
      detail: { tenantId: tenant.id, outboxId: id, subject: mail.subject },
      at: input.now,
    });
    return id;
  });
  await sendQueuedEmail(db, outboxId);
  return { ok: true, message: `The receipt is on its way to ${tenant.email}.` };
}

/**
 * One of a tenant's leases, with its unit's name and its location, when the tenant and the lease are
 * within the member's locations; null otherwise (a 404). Shared by the desk's pay-link actions (send,
 * copy, text).
 */
export async function tenantLeaseInScope(db: Database, staff: SignedInStaff, input: { tenantId: number; leaseId: number }) {
  const found = await tenantInScope(db, staff, input.tenantId);
  if (!found) return null;
  const [row] = await db
    .select({ lease: leases, unitName: units.name, location: locations })
    .from(leases)
    .innerJoin(units, eq(units.id, leases.unitId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(and(eq(leases.id, input.leaseId), eq(leases.tenantId, found.tenant.id), inArray(leases.locationId, found.locations.map((l) => l.id).concat(-1))));
  return row ? { tenant: found.tenant, ...row } : null;
}

/**
 * Sends the tenant a pay link for one of their leases (pay-links.server.ts `sendPayLink`, decision
 * 240): the link, its e-mail and the audit row in one transaction, the e-mail sent after the commit.
 * The audit records the link's id, never the link. Null: not within the member's locations (404).
 */
export async function sendTenantPayLink(db: Database, staff: SignedInStaff, input: { tenantId: number; leaseId: number; now: Date }): Promise<DeskActionOutcome | null> {
  const row = await tenantLeaseInScope(db, staff, input);
  if (!row) return null;
  const { tenant } = row;
  if (row.lease.status !== "active") return { ok: false, message: "This lease has ended: there is nothing to pay through a link.", field: "leaseId" };
  // No mail server set up: nothing is made (a mail that can never go), and the desk is told so (issue 39).
  if (!mailCanBeSent()) return { ok: false, message: NO_MAIL_MESSAGE, field: "leaseId" };
  const result = await db.transaction(async (tx) => {
    const sent = await sendPayLink(db, { tenantId: tenant.id, leaseId: row.lease.id, staffId: staff.staffId, now: input.now }, tx);
    if (!sent.ok) return sent;
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "pay_link.sent",
      entity: "lease",
      entityId: row.lease.id,
      locationId: row.lease.locationId,
      detail: { tenantId: tenant.id, payLinkId: sent.linkId, outboxId: sent.outboxId, expiresAt: sent.expiresAt.toISOString() },
      at: input.now,
    });
    return sent;
  });
  if (!result.ok) return { ok: false, message: result.message };
  // Only "on its way" when the mail server took it; a failed send waits for the retry job (decision 507).
  if (!(await sendQueuedEmail(db, result.outboxId))) {
    return { ok: true, done: "paylinkqueued", message: `The pay link for unit ${row.unitName} could not be e-mailed to ${tenant.email} just now: it will be tried again for two days. To be sure, copy the link and send it another way.` };
  }
  return { ok: true, message: `A pay link for unit ${row.unitName} is on its way to ${tenant.email}.` };
}

/** What the desk is told when this server has no mail server set up (SMTP_URL). */
const NO_MAIL_MESSAGE = "No e-mail can be sent from this server (no mail server is set up), so the pay link was not sent. Copy the link to send it another way.";

/** Why the desk cannot e-mail a pay link from this server (no mail server set up), else null. */
export const payLinkMailOff = (): string | null => (mailCanBeSent() ? null : "No e-mail can be sent from this server (no mail server is set up): copy the link to send it another way.");

/**
 * "Copy the link" (issue 39, decision 507): a fresh pay link for one of the tenant's leases, shown to
 * the desk to text it or read it out. The link and its audit row (the link's id, never the link) are
 * one transaction; the link itself is only in the answer. Refused as a sent link is (ended lease,
 * nothing due, no card payments online). Null: not within the member's locations (404).
 */
export async function copyTenantPayLink(
  db: Database,
  staff: SignedInStaff,
  input: { tenantId: number; leaseId: number; now: Date },
): Promise<{ ok: true; url: string; unitName: string; due: number; until: string } | { ok: false; message: string } | null> {
  const row = await tenantLeaseInScope(db, staff, input);
  if (!row) return null;
  const { tenant } = row;
  if (row.lease.status !== "active") return { ok: false, message: "This lease has ended: there is nothing to pay through a link." };
  return withDeskPayLink(db, { tenantId: tenant.id, leaseId: row.lease.id, staffId: staff.staffId, now: input.now }, async (tx, link, about) => {
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "pay_link.copied",
      entity: "lease",
      entityId: row.lease.id,
      locationId: row.lease.locationId,
      detail: { tenantId: tenant.id, payLinkId: link.id, due: about.due, expiresAt: link.expiresAt.toISOString() },
      at: input.now,
    });
    return { ok: true as const, url: link.url, unitName: about.unitName, due: about.due, until: about.until };
  });
}

/**
 * Refunds an approved card payment, in full or in part (decisions 280, 509): a manager's or an owner's
 * action (the route checks `payments.refund` and a fresh second factor). The payment must be at one
 * of the member's locations (and the tenant's, when `tenantId` is given), else null (404). `amount`
 * is what the desk typed (empty: all that is left), checked against what is left to refund;
 * `refundedBefore` what the page showed refunded already (a change since refunds nothing). The
 * location's storage software refunds it through the gateway that took it, records the refunded
 * amount and posts the reversing ledger line; the audit row is written in that same transaction. A
 * second submit refunds nothing again. `cancelRental` (a move-in payment only): the same transaction
 * ends the lease, frees the unit and writes off what the lease still owes. SiteLink locations refuse
 * (the payment is booked in SiteLink, and a rental is cancelled there).
 */
export async function refundDeskPayment(
  db: Database,
  staff: SignedInStaff,
  input: { paymentId: number; tenantId?: number; amount?: string; refundedBefore?: number; cancelRental?: boolean; now: Date },
): Promise<DeskActionOutcome | null> {
  const mine = await deskLocations(db, staff);
  const [row] = await db
    .select({ payment: payments, unitName: units.name, lease: { status: leases.status, moveOutDate: leases.moveOutDate }, location: { id: locations.id, name: locations.name, software: locations.software, status: locations.status, timeZone: locations.timeZone } })
    .from(payments)
    .innerJoin(leases, eq(leases.id, payments.leaseId))
    .innerJoin(units, eq(units.id, leases.unitId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(
      and(
        eq(payments.id, input.paymentId),
        eq(locations.accountId, staff.accountId),
        inArray(leases.locationId, mine.map((l) => l.id).concat(-1)),
        input.tenantId === undefined ? undefined : eq(payments.tenantId, input.tenantId),
      ),
    );
  if (!row || row.payment.tenantId === null) return null;
  const p = row.payment;
  if (p.status === "refunded") return { ok: true, done: "refunded", message: `This payment of ${formatCents(p.amount)} was refunded already; nothing was refunded again.` };
  if (p.status !== "approved") return { ok: false, message: "A declined payment took no money: there is nothing to refund.", field: "paymentId" };
  const left = p.amount - p.refundedAmount;
  const amount = refundAmountOf(input.amount, left);
  if (!amount.ok) return { ok: false, message: amount.message, field: "amount" };
  if (input.cancelRental && p.source !== "move_in") {
    return { ok: false, message: "Only the refund of a move-in payment cancels the rental. To end this lease, record the move-out.", field: "cancelRental" };
  }
  const cancel = input.cancelRental && row.lease.status === "active" ? { moveOutDate: localDate(input.now, row.location.timeZone.timeZoneId) } : undefined;
  const storage = storageFor(db, row.location);
  let outcome;
  try {
    outcome = await storage.refundPayment({
      tenantId: String(p.tenantId),
      paymentId: String(p.id),
      amount: amount.cents,
      refundedBefore: input.refundedBefore ?? p.refundedAmount,
      cancelRental: cancel,
      now: input.now,
      record: async (tx, change) => {
        const fully = change.refundedAfter === p.amount;
        await recordAudit(tx, {
          ...auditActor(staff),
          action: fully ? "payment.refunded" : "payment.refunded_in_part",
          entity: "payment",
          entityId: p.id,
          locationId: row.location.id,
          changes: {
            ...(fully ? { status: { before: "approved", after: "refunded" } } : {}),
            refunded: { before: change.refundedBefore, after: change.refundedAfter },
            leaseBalance: { before: change.balanceBefore, after: change.balanceAfter },
          },
          detail: { tenantId: p.tenantId, leaseId: change.leaseId, amount: change.amount, ledgerEntryId: change.ledgerEntryId, entryDate: change.entryDate, rentalCancelled: change.cancelled },
          at: input.now,
        });
        if (change.cancelled) {
          await recordAudit(tx, {
            ...auditActor(staff),
            action: "lease.cancelled",
            entity: "lease",
            entityId: change.leaseId,
            locationId: row.location.id,
            changes: { status: { before: "active", after: "moved_out" }, moveOutDate: { before: row.lease.moveOutDate, after: cancel!.moveOutDate } },
            detail: { tenantId: p.tenantId, unit: row.unitName, refundOfPayment: p.id, writtenOff: change.writtenOff },
            at: input.now,
          });
        }
      },
    });
  } catch {
    return { ok: false, message: "The refund could not be completed just now. Check the payment's status before trying again: a refund is never made twice." };
  }
  if (outcome.kind === "refused") return { ok: false, message: outcome.message, field: "paymentId" };
  if (outcome.kind === "already_refunded") return { ok: true, done: "refunded", message: `This payment of ${formatCents(p.amount)} was refunded already; nothing was refunded again.` };
  if (outcome.kind === "changed") {
    return {
      ok: true,
      done: "refundchanged",
      message: `This payment has had ${formatCents(outcome.refundedNow)} refunded since the page was opened (the same form sent twice, or another refund), so nothing was refunded now. Check what is left before refunding more.`,
    };
  }
  const c = outcome.change;
  const what = `${formatCents(c.amount)} is refunded to ${p.cardBrand} ending ${p.cardLast4} (unit ${row.unitName}, ${row.location.name})`;
  if (c.cancelled) return { ok: true, done: "refundcancelled", message: `${what}; the rental is cancelled: the lease has ended and the unit can be rented again.` };
  return { ok: true, done: c.refundedAfter === p.amount ? "refund" : "refundpart", message: `${what}.` };
}

/** The tenants list's CSV columns (exactly the list's). */
export const TENANT_CSV_COLUMNS = [
  { header: "Tenant id", value: (r: TenantListRow) => r.id },
  { header: "Name", value: (r: TenantListRow) => r.name },
  { header: "E-mail", value: (r: TenantListRow) => r.email },
  { header: "Phone", value: (r: TenantListRow) => r.phone },
  { header: "Units", value: (r: TenantListRow) => r.units },
  { header: "Since", value: (r: TenantListRow) => r.since },
  { header: "Moved in", value: (r: TenantListRow) => r.movedIn ?? "" },
  { header: "Status", value: (r: TenantListRow) => tenantStatusText(r.statuses) },
];
