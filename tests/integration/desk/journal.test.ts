/**
 * The back office's SiteLink journal desk (issue 23, decision 261) against the SiteLink simulator over
 * real SOAP (tests/integration/support/sitelink-testbed.ts): a move-in whose answer was lost (commit, then no
 * answer, and SiteLink unreadable for a moment) is listed as "outcome unknown"; "Check SiteLink again"
 * reconciles it (read back, never resent); "Mark resolved" takes a note; scope, permissions, CSRF and
 * the audit row in the action's transaction.
 */
import { count, desc, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, leases, rentals, sitelinkWrites, tenantSoftwareLinks } from "~/db/schema";
import type { StaffRole } from "~/domain/staff/roles";
import { getCsrfToken } from "~/services/web/csrf.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import type { SignedInStaff } from "~/services/staff/context.server";
import { collectSiteLinkStatus, storageFor } from "~/storage-software/index.server";
import AdminSiteLinkJournal, { action as journalAction, loader as journalLoader } from "~/routes/desk/sitelink-journal";
import { card, ctxFor, NOW, signedRental } from "../support/rental-fixtures";
import { answer, deskMember, staffContext } from "../support/staff-fixtures";
import { renderPage } from "../support/render-page";
import { roomiestSyncedUnitType, startSyncedSiteLinkTestbed, type SiteLinkTestbed } from "../support/sitelink-testbed";

let bed: SiteLinkTestbed;
let accountId: number;
const staff = {} as Record<"owner" | "manager" | "frontDesk" | "jaxManager", SignedInStaff>;
let moveInKey: string;
let rentalId: string;
const JAX_KEY = "payment:desk-journal-test-jacksonville";

const member = (email: string, role: StaffRole, locationIds: number[]) => deskMember(bed.handle.db, { accountId, email, role, locationIds, ip: "198.51.100.8" });
const contextFor = (who: SignedInStaff) => staffContext(bed.handle.db, who, "198.51.100.8");

type ListData = { rows: Array<{ key: string; status: string | null; actions: { retry: boolean; resolve: boolean }; resolved: { note: string } | null }>; total: number; errors: Record<string, string>; canAct: boolean };
const list = (who: SignedInStaff, query = "") =>
  answer(() => journalLoader({ request: new Request(`http://localhost/admin/sitelink-journal${query}`), params: {}, context: contextFor(who) } as never));
const keys = async (who: SignedInStaff, query = "") => ((await list(who, query)).data as ListData).rows.map((r) => r.key);

async function post(who: SignedInStaff, fields: Record<string, string>, options: { csrf?: boolean; query?: string } = {}) {
  const { token, setCookie } = await getCsrfToken(new Request("http://localhost/"));
  const body = new URLSearchParams({ ...fields, ...(options.csrf === false ? {} : { csrf: token }) });
  const request = new Request(`http://localhost/admin/sitelink-journal${options.query ?? ""}`, {
    method: "POST",
    body,
    headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" },
  });
  return answer(() => journalAction({ request, params: {}, context: contextFor(who) } as never));
}

const journalRow = async (key: string) => (await bed.handle.db.select().from(sitelinkWrites).where(eq(sitelinkWrites.idempotencyKey, key)))[0]!;
const moveInCalls = () => bed.sim.control.calls({ operation: "MoveInWithDiscount_v7", location: "L001" }).length;

beforeAll(async () => {
  bed = await startSyncedSiteLinkTestbed(NOW);
  const db = bed.handle.db;
  accountId = (await db.query.locations.findFirst({ where: (l, { eq }) => eq(l.id, bed.lumberton.id) }))!.accountId;
  // A real move-in at Lumberton whose answer is lost and which SiteLink cannot be read back for just then.
  const unitTypeId = (await roomiestSyncedUnitType(bed, bed.lumberton)).id;
  const { id } = await signedRental(db, unitTypeId);
  rentalId = id;
  bed.sim.control.addFault({ operation: "MoveInWithDiscount_v7", kind: "commit_then_hang", times: 1 });
  bed.sim.control.addFault({ operation: "LedgersByTenantID_v3", kind: "http_503", times: 2 });
  const ctx = await ctxFor(db, unitTypeId);
  const outcome = await placeMoveIn(db, ctx, (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "https://www.example.com" });
  expect(outcome).toEqual({ status: "confirming" });
  bed.sim.control.clearFaults();
  const [row] = await db.select().from(sitelinkWrites).where(sql`${sitelinkWrites.idempotencyKey} like ${`movein:${id}:%`}`);
  expect(row!.state).toBe("unknown");
  moveInKey = row!.idempotencyKey;
  // A Jacksonville payment whose answer is unknown (as the adapter journals one: ids and amounts only).
  await db.insert(sitelinkWrites).values({
    idempotencyKey: JAX_KEY,
    locationId: bed.jacksonville.id,
    operation: "PaymentSimpleCheckWithSource",
    state: "unknown",
    requestFingerprint: "1:2500",
    externalIds: { ledgerId: "77", amount: "2500", before: "" },
    startedAt: NOW,
    finishedAt: NOW,
    lastError: "no answer; no new receipt yet",
  });
  staff.owner = await member("owner@example.com", "owner", []);
  staff.manager = await member("manager@example.com", "manager", [bed.lumberton.id]);
  staff.frontDesk = await member("desk@example.com", "front_desk", [bed.lumberton.id]);
  staff.jaxManager = await member("jax@example.com", "manager", [bed.jacksonville.id]);
});
afterAll(() => bed?.close());

describe("the SiteLink journal desk", () => {
  it("lists rows needing attention within the member's locations, by location, start date and status", async () => {
    expect(await keys(staff.owner)).toEqual(expect.arrayContaining([moveInKey, JAX_KEY]));
    expect(await keys(staff.manager)).toContain(moveInKey);
    expect(await keys(staff.manager)).not.toContain(JAX_KEY);
    expect(await keys(staff.jaxManager)).toEqual([JAX_KEY]);
    expect(await keys(staff.owner, `?location=${bed.jacksonville.id}`)).toEqual([JAX_KEY]);
    expect(await keys(staff.owner, "?from=2026-11-22&to=2026-11-22")).toEqual(expect.arrayContaining([moveInKey, JAX_KEY]));
    expect(await keys(staff.owner, "?from=2026-11-23")).toEqual([]);
    expect(await keys(staff.owner, "?status=unknown")).toEqual(expect.arrayContaining([moveInKey, JAX_KEY]));
    expect(await keys(staff.owner, "?status=resolved")).toEqual([]);
    const bad = await list(staff.manager, `?location=${bed.jacksonville.id}&status=nonsense&from=2026-13-40`);
    expect(bad.status).toBe(400);
    expect((bad.data as ListData).errors).toMatchObject({ location: "Choose a location from the list.", status: "Choose a status from the list." });
    expect((bad.data as ListData).errors.from).toBeTruthy();
    const rows = ((await list(staff.owner)).data as ListData).rows;
    expect(rows.find((r) => r.key === moveInKey)!.actions).toEqual({ retry: true, resolve: true });
    expect(rows.find((r) => r.key === JAX_KEY)!.actions).toEqual({ retry: true, resolve: true });
    expect(((await list(staff.frontDesk)).data as ListData).canAct).toBe(false);
    const html = await renderPage(AdminSiteLinkJournal as never, { pattern: "/admin/sitelink-journal", url: "/admin/sitelink-journal", loaderData: (await list(staff.owner)).data });
    expect(html).toContain("Check SiteLink again");
    expect(html).toContain("Mark resolved");
    expect(html).toContain("Outcome unknown");
    expect(await renderPage(AdminSiteLinkJournal as never, { pattern: "/admin/sitelink-journal", url: "/admin/sitelink-journal", loaderData: (await list(staff.frontDesk)).data })).not.toContain("<form method=\"post\"");
  });

  it("refuses journal actions to the front desk (403), without CSRF (403), and outside the member's locations (404)", async () => {
    expect((await post(staff.frontDesk, { intent: "retry", key: moveInKey })).status).toBe(403);
    expect((await post(staff.manager, { intent: "retry", key: moveInKey }, { csrf: false })).status).toBe(403);
    expect((await post(staff.jaxManager, { intent: "retry", key: moveInKey })).status).toBe(404);
    expect((await post(staff.manager, { intent: "resolve", key: JAX_KEY, note: "Checked." })).status).toBe(404);
    expect((await post(staff.manager, { intent: "resolve", key: "no-such-row", note: "Checked." })).status).toBe(404);
    expect((await journalRow(moveInKey)).state).toBe("unknown");
  });

  it("'Check SiteLink again' reconciles the move-in (read back, never resent), completes the rental and audits before and after", async () => {
    const calls = moveInCalls();
    const r = await post(staff.manager, { intent: "retry", key: moveInKey });
    expect(r.status).toBe(200);
    expect((r.data as { message: string }).message).toMatch(/SiteLink has the move-in/);
    expect(moveInCalls()).toBe(calls);
    expect((await journalRow(moveInKey)).state).toBe("done");
    const db = bed.handle.db;
    expect((await db.query.rentals.findFirst({ where: (c, { eq }) => eq(c.id, rentalId) }))!.status).toBe("completed");
    const audits = await db.select().from(auditEvents).where(eq(auditEvents.entityId, moveInKey)).orderBy(auditEvents.id);
    expect(audits.map((a) => a.action)).toEqual(["sitelink_write.retry_started", "sitelink_write.retried"]);
    expect(audits[1]).toMatchObject({ staffId: staff.manager.staffId, entity: "sitelink_write", locationId: bed.lumberton.id, changes: { state: { before: "unknown", after: "done" } } });
    expect(await keys(staff.owner)).not.toContain(moveInKey);
  });

  it("'Mark resolved' needs a note (kept, beside the field), then leaves the state as it was and the row leaves the list", async () => {
    const empty = await post(staff.jaxManager, { intent: "resolve", key: JAX_KEY, note: "  " });
    expect(empty.status).toBe(400);
    expect(empty.data).toMatchObject({ field: "note", message: "Say what was done, so the next person knows.", key: JAX_KEY });
    // Parsed by Conform with the form's schema: its reply carries the error for the browser's form too.
    expect(empty.data).toMatchObject({ result: { status: "error", error: { note: ["Say what was done, so the next person knows."] } } });
    const long = await post(staff.jaxManager, { intent: "resolve", key: JAX_KEY, note: "x".repeat(1001) });
    expect(long.status).toBe(400);
    expect((long.data as { note: string }).note).toHaveLength(1001);
    const typed = await post(staff.jaxManager, { intent: "resolve", key: JAX_KEY, note: "ab" });
    const html = await renderPage(AdminSiteLinkJournal as never, { pattern: "/admin/sitelink-journal", url: "/admin/sitelink-journal", loaderData: (await list(staff.jaxManager)).data, actionData: typed.data });
    expect(html).toMatch(/aria-invalid="true" aria-describedby="note-payment:desk-journal-test-jacksonville-error"[^>]*>ab<\/textarea>/);
    expect(html).toContain("Say what was done, so the next person knows.");

    // The audit row and the change commit together: when the audit row fails, the row stays unresolved.
    const db = bed.handle.db;
    const audits = (await db.select({ n: count() }).from(auditEvents))[0]!.n;
    await db.execute(sql.raw(`create or replace function desk_test_refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused (test)'; end $$`));
    await db.execute(sql.raw(`create trigger desk_test_refuse_audit after insert on audit_events for each row execute function desk_test_refuse_audit()`));
    try {
      await expect(post(staff.jaxManager, { intent: "resolve", key: JAX_KEY, note: "Receipt 991 in SiteLink." })).rejects.toThrow();
    } finally {
      await db.execute(sql.raw(`drop trigger desk_test_refuse_audit on audit_events`));
    }
    expect((await journalRow(JAX_KEY)).resolvedAt).toBeNull();
    expect((await db.select({ n: count() }).from(auditEvents))[0]!.n).toBe(audits);

    const ok = await post(staff.jaxManager, { intent: "resolve", key: JAX_KEY, note: "Receipt 991 in SiteLink; booked." }, { query: "?status=unknown" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe("/admin/sitelink-journal?status=unknown&done=resolved");
    const row = await journalRow(JAX_KEY);
    expect(row).toMatchObject({ state: "unknown", resolvedByStaffId: staff.jaxManager.staffId, resolutionNote: "Receipt 991 in SiteLink; booked." });
    expect(row.resolvedAt).toBeInstanceOf(Date);
    const [audit] = await db.select().from(auditEvents).where(eq(auditEvents.action, "sitelink_write.resolved")).orderBy(desc(auditEvents.id));
    expect(audit).toMatchObject({ entityId: JAX_KEY, locationId: bed.jacksonville.id, staffId: staff.jaxManager.staffId });
    expect(audit!.changes).toMatchObject({ resolutionNote: { before: null, after: "Receipt 991 in SiteLink; booked." } });
    expect(await keys(staff.owner)).not.toContain(JAX_KEY);
    const resolved = ((await list(staff.owner, "?status=resolved")).data as ListData).rows;
    expect(resolved.map((r) => r.key)).toEqual([JAX_KEY]);
    expect(resolved[0]!.resolved!.note).toBe("Receipt 991 in SiteLink; booked.");
    expect(resolved[0]!.actions).toEqual({ retry: false, resolve: false });
    // Resolved twice: a clear message, nothing changed.
    const again = await post(staff.owner, { intent: "resolve", key: JAX_KEY, note: "Again." });
    expect(again.status).toBe(400);
    expect((again.data as { message: string }).message).toMatch(/already marked resolved/);
    // `npm run sitelink:status` no longer lists it either.
    const status = await collectSiteLinkStatus(db, NOW);
    expect(status.locations.flatMap((l) => l.attention.map((a) => a.idempotencyKey))).not.toContain(JAX_KEY);
  });
});

describe("'Check SiteLink again' for the other kinds of write (decision 341)", () => {
  /** The tenant and lease the reconciled move-in made, with their SiteLink ids. */
  async function movedIn() {
    const db = bed.handle.db;
    const rental = (await db.query.rentals.findFirst({ where: eq(rentals.id, rentalId) }))!;
    const lease = (await db.query.leases.findFirst({ where: eq(leases.id, rental.completedLeaseId!) }))!;
    const [link] = await db.select().from(tenantSoftwareLinks).where(eq(tenantSoftwareLinks.tenantId, lease.tenantId));
    return { tenantId: String(lease.tenantId), leaseId: String(lease.id), ledgerId: lease.externalId!, siteLinkTenantId: link!.externalTenantId };
  }
  /** A journal row as the adapter leaves one whose answer was lost. */
  async function lostAnswer(key: string, operation: string, externalIds: Record<string, string>, startedAt = NOW) {
    await bed.handle.db
      .insert(sitelinkWrites)
      .values({ idempotencyKey: key, locationId: bed.lumberton.id, operation, state: "unknown", requestFingerprint: "x", externalIds, startedAt, finishedAt: startedAt, lastError: "no answer" })
      .onConflictDoUpdate({ target: sitelinkWrites.idempotencyKey, set: { state: "unknown", finishedAt: startedAt, lastError: "no answer", externalIds } });
  }
  const writes = () => ["PaymentSimpleWithSource", "PaymentSimpleCheckWithSource", "ScheduleMoveOut", "TenantUpdate_v3", "TenantNewDetailed_v3", "ReservationUpdate_v4"].map((operation) => bed.sim.control.calls({ operation }).length);
  const retry = async (key: string) => {
    const r = await post(staff.manager, { intent: "retry", key });
    return { status: r.status, message: (r.data as { message: string }).message };
  };

  it("a payment SiteLink booked is found on the ledger and settled done; one it never saw is settled failed after the settle time; a fresh one waits", async () => {
    const m = await movedIn();
    const storage = storageFor(bed.handle.db, bed.lumberton);
    // A real payment; then its journal row is put back to "unknown", as if the answer had been lost.
    await storage.makePayment({ tenantId: m.tenantId, leaseId: m.leaseId, amount: 1234, method: { kind: "card", card: card(), saveCard: false }, idempotencyKey: "desk-check-paid", now: NOW });
    const paid = await journalRow("payment:desk-check-paid");
    expect(paid.state).toBe("done");
    const receipt = (paid.externalIds as Record<string, string>).receipt!;
    await lostAnswer("payment:desk-check-paid", paid.operation, { ...(paid.externalIds as Record<string, string>), receipt: "" });
    const calls = writes();
    const found = await retry("payment:desk-check-paid");
    expect(found.status).toBe(200);
    expect(found.message).toContain(`receipt ${receipt}`);
    expect((await journalRow("payment:desk-check-paid")).state).toBe("done");

    // Never booked (no new receipt of this amount), started long ago: settled failed, the tenant may pay again.
    const receipts = (paid.externalIds as Record<string, string>).before ?? "";
    await lostAnswer("payment:desk-check-missing", "PaymentSimpleWithSource", { ledgerId: m.ledgerId, amount: "98765", before: receipts });
    const missing = await retry("payment:desk-check-missing");
    expect(missing.message).toMatch(/no new payment of \$987\.65 .*nothing was booked/);
    expect((await journalRow("payment:desk-check-missing")).state).toBe("failed");

    // Sent half a minute ago, no answer: too early to say it never happened; nothing changes.
    await lostAnswer("payment:desk-check-fresh", "PaymentSimpleWithSource", { ledgerId: m.ledgerId, amount: "98766", before: receipts }, new Date(Date.now() - 30_000));
    const fresh = await retry("payment:desk-check-fresh");
    expect(fresh.message).toMatch(/too early/);
    expect((await journalRow("payment:desk-check-fresh")).state).toBe("unknown");
    // Nothing was sent to SiteLink again by any of these checks.
    expect(writes()).toEqual(calls);
    const audits = await bed.handle.db.select().from(auditEvents).where(eq(auditEvents.entityId, "payment:desk-check-missing")).orderBy(auditEvents.id);
    expect(audits.map((a) => a.action)).toEqual(["sitelink_write.retry_started", "sitelink_write.retried"]);
    expect(audits[1]).toMatchObject({ staffId: staff.manager.staffId, changes: { state: { before: "unknown", after: "failed" } } });
  });

  it("a move-out date and a contact change are read back from the tenant's records", async () => {
    const m = await movedIn();
    const storage = storageFor(bed.handle.db, bed.lumberton);
    await storage.giveMoveOutNotice({ tenantId: m.tenantId, leaseId: m.leaseId, moveOutDate: "2027-01-31", reason: null, now: NOW });
    const moveOutKey = `moveout:${m.ledgerId}:2027-01-31`;
    expect((await journalRow(moveOutKey)).state).toBe("done");
    await lostAnswer(moveOutKey, "ScheduleMoveOut", {});
    const calls = writes();
    expect((await retry(moveOutKey)).message).toMatch(/shows the move-out date 2027-01-31/);
    expect((await journalRow(moveOutKey)).state).toBe("done");
    const neverKey = `moveout:${m.ledgerId}:2027-03-31`;
    await lostAnswer(neverKey, "ScheduleMoveOut", {});
    expect((await retry(neverKey)).message).toMatch(/does not show the move-out date 2027-03-31/);
    expect((await journalRow(neverKey)).state).toBe("failed");

    // Contact: the record read back shows the first name as it is (applied), not a name never sent (not applied).
    const rental = (await bed.handle.db.query.rentals.findFirst({ where: eq(rentals.id, rentalId) }))!;
    const firstName = String((rental.tenantDetails as Record<string, unknown>).first_name);
    const shownKey = `contact:${m.siteLinkTenantId}:desk-check-shown`;
    await lostAnswer(shownKey, "TenantUpdate_v3", { tenantId: m.siteLinkTenantId, purpose: "contact", fields: JSON.stringify({ sFName: firstName }) });
    expect((await retry(shownKey)).message).toMatch(/shows the change/);
    expect((await journalRow(shownKey)).state).toBe("done");
    const notKey = `contact:${m.siteLinkTenantId}:desk-check-not`;
    await lostAnswer(notKey, "TenantUpdate_v3", { tenantId: m.siteLinkTenantId, purpose: "contact", fields: JSON.stringify({ sFName: "Zebedee" }) });
    expect((await retry(notKey)).message).toMatch(/does not show the change/);
    expect((await journalRow(notKey)).state).toBe("failed");

    // The online rental's tenant: found by the rental's e-mail and note.
    const tenantKey = `tenant:${rentalId}`;
    expect((await journalRow(tenantKey)).state).toBe("done");
    await lostAnswer(tenantKey, "TenantNewDetailed_v3", {});
    expect((await retry(tenantKey)).message).toContain(`SiteLink has the tenant (TenantID ${m.siteLinkTenantId})`);
    expect((await journalRow(tenantKey)).state).toBe("done");

    // Autopay: the rental did not turn it on, so "off" is shown and "on" is not.
    const offKey = `autopay:${m.ledgerId}:1700000000000:0:0a0b0c0d`;
    await lostAnswer(offKey, "TenantBillingInfoUpdate_v2", {});
    expect((await retry(offKey)).message).toMatch(/shows autopay off/);
    const onKey = `autopay:${m.ledgerId}:1700000000001:1:0a0b0c0e`;
    await lostAnswer(onKey, "TenantBillingInfoUpdate_v2", {});
    expect((await retry(onKey)).message).toMatch(/does not show autopay on/);
    expect((await journalRow(onKey)).state).toBe("failed");
    expect(writes()).toEqual(calls);
  });

  it("a kind that cannot be checked says so on its row and offers only mark resolved; SiteLink unreachable changes nothing", async () => {
    await lostAnswer("reservation-tenant:desk-check", "TenantNewDetailed_v3", {});
    await lostAnswer("payment:autopay:1:2026-12-01", "PaymentSimpleWithSource", {});
    const rows = ((await list(staff.manager)).data as { rows: Array<{ key: string; actions: { retry: boolean; resolve: boolean }; noCheck: string | null; kind: string }> }).rows;
    const resTenant = rows.find((r) => r.key === "reservation-tenant:desk-check")!;
    expect(resTenant.actions).toEqual({ retry: false, resolve: true });
    expect(resTenant.noCheck).toMatch(/cannot be checked against SiteLink from here/);
    expect(resTenant.kind).toBe("New tenant (reservation)");
    expect(rows.find((r) => r.key === "payment:autopay:1:2026-12-01")!.noCheck).toMatch(/billing run/);
    const html = await renderPage(AdminSiteLinkJournal as never, { pattern: "/admin/sitelink-journal", url: "/admin/sitelink-journal", loaderData: (await list(staff.manager)).data });
    expect(html).toContain("cannot be checked against SiteLink from here");
    const refused = await retry("reservation-tenant:desk-check");
    expect(refused.message).toMatch(/cannot be checked against SiteLink from here/);
    expect((await journalRow("reservation-tenant:desk-check")).state).toBe("unknown");

    // SiteLink cannot be read: a clear message, the row as it was.
    const m = await movedIn();
    const key = `moveout:${m.ledgerId}:2027-05-31`;
    await lostAnswer(key, "ScheduleMoveOut", {});
    bed.sim.control.addFault({ operation: "LedgersByTenantID_v3", kind: "http_503", times: 5 });
    try {
      const r = await post(staff.manager, { intent: "retry", key });
      expect(r.status).toBe(200);
      expect((r.data as { message: string }).message).toMatch(/could not be reached. Nothing was sent again/);
    } finally {
      bed.sim.control.clearFaults();
    }
    expect((await journalRow(key)).state).toBe("unknown");
    // A Jacksonville manager's check of a Lumberton row: 404.
    expect((await post(staff.jaxManager, { intent: "retry", key })).status).toBe(404);
  });
});
