/**
 * Issue 23: the back office's staff accounts — invitations (the command's two paths), two-factor
 * sign-in (password, TOTP, reuse refused, recovery codes once, guess limits per account and per
 * address), sessions (idle and 12-hour expiry, disabled members), the console layout's middleware,
 * a 403 and a 404, staff management with its audit rows, and the append-only audit trail.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { and, desc, eq, like, sql } from "drizzle-orm";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { auditEvents, emailOutbox, locations, rateLimitHits, staffMembers, staffSessions } from "~/db/schema";
import { PASSWORD_BUSY_MESSAGE } from "~/services/web/form-outage.server";
import { STAFF_SESSION_IDLE_MS, STAFF_SESSION_MAX_MS } from "~/domain/staff/roles";
import { acceptInvite, readInvite, staffCodeStep, staffPasswordStep, totpEnrolment } from "~/services/staff/auth.server";
import { changeStaffAccess, endMemberSessions, inviteStaff, setStaffDisabled } from "~/services/staff/admin.server";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { announceStaffCommand, answerStaffCommand, commandRequestAllowed, inviteByCommand, inviteThroughServer } from "~/services/staff/command.server";
import { getStaffSession, loadSignedInStaff } from "~/services/staff/session.server";
import type { SignedInStaff } from "~/services/staff/context.server";
import { loader as staffLoader } from "~/routes/staff/members";
import { loader as notFoundLoader } from "~/routes/console/not-found";
import { loader as homeLoader } from "~/routes/console/home";
import { loader as auditCsvLoader } from "~/routes/audit/trail[.]csv";
import { loader as auditLoader } from "~/routes/audit/trail";
import { auditTimeZone } from "~/services/audit/trail.server";
import { recordAudit } from "~/services/audit/events.server";
import { localDate } from "~/domain/shared/calendar";
import { createTestDatabase } from "../support/db";
import { busyPasswordThreads, ownPasswordThreads } from "../support/password-threads";
import { callLayouts, callRoute } from "../support/route-helpers";

let handle: DatabaseHandle;
let accountId: number;
let locationIds: number[];
let seq = 0;
const T0 = new Date("2026-11-20T10:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const code = (secret: string, when: Date) => generate({ secret, epoch: Math.floor(when.getTime() / 1000) });
const cookiePair = (setCookie: string) => setCookie.split(";")[0]!;
const req = (cookie?: string) => new Request("http://localhost/admin", { headers: cookie ? { Cookie: cookie } : {} });

beforeAll(async () => {
  handle = await createTestDatabase();
  const website = await getWebsite(handle.db);
  accountId = website!.accountId;
  locationIds = (await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId)).orderBy(locations.id)).map((r) => r.id);
});
afterAll(() => handle?.close());

/** A member invited by command and enrolled through the invitation: their TOTP secret and recovery codes. */
async function enrolledMember(role = "owner", locs: number[] = [], when: Date = T0) {
  const email = `staff-${++seq}-${Date.now()}@example.com`;
  const invited = await inviteByCommand(handle.db, { email, role, locationIds: locs }, when);
  if (!invited.ok || !("link" in invited)) throw new Error(`invite failed: ${JSON.stringify(invited)}`);
  const token = invited.link.split("/admin/invite/")[1]!;
  const invite = await readInvite(handle.db, token, when);
  if (invite.state !== "open") throw new Error("invite not open");
  const enrol = await totpEnrolment({ inviteId: invite.inviteId, email, issuer: "Test" });
  const accepted = await acceptInvite(handle.db, { accountId, token, name: `Member ${seq}`, password: "Blue-Heron-42", sealedSecret: enrol.sealed, code: await code(enrol.secret, when), ip: "10.0.0.1", now: when });
  if (!accepted.ok) throw new Error(`accept failed: ${JSON.stringify(accepted)}`);
  return { email, secret: enrol.secret, recoveryCodes: accepted.recoveryCodes, staffId: invite.staffId, token, fullCookie: cookiePair(accepted.cookie) };
}

async function passwordOnly(email: string, now: Date, ip = "10.0.0.2") {
  const r = await staffPasswordStep(handle.db, { accountId, email, password: "Blue-Heron-42", ip, now });
  if (!r.ok) throw new Error(r.message);
  const cookie = cookiePair(r.cookie);
  const session = await getStaffSession(handle.db, req(cookie), now);
  return { cookie, session: session! };
}

async function lastAudit(action: string) {
  const [row] = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.accountId, accountId), eq(auditEvents.action, action))).orderBy(desc(auditEvents.id)).limit(1);
  return row;
}

async function signedIn(cookie: string, now: Date): Promise<SignedInStaff> {
  const s = await loadSignedInStaff(handle.db, req(cookie), { accountId, now, ip: "10.0.0.9" });
  if (!s) throw new Error("not signed in");
  return s;
}

describe("invitations", () => {
  it("the command invites directly (no server) and the link works once, for 24 hours", async () => {
    const m = await enrolledMember();
    expect(await readInvite(handle.db, m.token, T0)).toEqual({ state: "used" });
    const other = await inviteByCommand(handle.db, { email: `late-${Date.now()}@example.com`, role: "owner", locationIds: [] }, T0);
    expect(other.ok).toBe(true);
    const token = (other as { link: string }).link.split("/admin/invite/")[1]!;
    expect((await readInvite(handle.db, token, at(24 * 3600_000 - 1000))).state).toBe("open");
    expect((await readInvite(handle.db, token, at(24 * 3600_000 + 1000))).state).toBe("expired");
    const row = await lastAudit("staff.invited");
    expect(row?.actor).toBe("command line");
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it("refuses a non-owner without locations, and an already enrolled e-mail", async () => {
    expect(await inviteByCommand(handle.db, { email: `desk-${Date.now()}@example.com`, role: "front_desk", locationIds: [] }, T0)).toMatchObject({ ok: false, errors: { locations: expect.any(String) } });
    const m = await enrolledMember();
    expect(await inviteByCommand(handle.db, { email: m.email, role: "owner", locationIds: [] }, T0)).toMatchObject({ ok: false, errors: { email: expect.any(String) } });
  });

  it("a wrong first code saves nothing", async () => {
    const email = `wrongcode-${Date.now()}@example.com`;
    const invited = (await inviteByCommand(handle.db, { email, role: "owner", locationIds: [] }, T0)) as { link: string };
    const token = invited.link.split("/admin/invite/")[1]!;
    const invite = await readInvite(handle.db, token, T0);
    const enrol = await totpEnrolment({ inviteId: (invite as { inviteId: number }).inviteId, email, issuer: "Test" });
    const wrong = (Number(await code(enrol.secret, T0)) + 1) % 1_000_000;
    const r = await acceptInvite(handle.db, { accountId, token, name: "X", password: "Blue-Heron-42", sealedSecret: enrol.sealed, code: String(wrong).padStart(6, "0"), ip: "10.0.0.1", now: T0 });
    expect(r).toMatchObject({ ok: false, reason: "code" });
    expect((await readInvite(handle.db, token, T0)).state).toBe("open");
    const member = await handle.db.query.staffMembers.findFirst({ where: eq(staffMembers.email, email) });
    expect(member?.passwordHash).toBeNull();
  });

  // Issue 36, finding 4: staff had the tenants' 6-20 rule ("Gate42" was accepted).
  it.each([
    ["Gate42", "Your password must be at least 12 characters."],
    ["Kettle-".repeat(19), "Your password can be at most 128 characters."],
    ["Rosalind-Harbour-9", "Your password must not contain your name"],
    ["wrongpass-Lights-9", "Your password must not contain your name"],
    ["password1234", "This password is too common"],
  ])("accepting an invitation refuses the password %j and saves nothing, even with the right code", async (password, message) => {
    const email = `wrongpass-${Date.now()}@example.com`;
    const invited = (await inviteByCommand(handle.db, { email, role: "owner", locationIds: [] }, T0)) as { link: string };
    const token = invited.link.split("/admin/invite/")[1]!;
    const invite = await readInvite(handle.db, token, T0);
    const enrol = await totpEnrolment({ inviteId: (invite as { inviteId: number }).inviteId, email, issuer: "Test" });
    const r = await acceptInvite(handle.db, { accountId, token, name: "Rosalind Ferry", password, sealedSecret: enrol.sealed, code: await code(enrol.secret, T0), ip: "10.0.0.1", now: T0 });
    expect(r).toMatchObject({ ok: false, reason: "password", message: expect.stringContaining(message) });
    expect((await readInvite(handle.db, token, T0)).state).toBe("open");
    const member = await handle.db.query.staffMembers.findFirst({ where: eq(staffMembers.email, email) });
    expect(member?.passwordHash).toBeNull();
  });

  it("the command asks the running server through its local endpoint (secret, loopback, no proxy headers)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "staff-cmd-"));
    const file = path.join(dir, "pglite.staff-command.json");
    const server = http.createServer((rq, rs) => {
      if (!commandRequestAllowed({ remoteAddress: rq.socket.remoteAddress, headers: rq.headers, secret })) {
        rs.writeHead(404).end("{}");
        return;
      }
      void answerStaffCommand(handle.db, rq, rs);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const secret = announceStaffCommand(file, port);
    try {
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const email = `via-server-${Date.now()}@example.com`;
      const answer = await inviteThroughServer(file, { email, role: "manager", locationIds: [locationIds[0]!] });
      expect(answer?.status).toBe(200);
      expect((answer?.body as { link: string }).link).toMatch(/\/admin\/invite\/[A-Za-z0-9_-]{40,}$/);
      expect(await handle.db.query.staffMembers.findFirst({ where: eq(staffMembers.email, email) })).toMatchObject({ role: "manager" });
      // Without the secret, or relayed by a proxy: as if the endpoint did not exist.
      const bad = await fetch(`http://127.0.0.1:${port}/__staff/invite`, { method: "POST", headers: { Authorization: "Bearer wrong" }, body: "{}" });
      expect(bad.status).toBe(404);
      const proxied = await fetch(`http://127.0.0.1:${port}/__staff/invite`, { method: "POST", headers: { Authorization: `Bearer ${secret}`, "X-Forwarded-For": "203.0.113.5" }, body: "{}" });
      expect(proxied.status).toBe(404);
    } finally {
      await new Promise((r) => server.close(r));
    }
    // No server running (its port closed): the command falls back to the database itself.
    expect(await inviteThroughServer(file, { email: "x@example.com", role: "owner", locationIds: [] })).toBeNull();
    expect(await inviteThroughServer(path.join(dir, "none.json"), { email: "x@example.com", role: "owner", locationIds: [] })).toBeNull();
  });
});

describe("an owner's invitation from the console", () => {
  it("is e-mailed through the outbox (the link sealed until sent), and the link never enters the audit trail", async () => {
    const owner = await enrolledMember();
    const by = await signedIn(owner.fullCookie, at(1000));
    const email = `invitee-${Date.now()}@example.com`;
    const r = await inviteStaff(handle.db, { accountId, email, role: "front_desk", locationIds: [locationIds[0]!], origin: "https://www.example.com", now: at(2000), by });
    if (!r.ok) throw new Error(JSON.stringify(r));
    expect(r.outboxId).not.toBeNull();
    const [mail] = await handle.db.select().from(emailOutbox).where(eq(emailOutbox.id, r.outboxId!));
    expect(mail).toMatchObject({ to: email });
    expect(readOutboxMail(mail!).text).toContain(r.link);
    const token = r.link.split("/admin/invite/")[1]!;
    expect(mail!.text).not.toContain(token);
    const audit = await lastAudit("staff.invited");
    expect(audit).toMatchObject({ staffId: owner.staffId, entityId: String(r.staffId), detail: { outboxId: r.outboxId } });
    expect(JSON.stringify(audit)).not.toContain(token);
    // The link in the e-mail opens the invitation.
    expect(await readInvite(handle.db, token, at(3000))).toMatchObject({ state: "open" });
    // The command prints its link and e-mails nothing.
    const byCommand = await inviteByCommand(handle.db, { email: `cmd-${Date.now()}@example.com`, role: "owner", locationIds: [] }, at(4000));
    expect(byCommand.ok).toBe(true);
    expect((await handle.db.select().from(emailOutbox).where(sql`${emailOutbox.to} like 'cmd-%'`))).toHaveLength(0);
  });
});

describe("two-factor sign-in", () => {
  it("password then TOTP; the same code is refused the second time; every step audited without secrets", async () => {
    const m = await enrolledMember();
    const now = at(120_000);
    const wrong = await staffPasswordStep(handle.db, { accountId, email: m.email, password: "not-it-at-all", ip: "10.0.0.2", now });
    expect(wrong).toMatchObject({ ok: false, limited: false });
    const failed = await lastAudit("staff.sign_in_failed");
    expect(failed).toMatchObject({ actor: m.email, ip: "10.0.0.2", detail: { step: "password", reason: "wrong password" } });
    expect(JSON.stringify(failed)).not.toContain("not-it-at-all");

    const { cookie, session } = await passwordOnly(m.email, now);
    expect(session.passwordOnly).toBe(true);
    // A password-only session opens nothing in the console.
    expect(await loadSignedInStaff(handle.db, req(cookie), { accountId, now, ip: null })).toBeNull();
    const layouts = await callLayouts(handle.db, "/admin/staff", { init: { headers: { Cookie: cookie } } });
    expect(layouts.pageRan).toBe(false);
    expect(layouts.result?.headers.get("Location")).toBe("/admin/sign-in?next=%2Fadmin%2Fstaff");

    const totp = await code(m.secret, now);
    const ok = await staffCodeStep(handle.db, { accountId, sessionHash: session.sessionHash, staffId: m.staffId, code: totp, ip: "10.0.0.2", now });
    expect(ok).toMatchObject({ ok: true, method: "totp" });
    const full = cookiePair((ok as { cookie: string }).cookie);
    expect((await signedIn(full, now)).email).toBe(m.email);
    // The password-only session is gone.
    expect(await handle.db.query.staffSessions.findFirst({ where: eq(staffSessions.id, session.sessionHash) })).toBeUndefined();
    const signIn = await lastAudit("staff.sign_in");
    expect(signIn).toMatchObject({ actor: m.email, staffId: m.staffId, detail: { method: "totp" } });
    expect(JSON.stringify(signIn)).not.toContain(totp);

    // The same code again (still within its window): refused.
    const again = await passwordOnly(m.email, now);
    const reuse = await staffCodeStep(handle.db, { accountId, sessionHash: again.session.sessionHash, staffId: m.staffId, code: totp, ip: "10.0.0.2", now });
    expect(reuse).toMatchObject({ ok: false, limited: false });
    // The next time step's code works.
    const later = at(150_000);
    expect(await staffCodeStep(handle.db, { accountId, sessionHash: again.session.sessionHash, staffId: m.staffId, code: await code(m.secret, later), ip: "10.0.0.2", now: later })).toMatchObject({ ok: true });
  });

  it("a recovery code works once", async () => {
    const m = await enrolledMember();
    expect(m.recoveryCodes).toHaveLength(10);
    const now = at(60_000);
    const first = await passwordOnly(m.email, now);
    expect(await staffCodeStep(handle.db, { accountId, sessionHash: first.session.sessionHash, staffId: m.staffId, code: m.recoveryCodes[3]!.toUpperCase(), ip: "10.0.0.3", now })).toMatchObject({ ok: true, method: "recovery_code", remainingRecoveryCodes: 9 });
    const second = await passwordOnly(m.email, now);
    expect(await staffCodeStep(handle.db, { accountId, sessionHash: second.session.sessionHash, staffId: m.staffId, code: m.recoveryCodes[3]!, ip: "10.0.0.3", now })).toMatchObject({ ok: false });
  });

  it("code guesses are limited per account: past five, even the right code is refused", async () => {
    const m = await enrolledMember();
    const now = at(60_000);
    const { session } = await passwordOnly(m.email, now, "10.1.0.1");
    for (let i = 0; i < 5; i++) {
      expect(await staffCodeStep(handle.db, { accountId, sessionHash: session.sessionHash, staffId: m.staffId, code: "000000", ip: `10.1.0.${i + 1}`, now })).toMatchObject({ ok: false, limited: false });
    }
    const right = await staffCodeStep(handle.db, { accountId, sessionHash: session.sessionHash, staffId: m.staffId, code: await code(m.secret, now), ip: "10.1.0.9", now });
    expect(right).toMatchObject({ ok: false, limited: true });
    expect(await lastAudit("staff.sign_in_failed")).toMatchObject({ detail: { step: "code", reason: "too many attempts" } });
  });

  it("code guesses are limited per address across accounts", async () => {
    const members = [];
    for (let i = 0; i < 6; i++) members.push(await enrolledMember());
    const now = at(60_000);
    const ip = "10.2.0.1";
    let guesses = 0;
    for (const m of members.slice(0, 5)) {
      const { session } = await passwordOnly(m.email, now, "10.2.9.9");
      for (let i = 0; i < 4; i++, guesses++) await staffCodeStep(handle.db, { accountId, sessionHash: session.sessionHash, staffId: m.staffId, code: "000000", ip, now });
    }
    expect(guesses).toBe(20);
    const last = members[5]!;
    const { session } = await passwordOnly(last.email, now, "10.2.9.9");
    expect(await staffCodeStep(handle.db, { accountId, sessionHash: session.sessionHash, staffId: last.staffId, code: await code(last.secret, now), ip, now })).toMatchObject({ ok: false, limited: true });
  });

  it("password guesses are limited per account and per address", async () => {
    const m = await enrolledMember();
    const now = at(60_000);
    for (let i = 0; i < 5; i++) await staffPasswordStep(handle.db, { accountId, email: m.email, password: "wrong-one", ip: `10.3.0.${i}`, now });
    expect(await staffPasswordStep(handle.db, { accountId, email: m.email, password: "Blue-Heron-42", ip: "10.3.1.1", now })).toMatchObject({ ok: false, limited: true });
    const ip = "10.4.0.1";
    for (let i = 0; i < 20; i++) await staffPasswordStep(handle.db, { accountId, email: `nobody-${i}@example.com`, password: "x", ip, now });
    const n = await enrolledMember();
    expect(await staffPasswordStep(handle.db, { accountId, email: n.email, password: "Blue-Heron-42", ip, now })).toMatchObject({ ok: false, limited: true });
  });
});

describe("sessions", () => {
  it("end after 30 idle minutes; activity slides the expiry, up to 12 hours after sign-in", async () => {
    const m = await enrolledMember();
    // The invitation signed them in at T0.
    expect(await loadSignedInStaff(handle.db, req(m.fullCookie), { accountId, now: at(STAFF_SESSION_IDLE_MS - 60_000), ip: null })).not.toBeNull();
    expect(await loadSignedInStaff(handle.db, req(m.fullCookie), { accountId, now: at(2 * STAFF_SESSION_IDLE_MS - 120_000), ip: null })).not.toBeNull();
    // Active every 20 minutes until past 12 hours: it ends at 12 hours all the same.
    const n = await enrolledMember();
    let t = 0;
    while (t + 20 * 60_000 < STAFF_SESSION_MAX_MS) {
      t += 20 * 60_000;
      expect(await loadSignedInStaff(handle.db, req(n.fullCookie), { accountId, now: at(t), ip: null })).not.toBeNull();
    }
    expect(await loadSignedInStaff(handle.db, req(n.fullCookie), { accountId, now: at(STAFF_SESSION_MAX_MS + 1000), ip: null })).toBeNull();
    // Idle for 31 minutes: gone (and the row deleted).
    const o = await enrolledMember();
    expect(await loadSignedInStaff(handle.db, req(o.fullCookie), { accountId, now: at(31 * 60_000), ip: null })).toBeNull();
    expect(await handle.db.query.staffSessions.findFirst({ where: eq(staffSessions.staffId, o.staffId) })).toBeUndefined();
  });

  it("a disabled member is signed out at once and cannot sign in", async () => {
    const owner = await enrolledMember();
    const m = await enrolledMember("front_desk", [locationIds[0]!]);
    const by = await signedIn(owner.fullCookie, at(1000));
    expect(await setStaffDisabled(handle.db, by, { staffId: m.staffId, disabled: true, now: at(2000) })).toEqual({ ok: true });
    expect(await loadSignedInStaff(handle.db, req(m.fullCookie), { accountId, now: at(3000), ip: null })).toBeNull();
    const r = await staffPasswordStep(handle.db, { accountId, email: m.email, password: "Blue-Heron-42", ip: "10.5.0.1", now: at(4000) });
    expect(r).toMatchObject({ ok: false });
    expect((r as { message: string }).message).toMatch(/disabled/);
    const row = await lastAudit("staff.disabled");
    expect(row).toMatchObject({ staffId: owner.staffId, entityId: String(m.staffId), detail: { sessionsEnded: 1 } });
    expect(row?.changes?.disabledAt?.before).toBeNull();
    expect(await setStaffDisabled(handle.db, by, { staffId: m.staffId, disabled: false, now: at(5000) })).toEqual({ ok: true });
    expect(await staffPasswordStep(handle.db, { accountId, email: m.email, password: "Blue-Heron-42", ip: "10.5.0.1", now: at(6000) })).toMatchObject({ ok: true });
  });
});

describe("the console's access and staff management", () => {
  it("not signed in: the layout sends to sign-in before the page runs", async () => {
    const r = await callLayouts(handle.db, "/admin/audit?from=2026-01-01");
    expect(r.pageRan).toBe(false);
    expect(r.result?.status).toBe(303);
    expect(r.result?.headers.get("Location")).toBe(`/admin/sign-in?next=${encodeURIComponent("/admin/audit?from=2026-01-01")}`);
  });

  it("a front desk member gets a 403 naming nothing on the staff page, and a 404 for an unknown console path", async () => {
    // Route loaders read the real clock: a member signed in just now.
    const m = await enrolledMember("front_desk", [locationIds[0]!], new Date());
    const headers = { Cookie: m.fullCookie };
    const home = await callRoute<{ links: Array<{ href: string }> }>(homeLoader, handle.db, "/admin", { init: { headers } });
    expect(home.status).toBe(200);
    expect(home.data.links.map((l) => l.href)).not.toContain("/admin/staff");
    expect(home.data.links.map((l) => l.href)).not.toContain("/admin/audit");
    const forbidden = await callRoute<{ message: string }>(staffLoader, handle.db, "/admin/staff", { init: { headers } });
    expect(forbidden.status).toBe(403);
    expect(JSON.stringify(forbidden.data)).not.toMatch(/@example\.com/);
    const missing = await callRoute(notFoundLoader, handle.db, "/admin/no-such-page", { init: { headers } });
    expect(missing.status).toBe(404);
  });

  it("the staff page needs a fresh second factor", async () => {
    // Signed in (by the invitation) eleven minutes ago: still signed in, but the factor is no longer fresh.
    const owner = await enrolledMember("owner", [], new Date(Date.now() - 11 * 60_000));
    const stale = await callRoute(staffLoader, handle.db, "/admin/staff", { init: { headers: { Cookie: owner.fullCookie } } });
    expect(stale.status).toBe(303);
    expect(stale.headers.get("Location")).toBe("/admin/reauth?next=%2Fadmin%2Fstaff");
  });

  it("role and location changes, and ending sessions, are audited with each field before and after", async () => {
    const owner = await enrolledMember();
    const m = await enrolledMember("front_desk", [locationIds[0]!]);
    const by = await signedIn(owner.fullCookie, at(1000));
    const target = locationIds.length > 1 ? [locationIds[0]!, locationIds[1]!] : [locationIds[0]!];
    expect(await changeStaffAccess(handle.db, by, { staffId: m.staffId, role: "manager", locationIds: target, now: at(2000) })).toEqual({ ok: true });
    const row = await lastAudit("staff.access_changed");
    expect(row?.changes).toEqual({ role: { before: "front_desk", after: "manager" }, ...(target.length > 1 ? { locations: { before: [locationIds[0]], after: target } } : {}) });
    expect((await signedIn(m.fullCookie, at(3000))).role).toBe("manager");
    expect(await changeStaffAccess(handle.db, by, { staffId: by.staffId, role: "read_only", locationIds: [locationIds[0]!], now: at(2000) })).toMatchObject({ ok: false });
    expect(await changeStaffAccess(handle.db, by, { staffId: m.staffId, role: "manager", locationIds: [], now: at(2000) })).toMatchObject({ ok: false, field: "locations" });
    expect(await endMemberSessions(handle.db, by, { staffId: m.staffId, now: at(4000) })).toEqual({ ok: true });
    expect(await loadSignedInStaff(handle.db, req(m.fullCookie), { accountId, now: at(5000), ip: null })).toBeNull();
    expect(await lastAudit("staff.sessions_ended")).toMatchObject({ entityId: String(m.staffId), detail: { sessionsEnded: 1 } });
  });
});

describe("the audit trail's CSV", () => {
  it("holds exactly the filtered rows, defuses formulas, and is audited itself", async () => {
    const owner = await enrolledMember("owner", [], new Date());
    // A failed sign-in whose typed e-mail starts like a formula.
    await staffPasswordStep(handle.db, { accountId, email: "=HYPERLINK(1)@example.com", password: "x", ip: "10.9.0.1", now: new Date() });
    const today = localDate(new Date(), await auditTimeZone(handle.db, accountId));
    const res = await callRoute(auditCsvLoader, handle.db, `/admin/audit.csv?action=staff.sign_in_failed&from=${today}`, { init: { headers: { Cookie: owner.fullCookie } } });
    const body = await res.response!.text();
    expect(res.response!.headers.get("Content-Type")).toContain("text/csv");
    const lines = body.trim().split("\r\n").slice(1);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => l.includes("staff.sign_in_failed"))).toBe(true);
    expect(body).toContain("'=hyperlink(1)@example.com");
    expect(await lastAudit("audit.exported")).toMatchObject({ staffId: owner.staffId, detail: { rows: lines.length, filter: { action: "staff.sign_in_failed" } } });
  });
});

describe("the audit trail's dates", () => {
  it("are the account's calendar dates (its first live location's time zone), and its times are shown there", async () => {
    const owner = await enrolledMember("owner", [], new Date());
    const zone = await auditTimeZone(handle.db, accountId);
    expect(zone).toBe("America/New_York");
    // 03:30 UTC on Nov 21 is still Nov 20 in New York (22:30 EST); 05:30 UTC is Nov 21 there.
    const action = "test.tz_check";
    await recordAudit(handle.db, { accountId, staffId: null, actor: "test", ip: null, action, at: new Date("2026-11-21T03:30:00Z") });
    await recordAudit(handle.db, { accountId, staffId: null, actor: "test", ip: null, action, at: new Date("2026-11-21T05:30:00Z") });
    const page = (q: string) => callRoute<{ rows: Array<{ at: string; when: string }>; timeZone: string }>(auditLoader, handle.db, `/admin/audit?action=${action}${q}`, { init: { headers: { Cookie: owner.fullCookie } } });
    const nov20 = await page("&from=2026-11-20&to=2026-11-20");
    expect(nov20.data.rows.map((r) => r.at)).toEqual(["2026-11-21T03:30:00.000Z"]);
    expect(nov20.data.rows[0]!.when).toBe("Fri 20 Nov 2026, 10:30 PM EST");
    const nov21 = await page("&from=2026-11-21&to=2026-11-21");
    expect(nov21.data.rows.map((r) => r.at)).toEqual(["2026-11-21T05:30:00.000Z"]);
  });
});

describe("the audit trail is append-only", () => {
  it("refuses UPDATE, DELETE and TRUNCATE", async () => {
    await enrolledMember();
    await expect(handle.db.execute(sql`update audit_events set actor = 'someone else'`)).rejects.toThrow();
    await expect(handle.db.execute(sql`delete from audit_events`)).rejects.toThrow();
    await expect(handle.db.execute(sql`truncate audit_events`)).rejects.toThrow();
    expect(await handle.db.select().from(auditEvents).where(eq(auditEvents.actor, "someone else"))).toHaveLength(0);
  });
});

describe("the password step while the hashing threads are busy (decisions 331, 427)", () => {
  it("is told to try again in a moment before any limit counts it; when the threads are free it works", async () => {
    const m = await enrolledMember();
    const now = at(400_000);
    const threads = ownPasswordThreads();
    try {
      // The one thread busy with a queue of checks, each said to take a minute.
      const free = await busyPasswordThreads(threads.workers, { cost: 10, count: 3 });
      const busy = await staffPasswordStep(handle.db, { accountId, email: m.email, password: "Blue-Heron-42", ip: "10.0.7.1", now });
      expect(busy).toEqual({ ok: false, limited: true, message: PASSWORD_BUSY_MESSAGE });
      const hits = await handle.db.select().from(rateLimitHits).where(like(rateLimitHits.key, `staff-password:account:${accountId}:${m.email.toLowerCase()}`));
      expect(hits).toEqual([]);
      await free();
      expect(await staffPasswordStep(handle.db, { accountId, email: m.email, password: "Blue-Heron-42", ip: "10.0.7.1", now })).toMatchObject({ ok: true });
    } finally {
      await threads.restore();
    }
  });
});
