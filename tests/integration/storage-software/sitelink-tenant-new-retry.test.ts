/**
 * Issue 37 point 7: TenantNewDetailed_v3 answered -2 (the gate code refused, manual) at an online
 * move-in is not written again blindly: SiteLink is read back first (the rental's tenant, found by
 * its e-mail and note); found, it is used; not found, the tenant is sent once more; not readable,
 * nothing is sent again. Against the
 * SiteLink simulator over SOAP/HTTP: its call log (in order) and its own tenant records.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { SoftwareUnreachableError } from "~/storage-software/errors";
import { card, ctxFor, NOW, signedRental, tenantDetails } from "../support/rental-fixtures";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

let bed: SiteLinkTestbed;
let unitTypeId: string;
beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(NOW);
  unitTypeId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
});
afterAll(() => bed?.close());
beforeEach(() => {
  bed.sim.control.clearFaults();
  bed.sim.control.clearCalls();
});

const order = () => bed.sim.control.calls({ location: "L001" }).map((c) => c.operation).filter((op) => op === "TenantNewDetailed_v3" || op === "TenantSearchDetailed");
const tenantsWith = (email: string) => bed.sim.control.inspectSite("L001").tenants.filter((t) => String(t.fields.sEmail ?? "").toLowerCase() === email);

async function moveIn(email: string) {
  const { id } = await signedRental(bed.handle.db, unitTypeId, { plan: "none", details: tenantDetails({ email }) });
  bed.sim.control.addFault({ operation: "TenantNewDetailed_v3", kind: "rt_error", retCode: -2, retMsg: "Invalid or duplicate gate code", times: 1 });
  const ctx = await ctxFor(bed.handle.db, unitTypeId);
  return placeMoveIn(bed.handle.db, ctx, (await getRental(bed.handle.db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "https://www.example.com" });
}

it("-2 and no tenant in SiteLink: looked up first, then sent once more; one tenant, the move-in completes", async () => {
  const email = "gate.retry@example.com";
  const outcome = await moveIn(email);
  expect(outcome).toMatchObject({ status: "completed" });
  // The e-mail check, the first send (-2), the look-up by note, the second send.
  expect(order().slice(-3)).toEqual(["TenantNewDetailed_v3", "TenantSearchDetailed", "TenantNewDetailed_v3"]);
  expect(tenantsWith(email)).toHaveLength(1);
});

it("-2 and SiteLink cannot be read back: nothing is sent again (never a blind second write)", async () => {
  const email = "gate.unread@example.com";
  // The e-mail check's search answers; the look-up after the -2 does not (nor the client's one retry of a read).
  bed.sim.control.addFault({ operation: "TenantSearchDetailed", kind: "http_503", nth: 2, times: 2 });
  // "Could not reach the facility's system" for the visitor (no charge); the rental's next attempt looks again.
  await expect(moveIn(email)).rejects.toBeInstanceOf(SoftwareUnreachableError);
  expect(order().filter((op) => op === "TenantNewDetailed_v3")).toHaveLength(1);
  expect(tenantsWith(email)).toHaveLength(0);
});
