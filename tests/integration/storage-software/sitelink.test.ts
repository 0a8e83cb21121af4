/**
 * The StorageSoftware contract suite against the SiteLink adapter, the SiteLink simulator behind it
 * (real SOAP 1.1 over HTTP on an ephemeral port). Units are set up as the office would, through the
 * simulator's control API, then the inventory sync runs; holds are ours (study §6.6).
 */
import crypto from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { payments, rentals, reservations, tenantSoftwareLinks, unitTypes, units } from "~/db/schema";
import { runSiteLinkSync, storageFor } from "~/storage-software/index.server";
import { CONTRACT_NOW, storageSoftwareContract } from "./contract";
import { startSiteLinkTestbed } from "../support/sitelink-testbed";

storageSoftwareContract("sitelink", async () => {
  const bed = await startSiteLinkTestbed();
  const { db } = bed.handle;
  const control = bed.sim.control;
  // SiteLink's business date is its own: the simulator runs on the suite's day.
  control.setClock({ to: CONTRACT_NOW.toISOString() });
  const sync = async () => {
    const results = await runSiteLinkSync(db);
    const failed = results.filter((r) => !r.ok);
    if (failed.length) throw new Error(`sync failed: ${failed.map((f) => f.error).join("; ")}`);
  };
  await sync();
  let serial = 0;
  return {
    storage: storageFor(db, bed.lumberton),
    otherStorage: storageFor(db, bed.jacksonville),
    async createUnitType({ statuses, width = 7, length = 9 }) {
      const created = control.createUnitType("L001", { typeName: `Contract Test ${++serial}`, width, length, stdRate: 5000, webRate: 4500, statuses });
      await sync();
      const ids = created.units.map((u) => String(u.UnitID));
      const rows = await db
        .select({ id: units.id, externalId: units.externalId, unitTypeId: units.unitTypeId })
        .from(units)
        .where(and(eq(units.locationId, bed.lumberton.id), inArray(units.externalId, ids)));
      const byExternal = new Map(rows.map((r) => [r.externalId, r]));
      const [type] = await db.select({ id: unitTypes.id }).from(unitTypes).where(eq(unitTypes.id, rows[0]!.unitTypeId));
      return { unitTypeId: String(type!.id), unitIds: ids.map((x) => String(byExternal.get(x)!.id)) };
    },
    async setUnitStatus(unitId, status) {
      const [row] = await db.select({ externalId: units.externalId }).from(units).where(eq(units.id, Number(unitId)));
      control.setUnitStatus("L001", Number(row!.externalId), status);
      await sync();
    },
    async holdUnit(unitId, until) {
      await db.update(units).set({ heldUntil: until, holdToken: `hold-${unitId}` }).where(eq(units.id, Number(unitId)));
    },
    async openRental({ unitTypeId, now }) {
      const id = `contract-rental-${++serial}-${crypto.randomBytes(8).toString("hex")}`;
      const idempotencyKey = `contract-key-${crypto.randomBytes(12).toString("hex")}`;
      await db.insert(rentals).values({ id, locationId: bed.lumberton.id, unitTypeId: Number(unitTypeId), idempotencyKey, expiresAt: new Date(now.getTime() + 15 * 60_000) });
      return { rentalId: id, idempotencyKey };
    },
    // SiteLink has a business date of its own: the simulator's clock.
    async advanceClock(to) {
      control.setClock({ to: to.toISOString() });
    },
    // SiteLink's own tenant record (the site's TenantID our tenant is linked to).
    async softwareContact(tenantId) {
      const [link] = await db
        .select({ id: tenantSoftwareLinks.externalTenantId })
        .from(tenantSoftwareLinks)
        .where(and(eq(tenantSoftwareLinks.tenantId, Number(tenantId)), eq(tenantSoftwareLinks.locationId, bed.lumberton.id)));
      const t = link ? control.inspectSite("L001").tenants.find((x) => x.TenantID === Number(link.id)) : undefined;
      if (!t) return null;
      const f = (k: string) => String(t.fields[k] ?? "");
      return { lastName: f("sLName"), addr1: f("sAddr1"), city: f("sCity"), email: f("sEmail"), cellPhone: f("sMobile") };
    },
    // SiteLink's reservation (the WaitingID we keep) and the tenant record holding it.
    async softwareReservation(reservationId) {
      const [row] = await db.select({ externalId: reservations.externalId }).from(reservations).where(eq(reservations.id, Number(reservationId)));
      const site = control.inspectSite("L001");
      const r = row?.externalId ? site.reservations.find((x) => x.WaitingID === Number(row.externalId)) : undefined;
      const t = r ? site.tenants.find((x) => x.TenantID === r.TenantID) : undefined;
      if (!r || !t) return null;
      const status = r.iWaitingStatus === 0 ? "active" : r.iWaitingStatus === 1 ? "converted" : "cancelled";
      return { status, holder: { firstName: String(t.fields.sFName ?? ""), lastName: String(t.fields.sLName ?? ""), email: String(t.fields.sEmail ?? "") } };
    },
    paymentAttempts: (leaseId) => db.select({ status: payments.status, amount: payments.amount }).from(payments).where(eq(payments.leaseId, Number(leaseId))),
    close: () => bed.close(),
  };
});
