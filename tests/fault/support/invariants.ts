/**
 * What must hold in the database after the fault, checked with plain SQL (app/db/schema for the
 * tables; the balance rule of app/storage-software/shared/ledger.ts), plus the payment gateway's own
 * record of what it charged (PAYMENT_GATEWAY_LOG, one JSON line per new charge, across restarts).
 */
import fs from "node:fs";
import pg from "pg";
import type { RentalResult } from "./rental";

/** The highest ids before the test, so only what the test made is judged (the seed has its own leases). */
export interface Baseline {
  leaseId: number;
  tenantId: number;
  paymentId: number;
  /** Units of the rented type that were available before the test. */
  stockUnitIds: number[];
}

export async function baseline(url: string, unitTypeId: number): Promise<Baseline> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const max = async (table: string) => Number((await c.query(`select coalesce(max(id), 0) as m from ${table}`)).rows[0].m);
    const stock = await c.query(`select id from units where unit_type_id = $1 and status = 'available' order by id`, [unitTypeId]);
    return {
      leaseId: await max("leases"),
      tenantId: await max("tenants"),
      paymentId: await max("payments"),
      stockUnitIds: stock.rows.map((r) => Number(r.id)),
    };
  } finally {
    await c.end();
  }
}

interface GatewayCharge {
  at: string;
  pid: number;
  idempotencyKey: string;
  amount: number;
  /** "refunded"/"voided": lines a recovery sweep may add when it gives a charge back (not written today). */
  status: "approved" | "declined" | "refunded" | "voided";
  last4: string;
  authReference: string | null;
}

export function readGatewayLog(file: string): GatewayCharge[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as GatewayCharge);
}

export interface Findings {
  /** Human-readable broken rules; empty when everything holds. */
  violations: string[];
  leasesCreated: number;
  /** Renters charged more than once (extra charges), or leases with more than one move-in payment. */
  chargesDoubled: number;
  /** Money taken without a record (gateway approved, no payment row), or a payment without its lease. */
  chargesLost: number;
  /** The test gateway forgets its idempotency memory when the process restarts; a real gateway would not. */
  gatewaySameKeyRepeats: number;
}

export async function checkInvariants(
  url: string,
  base: Baseline,
  renters: RentalResult[],
  gatewayLog: GatewayCharge[],
): Promise<Findings> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const violations: string[] = [];
  let chargesDoubled = 0;
  let chargesLost = 0;
  const rows = async (sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows as Record<string, unknown>[];
  try {
    // An approved move-in payment always has its lease.
    const orphanPayments = await rows(
      `select p.id, p.amount, p.lease_id from payments p
        where p.id > $1 and p.source = 'move_in' and p.status = 'approved'
          and (p.lease_id is null or not exists (select 1 from leases l where l.id = p.lease_id))`,
      [base.paymentId],
    );
    for (const p of orphanPayments) violations.push(`approved move-in payment ${p.id} (${p.amount} cents) has no lease`);
    chargesLost += orphanPayments.length;

    // No lease charged twice (payments, and payment lines on its ledger).
    const twice = await rows(
      `select lease_id, count(*)::int as n from payments
        where id > $1 and source = 'move_in' and status = 'approved' and lease_id is not null
        group by lease_id having count(*) > 1`,
      [base.paymentId],
    );
    for (const t of twice) violations.push(`lease ${t.lease_id} has ${t.n} approved move-in payments`);
    chargesDoubled += twice.reduce((s, t) => s + Number(t.n) - 1, 0);
    const twiceLedger = await rows(
      `select lease_id, count(*)::int as n from ledger_entries where lease_id > $1 and kind = 'payment' group by lease_id having count(*) > 1`,
      [base.leaseId],
    );
    for (const t of twiceLedger) violations.push(`lease ${t.lease_id} has ${t.n} payment lines on its ledger`);

    // Every new lease was paid: it has its approved move-in payment.
    const unpaid = await rows(
      `select l.id from leases l where l.id > $1
          and not exists (select 1 from payments p where p.lease_id = l.id and p.source = 'move_in' and p.status = 'approved')`,
      [base.leaseId],
    );
    for (const l of unpaid) violations.push(`lease ${l.id} has no approved move-in payment (a unit given away)`);

    // One active lease per unit, and an active lease's unit is marked rented.
    const doubleUnits = await rows(`select unit_id, count(*)::int as n from leases where status = 'active' group by unit_id having count(*) > 1`);
    for (const u of doubleUnits) violations.push(`unit ${u.unit_id} has ${u.n} active leases`);
    const notRented = await rows(
      `select l.id as lease_id, u.id as unit_id, u.status from leases l join units u on u.id = l.unit_id
        where l.status = 'active' and u.status <> 'rented'`,
    );
    for (const u of notRented) violations.push(`active lease ${u.lease_id} is on unit ${u.unit_id}, which is '${u.status}', not rented`);
    // A unit of the test's stock marked rented has its active lease (no unit lost).
    if (base.stockUnitIds.length) {
      const lostUnits = await rows(
        `select u.id from units u where u.id = any($1::int[]) and u.status = 'rented'
            and not exists (select 1 from leases l where l.unit_id = u.id and l.status = 'active')`,
        [base.stockUnitIds],
      );
      for (const u of lostUnits) violations.push(`unit ${u.id} is marked rented but has no active lease`);
    }

    // Every completed rental points at its lease (and only completed ones do).
    const badRentals = await rows(
      `select c.id, c.status, c.completed_lease_id from checkouts c
        where (c.status = 'completed' and (c.completed_lease_id is null or not exists (select 1 from leases l where l.id = c.completed_lease_id)))
           or (c.status <> 'completed' and c.completed_lease_id is not null)`,
    );
    for (const b of badRentals) violations.push(`rental ${String(b.id).slice(0, 8)}… is '${b.status}' with completed lease ${b.completed_lease_id}`);

    // Every new tenant holds a lease (a tenant row left behind would refuse the renter's email next time).
    const orphanTenants = await rows(
      `select t.id, t.email from tenants t where t.id > $1 and not exists (select 1 from leases l where l.tenant_id = t.id)`,
      [base.tenantId],
    );
    for (const t of orphanTenants) violations.push(`tenant ${t.id} (${t.email}) has no lease`);

    // Every renter who saw a confirmation holds an active lease.
    for (const r of renters.filter((x) => x.confirmed)) {
      const held = await rows(
        `select l.id from leases l join tenants t on t.id = l.tenant_id where lower(t.email) = lower($1) and l.status = 'active'`,
        [r.spec.email],
      );
      if (held.length !== 1) violations.push(`${r.spec.email} saw a confirmation but holds ${held.length} active leases`);
    }

    // Every new lease's balance is 0 after the paid move-in: Σ(charge amount + tax) − Σ(payment + credit).
    const balances = await rows(
      `select l.id, coalesce(sum(case when e.kind = 'charge' then e.amount + e.tax else -e.amount end), 0)::int as balance
         from leases l left join ledger_entries e on e.lease_id = l.id
        where l.id > $1 group by l.id`,
      [base.leaseId],
    );
    for (const b of balances) if (Number(b.balance) !== 0) violations.push(`lease ${b.id} balance is ${b.balance} cents, not 0`);

    // The gateway's view: one real-world charge per idempotency key (a real gateway answers a repeated
    // key with the first result; the test gateway forgets its memory when the process restarts).
    const approved = gatewayLog.filter((g) => g.status === "approved");
    const byKey = new Map<string, GatewayCharge[]>();
    for (const g of approved) byKey.set(g.idempotencyKey, [...(byKey.get(g.idempotencyKey) ?? []), g]);
    const gatewaySameKeyRepeats = [...byKey.values()].reduce((s, list) => s + list.length - 1, 0);
    const payments = await rows(`select idempotency_key, auth_reference from payments where id > $1 and status = 'approved'`, [base.paymentId]);
    const recordedKeys = new Set(payments.map((p) => String(p.idempotency_key)));
    const recordedAuth = new Set(payments.map((p) => String(p.auth_reference)));
    const givenBack = new Set(gatewayLog.filter((g) => g.status === "refunded" || g.status === "voided").map((g) => g.idempotencyKey));
    for (const [key, list] of byKey) {
      if (givenBack.has(key)) continue;
      const recorded = recordedKeys.has(key) || list.some((g) => g.authReference && recordedAuth.has(g.authReference));
      if (!recorded) {
        chargesLost++;
        violations.push(`the gateway approved ${list[0]!.amount} cents on card …${list[0]!.last4} (key ${key.slice(0, 8)}…) but no payment records it`);
      }
    }
    // Per renter (card last four): more than one approved key is a second charge.
    for (const r of renters) {
      const last4 = r.spec.cardNumber.slice(-4);
      const keys = new Set(approved.filter((g) => g.last4 === last4 && !givenBack.has(g.idempotencyKey)).map((g) => g.idempotencyKey));
      if (keys.size > 1) {
        chargesDoubled += keys.size - 1;
        violations.push(`${r.spec.email} was charged ${keys.size} times (card …${last4})`);
      }
    }

    const leasesCreated = Number((await rows(`select count(*)::int as n from leases where id > $1`, [base.leaseId]))[0]!.n);
    return { violations, leasesCreated, chargesDoubled, chargesLost, gatewaySameKeyRepeats };
  } finally {
    await c.end();
  }
}
