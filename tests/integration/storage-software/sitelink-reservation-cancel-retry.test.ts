/**
 * Issue 37 point 7: a reservation's cancellation that SiteLink did not answer is retried by the
 * sweep (as the code's comment always said): SiteLink's reservation is read back first; still active
 * means the cancellation did not take and it is sent again; already closed settles the row without
 * sending. Against the SiteLink simulator over SOAP/HTTP, its faults and its own reservation records.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { reservations, sitelinkWrites } from "~/db/schema";
import { sweepExpiredReservations } from "~/services/rental/reservation.server";
import { storageFor } from "~/storage-software/index.server";
import { NOW } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

let bed: SiteLinkTestbed;
let unitTypeId: string;
beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(NOW, { writeTimeoutMs: 1500 });
  unitTypeId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
});
afterAll(() => bed?.close());
beforeEach(() => bed.sim.control.clearFaults());

const updates = () => bed.sim.control.calls({ operation: "ReservationUpdate_v4", location: "L001" }).length;

/** A website reservation at Lumberton, cancelled by the customer with `fault` on SiteLink's update. */
async function cancelledWith(name: string, fault: "drop_before" | "commit_then_reset") {
  const storage = storageFor(bed.handle.db, bed.lumberton);
  const r = await storage.reserveUnit({
    unitTypeId,
    firstName: "Rita",
    lastName: name,
    email: `${name.toLowerCase()}@example.com`,
    phone: "9105550188",
    desiredMoveInDate: "2026-11-25",
    expiresAt: new Date(NOW.getTime() + 7 * 86_400_000),
    cancelTokenHash: "c".repeat(64),
    confirmationCode: `RC${name.toUpperCase()}`,
    idempotencyKey: `cancel-retry-${name}`,
    now: NOW,
  });
  const [row] = await bed.handle.db.select().from(reservations).where(eq(reservations.id, Number(r.id)));
  bed.sim.control.addFault({ operation: "ReservationUpdate_v4", kind: fault, times: 1 });
  const result = await storage.cancelReservation({ id: r.id, cancelTokenHash: "c".repeat(64), now: NOW });
  expect(result?.status).toBe("cancelled");
  const key = `reservation-cancel:${r.id}`;
  const journal = async () => (await bed.handle.db.select().from(sitelinkWrites).where(eq(sitelinkWrites.idempotencyKey, key)))[0]!;
  const inSiteLink = () => bed.sim.control.inspectSite("L001").reservations.find((x) => x.WaitingID === Number(row!.externalId))!;
  expect((await journal()).state).toBe("unknown");
  return { journal, inSiteLink };
}

it("no answer and nothing done: the sweep reads SiteLink back, sends the cancellation again, once", async () => {
  const { journal, inSiteLink } = await cancelledWith("Lost", "drop_before");
  expect(inSiteLink().iWaitingStatus).toBe(0);
  const sent = updates();
  await sweepExpiredReservations(bed.handle.db, new Date(NOW.getTime() + 5 * 60_000));
  expect(inSiteLink().iWaitingStatus).toBe(2);
  expect((await journal()).state).toBe("done");
  expect(updates()).toBe(sent + 1);
  // Settled: the next sweep sends nothing.
  await sweepExpiredReservations(bed.handle.db, new Date(NOW.getTime() + 10 * 60_000));
  expect(updates()).toBe(sent + 1);
});

it("no answer but done in SiteLink: the sweep reads it back and settles the row without sending again", async () => {
  const { journal, inSiteLink } = await cancelledWith("Done", "commit_then_reset");
  expect(inSiteLink().iWaitingStatus).toBe(2);
  const sent = updates();
  await sweepExpiredReservations(bed.handle.db, new Date(NOW.getTime() + 5 * 60_000));
  expect((await journal()).state).toBe("done");
  expect(updates()).toBe(sent);
});
