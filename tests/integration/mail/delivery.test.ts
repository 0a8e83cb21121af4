import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, emailOutbox, leases } from "~/db/schema";
import { deliverPendingEmails, readOutboxMail, sendEmail } from "~/services/mail/outbox.server";
import { runHousekeeping } from "~/services/jobs/housekeeping.server";
import { placeMoveIn } from "~/services/rental/move-in.server";
import { getRental } from "~/services/rental/record.server";
import { reserveUnit } from "~/services/rental/reservation.server";
import { requestPasswordReset } from "~/services/portal/sign-in-limits.server";
import { accountStorage, portalLocations } from "~/services/portal/context.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTestDatabase } from "../support/db";
import { card, ctxFor, lumbertonUnitType, NOW, signedRental } from "../support/rental-fixtures";
import { type TestSmtpServer, useSmtpServer } from "../support/smtp-server";

// Issue 14 (mail through outages) and issue 8 (secrets in the outbox), with a real SMTP exchange.
const MIN = 60_000;
const DAY = 24 * 60 * MIN;

const server = useSmtpServer();
let smtp: TestSmtpServer;
let handle: DatabaseHandle;
beforeEach(async () => {
  smtp = server.current();
  handle = await createTestDatabase();
});
afterEach(() => handle.close());

/** Failed attempts are logged as warnings: expected here. */
const expectWarnings = () => vi.spyOn(console, "warn").mockImplementation(() => {});
const outboxRow = async (id: number) => (await handle.db.select().from(emailOutbox).where(eq(emailOutbox.id, id)))[0]!;

describe("mail through an SMTP outage", () => {
  it("SMTP down: the rental completes and its mail is kept; SMTP back: the retry job sends it once, with backoff", async () => {
    const warnings = expectWarnings();
    const { db } = handle;
    await smtp.down();
    const { unitTypeId } = await lumbertonUnitType(db);
    const { id, details } = await signedRental(db, unitTypeId);
    const ctx = await ctxFor(db, unitTypeId);
    const result = await placeMoveIn(db, ctx, (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin: "http://localhost" });
    expect(result).toMatchObject({ status: "completed", created: true });
    const lease = (await db.query.leases.findFirst({ where: eq(leases.id, Number((result as { leaseId: string }).leaseId)) }))!;

    const [mail] = await db.select().from(emailOutbox).where(eq(emailOutbox.to, details.email));
    expect(mail).toMatchObject({ sentAt: null, failedAt: null, attempts: 1, claimedUntil: null });
    expect(mail!.error).toMatch(/ECONNREFUSED|connect/i);
    // Kept until sent, sealed (decision 198): not in the row, only in what is sent.
    expect(JSON.stringify(mail)).not.toContain(lease.gateCode);
    expect(readOutboxMail(mail!).text).toContain(lease.gateCode);
    const t0 = mail!.nextAttemptAt.getTime() - 1 * MIN; // first retry one minute after the failure

    // Not due yet: nothing is tried.
    expect(await deliverPendingEmails(db, () => new Date(t0 + 30_000))).toEqual({ sent: 0, failed: 0 });
    // Due, SMTP still down: second attempt fails, next one 2 minutes later.
    expect(await deliverPendingEmails(db, () => new Date(t0 + 1 * MIN))).toEqual({ sent: 0, failed: 1 });
    const second = await outboxRow(mail!.id);
    expect(second.attempts).toBe(2);
    expect(second.nextAttemptAt.getTime()).toBe(t0 + 3 * MIN);

    await smtp.up();
    expect(await deliverPendingEmails(db, () => new Date(t0 + 2 * MIN))).toEqual({ sent: 0, failed: 0 });
    expect(await deliverPendingEmails(db, () => new Date(t0 + 3 * MIN))).toEqual({ sent: 1, failed: 0 });
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]!.to).toEqual([`RCPT TO:<${details.email}>`]);
    expect(smtp.received[0]!.data).toContain(lease.gateCode);
    // Never twice.
    expect(await deliverPendingEmails(db, () => new Date(t0 + 2 * 60 * MIN))).toEqual({ sent: 0, failed: 0 });
    expect(smtp.received).toHaveLength(1);
    expect((await outboxRow(mail!.id)).sentAt).toBeInstanceOf(Date);
    expect(warnings).toHaveBeenCalled();
  });

  it("two retry runs at once send each message once", async () => {
    expectWarnings();
    await smtp.down();
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await sendEmail(handle.db, { to: `t${i}@example.com`, subject: `Mail ${i}`, text: `Body ${i}` })).id);
    await smtp.up();
    const at = new Date(Date.now() + 2 * MIN);
    const [a, b] = await Promise.all([deliverPendingEmails(handle.db, () => at), deliverPendingEmails(handle.db, () => at)]);
    expect(a.sent + b.sent).toBe(5);
    expect(a.failed + b.failed).toBe(0);
    expect(smtp.received).toHaveLength(5);
    expect(new Set(smtp.received.map((m) => m.to[0])).size).toBe(5);
    for (const id of ids) expect((await outboxRow(id)).sentAt).toBeInstanceOf(Date);
  });

  it("a run longer than the claim takes the clock for each claim: no claim is written already expired", async () => {
    expectWarnings();
    await smtp.down();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await sendEmail(handle.db, { to: `slow${i}@example.com`, subject: `Slow ${i}`, text: `Body ${i}` })).id);
    await smtp.up();
    // The clock moves ten minutes per claim (twice CLAIM_MS): a slow SMTP server, a long queue.
    const start = Date.now() + 2 * MIN;
    const claimedAt: number[] = [];
    let reads = 0;
    const clock = () => {
      const t = new Date(start + reads++ * 10 * MIN);
      claimedAt.push(t.getTime());
      return t;
    };
    expect(await deliverPendingEmails(handle.db, clock, { limit: 3 })).toEqual({ sent: 3, failed: 0 });
    const sentAt = (await Promise.all(ids.map(outboxRow))).map((r) => r.sentAt!.getTime());
    expect(sentAt).toHaveLength(3);
    // One clock reading per claim: the third message was claimed twenty minutes after the first.
    expect(claimedAt.slice(0, 3)).toEqual([start, start + 10 * MIN, start + 20 * MIN]);
  });

  it("two servers on one database: a second connection's run does not send what the first claimed", async () => {
    // A sender that claimed a row (sendEmail in another process) holds it until its claim runs out.
    const at = new Date();
    const [row] = await handle.db
      .insert(emailOutbox)
      .values({ to: "held@example.com", subject: "Held", text: "T", attempts: 1, nextAttemptAt: new Date(at.getTime() - MIN), claimedUntil: new Date(at.getTime() + 5 * MIN) })
      .returning();
    expect(await deliverPendingEmails(handle.db, () => at)).toEqual({ sent: 0, failed: 0 });
    expect(smtp.received).toHaveLength(0);
    // The claim ran out (the other process died before sending): the row is sent.
    expect(await deliverPendingEmails(handle.db, () => new Date(at.getTime() + 6 * MIN))).toEqual({ sent: 1, failed: 0 });
    expect((await outboxRow(row!.id)).attempts).toBe(2);
  });

  it("a message still unsent after two days is given up: flagged, redacted, never sent", async () => {
    const now = new Date();
    const [row] = await handle.db
      .insert(emailOutbox)
      .values({ to: "late@example.com", subject: "Late", text: "Your code 123456", secrets: ["123456"], attempts: 40, createdAt: new Date(now.getTime() - 2 * DAY - MIN), nextAttemptAt: new Date(now.getTime() - MIN) })
      .returning();
    expect(await deliverPendingEmails(handle.db, () => now)).toEqual({ sent: 0, failed: 1 });
    expect(smtp.received).toHaveLength(0);
    const after = await outboxRow(row!.id);
    expect(after.failedAt).toBeInstanceOf(Date);
    expect(after.sentAt).toBeNull();
    expect(after.text).toBe("Your code [redacted]");
    expect(after.secrets).toBeNull();
  });
});

describe("secrets in the outbox", () => {
  it("after sending, no gate code, lease link, reservation cancel link or reset token remains in the table", async () => {
    const { db } = handle;
    const origin = "http://localhost";
    // Rental: gate code and lease link.
    const { unitTypeId } = await lumbertonUnitType(db);
    const { id } = await signedRental(db, unitTypeId);
    const ctx = await ctxFor(db, unitTypeId);
    const result = await placeMoveIn(db, ctx, (await getRental(db, id, unitTypeId))!, { payment: { kind: "card", card: card() }, autopay: false, now: NOW, origin });
    const leaseId = (result as { leaseId: string }).leaseId;
    const lease = (await db.query.leases.findFirst({ where: eq(leases.id, Number(leaseId)) }))!;
    // Reservation: cancel link.
    await db.update(accounts).set({ globalSettings: sql`${accounts.globalSettings} || '{"is_reservations_enabled": true}'::jsonb` });
    const rctx = await ctxFor(db, unitTypeId);
    const form = { first_name: "Grace", last_name: "Hopper", email: "grace.secret@example.com", phone: "9105550199", desired_move_in_date: "2026-11-23" };
    const { cancelToken } = await reserveUnit(db, rctx, { form, idempotencyKey: "secrets-1", now: NOW, origin });
    // Password reset: token.
    await createTenantWithLease(db, { email: "reset.secret@example.com", password: "secret1", now: NOW });
    const [account] = await db.select({ id: accounts.id }).from(accounts);
    const { storage } = accountStorage(db, await portalLocations(db, account!.id));
    expect((await requestPasswordReset(db, storage, { email: "reset.secret@example.com", ip: "10.8.0.1", origin, now: NOW, siteName: "Gatehouse" })).sent).toBe(true);

    expect(smtp.received).toHaveLength(3);
    const resetToken = /token=([A-Za-z0-9_-]+)/.exec(smtp.received[2]!.data)![1]!;
    // The lease link as mailed (its expiry is the second the mail was built, not this test's).
    const leaseToken = new RegExp(`/rent/lease/${leaseId}\\?token=3D([0-9]+\\.[A-Za-z0-9_-]+)`).exec(smtp.received[0]!.data.replace(/=\r\n/g, ""))![1]!;
    // What went out carried the secrets ...
    const wire = smtp.received.map((m) => m.data.replace(/=\r\n/g, "")).join("\n");
    for (const secret of [lease.gateCode, leaseToken, resetToken]) expect(wire).toContain(secret);
    // ... the outbox keeps who, what and when, without them.
    const rows = await db.select().from(emailOutbox);
    expect(rows).toHaveLength(3);
    const stored = JSON.stringify(rows);
    for (const secret of [lease.gateCode, leaseToken, encodeURIComponent(cancelToken!), cancelToken!, resetToken]) {
      expect(stored).not.toContain(secret);
    }
    for (const row of rows) {
      expect(row.sentAt).toBeInstanceOf(Date);
      expect(row.secrets).toBeNull();
      expect(row.text).toContain("[redacted]");
      expect(row.to).toContain("@");
    }
  });

  it("unsent mail keeps its secrets sealed: not in the row, sent intact, redacted once sent or given up (decision 198)", async () => {
    expectWarnings();
    await smtp.down();
    const link = "https://www.example.com/customer-portal/reset-password?token=Tok3n-xyz_0123456789";
    const a = await sendEmail(handle.db, { to: "sealed@example.com", subject: "Reset", text: `Reset: ${link}\nGate code 4821#`, html: `<a href="${link}">Reset</a> <b>4821#</b>`, secrets: [link, "Tok3n-xyz_0123456789", "4821#"] });
    const b = await sendEmail(handle.db, { to: "sealed2@example.com", subject: "Gate", text: "Gate code 7733#", secrets: ["7733#"] });
    for (const id of [a.id, b.id]) {
      const row = await outboxRow(id);
      const stored = JSON.stringify(row);
      for (const secret of ["Tok3n-xyz_0123456789", "4821#", "7733#", "reset-password?token"]) expect(stored).not.toContain(secret);
      expect(row.secrets).toMatchObject({ sealed: expect.stringMatching(/^v1\./) });
    }
    expect(readOutboxMail(await outboxRow(a.id))).toEqual({ text: `Reset: ${link}\nGate code 4821#`, html: `<a href="${link}">Reset</a> <b>4821#</b>`, headers: null });
    // Sent intact once SMTP is back; then the row says "[redacted]".
    await smtp.up();
    expect(await deliverPendingEmails(handle.db, () => new Date(Date.now() + 2 * MIN))).toEqual({ sent: 2, failed: 0 });
    const wire = smtp.received.map((m) => m.data.replace(/=\r\n/g, "")).join("\n");
    for (const secret of ["Tok3n-xyz_0123456789", "4821#", "7733#"]) expect(wire).toContain(secret);
    expect((await outboxRow(a.id)).text).toBe("Reset: [redacted]\nGate code [redacted]");
    expect((await outboxRow(a.id)).secrets).toBeNull();
  });

  it("a sealed mail whose secret was changed since is given up, never sent with placeholders", async () => {
    expectWarnings();
    await smtp.down();
    const { id } = await sendEmail(handle.db, { to: "rotated@example.com", subject: "Gate", text: "Gate code 5511#", secrets: ["5511#"] });
    await smtp.up();
    // As if sealed under a secret no longer configured.
    const { seal } = await import("~/platform/sealed-box.server");
    await handle.db
      .update(emailOutbox)
      .set({ secrets: { sealed: seal(JSON.stringify({ tag: "x", secrets: ["5511#"] }), ["a-removed-secret-0123456789abcdef"], "email-outbox-secrets") } })
      .where(eq(emailOutbox.id, id));
    expect(await deliverPendingEmails(handle.db, () => new Date(Date.now() + 2 * MIN))).toEqual({ sent: 0, failed: 1 });
    expect(smtp.received).toHaveLength(0);
    expect(await outboxRow(id)).toMatchObject({ text: "Gate code [redacted]", secrets: null, sentAt: null });
  });

  it("housekeeping gives up mail unsent for two days (redacted) and deletes sent mail after 30 days and failed after 90", async () => {
    const now = new Date();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const rows = await handle.db
      .insert(emailOutbox)
      .values([
        { to: "a@example.com", subject: "sent 31 days ago", text: "x", sentAt: ago(31 * DAY), createdAt: ago(31 * DAY) },
        { to: "b@example.com", subject: "sent 29 days ago", text: "x", sentAt: ago(29 * DAY), createdAt: ago(29 * DAY) },
        { to: "c@example.com", subject: "failed 91 days ago", text: "x", failedAt: ago(91 * DAY), createdAt: ago(93 * DAY) },
        { to: "d@example.com", subject: "failed 89 days ago", text: "x", failedAt: ago(89 * DAY), createdAt: ago(91 * DAY) },
        { to: "e@example.com", subject: "unsent 3 days", text: "code 998877", secrets: ["998877"], createdAt: ago(3 * DAY) },
        { to: "f@example.com", subject: "unsent 1 hour", text: "code 112233", secrets: ["112233"], createdAt: ago(60 * MIN) },
      ])
      .returning({ id: emailOutbox.id, subject: emailOutbox.subject });
    // The server's housekeeping job (every 5 minutes) runs pruneOutbox.
    expect(await runHousekeeping(handle.db, now)).toMatchObject({ emailsGivenUp: 1, emailsDeleted: 2 });
    const left = await handle.db.select().from(emailOutbox);
    expect(left.map((r) => r.subject).sort()).toEqual(["failed 89 days ago", "sent 29 days ago", "unsent 1 hour", "unsent 3 days"]);
    const givenUp = left.find((r) => r.subject === "unsent 3 days")!;
    expect(givenUp).toMatchObject({ text: "code [redacted]", secrets: null, sentAt: null });
    expect(givenUp.failedAt).toBeInstanceOf(Date);
    // Recent unsent mail keeps its body (tests and the office read it) until sent or given up.
    expect(left.find((r) => r.subject === "unsent 1 hour")!.text).toBe("code 112233");
    expect(rows).toHaveLength(6);
  });
});
