/**
 * Issue 39, "staff sign-in that recovers" (decisions 503–506), over real HTTP against the BUILT server
 * (tests/integration/support/built-server.ts) on the console's own origin, with a cookie jar as a
 * browser keeps one:
 * - "Forgot password" answers the same for an unknown address and a member's; only the member gets a
 *   link, on the console's configured origin; it works once, expires, cancels the member's other
 *   links, ends their sessions, and leads to the second-factor page, never past it;
 * - an owner's "Reset sign-in" (confirmed first) revokes the password, TOTP, recovery codes, passkeys
 *   and sessions and e-mails a new invitation; re-inviting a member's address points to it;
 * - a member locked out shows as "Locked out until …", and an owner lifts it;
 * - "Disable" asks first; only owners may do any of it; every action is in the audit trail in words;
 * - `npm run staff:invite`, opening the database itself, prints the local console origin.
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { and, desc, eq, sql } from "drizzle-orm";
import { generate } from "otplib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { auditEvents, emailOutbox, locations, rateLimitHits, staffMembers, staffPasskeys, staffPasswordResets, staffRecoveryCodes, staffSessions } from "~/db/schema";
import { STAFF_RESET_SENT_MESSAGE } from "~/domain/staff/forms";
import { readOutboxMail } from "~/services/mail/outbox.server";
import { acceptInvite, readInvite, totpEnrolment } from "~/services/staff/auth.server";
import { inviteByCommand } from "~/services/staff/command.server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, type TestStaffMember } from "../support/staff-fixtures";

const OLD_PASSWORD = "Blue-Heron-42-Kestrel";
const NEW_PASSWORD = "Quiet-Harbor-Lantern-7";

let handle: DatabaseHandle;
let server: BuiltServer;
let accountId: number;
let locationId: number;
let seq = 0;

/** An owner signed in just now (the staff page needs a second factor given within ten minutes). */
const freshOwner = (): Promise<TestStaffMember> => signedInStaffMember(handle.db, { accountId, role: "owner" });

/** A browser's cookies for the console's origin. */
class Jar {
  cookies = new Map<string, string>();
  constructor(initial?: string) {
    if (initial) this.add(initial);
  }
  add(pair: string) {
    const [name, ...rest] = pair.split("=");
    this.cookies.set(name!.trim(), rest.join("="));
  }
  take(headers: Headers) {
    for (const c of headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(";");
      const [name, ...rest] = pair!.split("=");
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (gone || rest.join("=") === "") this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), rest.join("="));
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  has(prefix: string) {
    return [...this.cookies.keys()].some((k) => k.includes(prefix));
  }
}

type Page = { status: number; headers: Headers; body: string };

async function get(path: string, jar: Jar): Promise<Page> {
  const r = await fetch(server.urlFor(path), { headers: { Cookie: jar.header() }, redirect: "manual" });
  jar.take(r.headers);
  return { status: r.status, headers: r.headers, body: await r.text() };
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

/** Opens `page` (for its form's CSRF token, as a browser would), then posts `fields` to `action` (default: the page). */
async function post(page: string, jar: Jar, fields: Array<[string, string]>, action = page): Promise<Page> {
  const opened = await get(page, jar);
  const token = csrfOf(opened.body);
  expect(token, `no form token on ${page} (${opened.status})`).not.toBe("");
  const r = await fetch(server.urlFor(action), {
    method: "POST",
    headers: { Cookie: jar.header(), "Content-Type": "application/x-www-form-urlencoded", Origin: server.consoleOrigin },
    body: new URLSearchParams([["csrf", token], ...fields]).toString(),
    redirect: "manual",
  });
  jar.take(r.headers);
  return { status: r.status, headers: r.headers, body: await r.text() };
}

const text = (html: string) => html.replace(/<[^>]+>/g, "").replace(/&#x27;|&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&");

/** A TOTP code for the next time step (the one accepted at enrolment is spent). */
const nextCode = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

/** A member invited by command and enrolled (password, TOTP, recovery codes) — signed in, with their jar. */
async function enrolledMember(role: "manager" | "front_desk" = "front_desk") {
  const email = `recover-${++seq}.${process.pid}@office.example`;
  const now = new Date();
  const invited = await inviteByCommand(handle.db, { email, role, locationIds: [locationId] }, now);
  if (!invited.ok || !("link" in invited)) throw new Error(`invite failed: ${JSON.stringify(invited)}`);
  const token = invited.link.split("/admin/invite/")[1]!;
  const invite = await readInvite(handle.db, token, now);
  if (invite.state !== "open") throw new Error("invite not open");
  const enrol = await totpEnrolment({ inviteId: invite.inviteId, email, issuer: "Test" });
  const accepted = await acceptInvite(handle.db, { accountId, token, name: `Rhea Member ${seq}`, password: OLD_PASSWORD, sealedSecret: enrol.sealed, code: await generate({ secret: enrol.secret, epoch: Math.floor(now.getTime() / 1000) }), ip: "10.0.0.1", now });
  if (!accepted.ok) throw new Error(`accept failed: ${JSON.stringify(accepted)}`);
  return { email, secret: enrol.secret, staffId: invite.staffId, jar: new Jar(accepted.cookie.split(";")[0]!) };
}

const mailsTo = (to: string) => handle.db.select().from(emailOutbox).where(eq(emailOutbox.to, to)).orderBy(emailOutbox.id);
const linkIn = (row: typeof emailOutbox.$inferSelect, path: string) => new RegExp(`(\\S+${path}\\S+)`).exec(readOutboxMail(row).text)?.[1] ?? null;
const audits = (action: string, entityId?: number) =>
  handle.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.accountId, accountId), eq(auditEvents.action, action), entityId === undefined ? undefined : eq(auditEvents.entityId, String(entityId))))
    .orderBy(desc(auditEvents.id));

async function forgot(email: string): Promise<Page> {
  return post("/admin/forgot-password", new Jar(), [["email", email]]);
}

beforeAll(async () => {
  handle = await createTestDatabase();
  accountId = (await getWebsite(handle.db))!.accountId;
  locationId = (await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.accountId, accountId)).orderBy(locations.id).limit(1))[0]!.id;
  server = await startBuiltServer(handle);
}, 600_000);

afterAll(async () => {
  await server?.close();
  await handle?.close();
});

// Every request comes from 127.0.0.1: each test starts with no counted guesses or requests.
beforeEach(async () => {
  await handle.db.delete(rateLimitHits);
});

describe("forgot password (decision 503)", () => {
  it("answers the same neutral message for an unknown address and a member's; only the member gets a link, on the console's origin", async () => {
    const member = await enrolledMember();
    const unknown = await forgot(`nobody-${process.pid}@office.example`);
    const known = await forgot(member.email.toUpperCase());
    for (const r of [unknown, known]) {
      expect(r.status).toBe(303);
      expect(r.headers.get("location")).toBe("/admin/forgot-password?sent=1");
    }
    const sent = await get("/admin/forgot-password?sent=1", new Jar());
    expect(text(sent.body)).toContain(STAFF_RESET_SENT_MESSAGE);
    expect(await mailsTo(`nobody-${process.pid}@office.example`)).toHaveLength(0);
    const mails = await mailsTo(member.email);
    expect(mails).toHaveLength(1);
    const link = linkIn(mails[0]!, "/admin/reset-password/");
    expect(link).toMatch(new RegExp(`^${server.consoleOrigin}/admin/reset-password/[A-Za-z0-9_-]{40,}$`));
    // Only the token's hash is kept.
    const token = link!.split("/").pop()!;
    const stored = await handle.db.select().from(staffPasswordResets).where(eq(staffPasswordResets.staffId, member.staffId));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.tokenHash).not.toContain(token);
    // Both requests are in the audit trail in words; the link never is.
    const refused = (await audits("staff.password_reset_refused"))[0]!;
    expect(refused.detail).toMatchObject({ reason: "unknown e-mail" });
    const requested = (await audits("staff.password_reset_requested", member.staffId))[0]!;
    expect(String(requested.detail?.summary)).toContain(`A password reset link was e-mailed to ${member.email}`);
    expect(JSON.stringify(requested)).not.toContain(token);
  });

  it("is rate limited per address asked for, and says so without telling whether it is a member's", async () => {
    const member = await enrolledMember();
    for (let i = 0; i < 3; i++) expect((await forgot(member.email)).status).toBe(303);
    const limited = await forgot(member.email);
    expect(limited.status).toBe(429);
    expect(text(limited.body)).toContain("Too many requests. Please wait");
    const other = `nobody-else-${process.pid}@office.example`;
    for (let i = 0; i < 3; i++) await forgot(other);
    expect((await forgot(other)).status).toBe(429);
    expect(await mailsTo(member.email)).toHaveLength(3);
  });

  it("the link sets a new password once, ends the member's sessions, cancels their other links, and the second factor is still asked", async () => {
    const member = await enrolledMember();
    expect((await get("/admin", member.jar)).status).toBe(200);
    await forgot(member.email);
    await forgot(member.email);
    const [first, second] = (await mailsTo(member.email)).map((m) => new URL(linkIn(m, "/admin/reset-password/")!).pathname);
    const browser = new Jar();
    const form = await get(second!, browser);
    expect(form.status).toBe(200);
    expect(text(form.body)).toContain("Choose a new password");
    // The invitation's password rules.
    const weak = await post(second!, browser, [["password", "short"], ["confirm", "short"]]);
    expect(weak.status).toBe(400);
    expect(text(weak.body)).toContain("Your password must be at least 12 characters.");
    const done = await post(second!, browser, [["password", NEW_PASSWORD], ["confirm", NEW_PASSWORD]]);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/admin/sign-in/code?reset=1");
    // A password-only session: the console stays shut until the second factor.
    const shut = await get("/admin", browser);
    expect(shut.status).toBe(303);
    expect(shut.headers.get("location")).toMatch(/^\/admin\/sign-in/);
    const codePage = await get("/admin/sign-in/code?reset=1", browser);
    expect(codePage.status).toBe(200);
    expect(text(codePage.body)).toContain("Your new password is saved. To sign in, enter the code from your authenticator app");
    expect((await post("/admin/sign-in/code", browser, [["code", "000000"]])).status).toBe(400);
    expect((await get("/admin", browser)).status).toBe(303);
    const signedIn = await post("/admin/sign-in/code", browser, [["code", await nextCode(member.secret)]]);
    expect(signedIn.status).toBe(303);
    expect((await get("/admin", browser)).status).toBe(200);
    // The member's other session ended; both links are spent (used, and cancelled).
    expect((await get("/admin", member.jar)).status).toBe(303);
    for (const link of [second!, first!]) {
      const again = await get(link, new Jar());
      expect(again.status).toBe(410);
      expect(text(again.body)).toContain("This link has been used already");
    }
    // The old password no longer works; the new one leads to the code page.
    const old = await post("/admin/sign-in", new Jar(), [["email", member.email], ["password", OLD_PASSWORD]]);
    expect(old.status).toBe(400);
    const fresh = await post("/admin/sign-in", new Jar(), [["email", member.email], ["password", NEW_PASSWORD]]);
    expect(fresh.status).toBe(303);
    expect(fresh.headers.get("location")).toBe("/admin/sign-in/code");
    const row = (await audits("staff.password_reset", member.staffId))[0]!;
    expect(row.actor).toBe(member.email);
    expect(String(row.detail?.summary)).toContain("chose a new password from a reset link; 1 session ended and 1 other reset link cancelled. Signing in still needs their second factor.");
  });

  it("an expired link, and a link of a disabled member, open nothing", async () => {
    const member = await enrolledMember();
    await forgot(member.email);
    const path = new URL(linkIn((await mailsTo(member.email))[0]!, "/admin/reset-password/")!).pathname;
    await handle.db.update(staffPasswordResets).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(staffPasswordResets.staffId, member.staffId));
    const expired = await get(path, new Jar());
    expect(expired.status).toBe(410);
    expect(text(expired.body)).toContain("This link has expired");
    // Posting to it anyway changes nothing.
    const before = (await handle.db.select({ h: staffMembers.passwordHash }).from(staffMembers).where(eq(staffMembers.id, member.staffId)))[0]!.h;
    await handle.db.update(staffPasswordResets).set({ expiresAt: new Date(Date.now() + 60_000) }).where(eq(staffPasswordResets.staffId, member.staffId));
    const browser = new Jar();
    const page = await get(path, browser);
    await handle.db.update(staffMembers).set({ disabledAt: new Date() }).where(eq(staffMembers.id, member.staffId));
    const r = await fetch(server.urlFor(path), {
      method: "POST",
      headers: { Cookie: browser.header(), "Content-Type": "application/x-www-form-urlencoded", Origin: server.consoleOrigin },
      body: new URLSearchParams({ csrf: csrfOf(page.body), password: NEW_PASSWORD, confirm: NEW_PASSWORD }).toString(),
      redirect: "manual",
    });
    expect(r.status).toBe(410);
    expect((await handle.db.select({ h: staffMembers.passwordHash }).from(staffMembers).where(eq(staffMembers.id, member.staffId)))[0]!.h).toBe(before);
    // A disabled member asking for a link gets the same answer and no mail.
    expect((await forgot(member.email)).status).toBe(303);
    expect(await mailsTo(member.email)).toHaveLength(1);
  });
});

describe("an owner's Reset sign-in (decision 504)", () => {
  it("asks for confirmation, then revokes password, TOTP, recovery codes, passkeys, sessions and open links, and e-mails a new invitation", async () => {
    const member = await enrolledMember("manager");
    const owner = await freshOwner();
    await handle.db.insert(staffPasskeys).values({ staffId: member.staffId, credentialId: `cred-${member.staffId}`, publicKey: "pk", name: "Work laptop" });
    await forgot(member.email);
    const resetLink = new URL(linkIn((await mailsTo(member.email))[0]!, "/admin/reset-password/")!).pathname;
    const ownerJar = new Jar(owner.cookie);
    const unconfirmed = await post("/admin/staff", ownerJar, [["intent", "reset-sign-in"], ["staffId", String(member.staffId)]]);
    expect(unconfirmed.status).toBe(400);
    expect(text(unconfirmed.body)).toContain("Tick the box to confirm that you want to reset this member's sign-in.");
    expect((await handle.db.select().from(staffMembers).where(eq(staffMembers.id, member.staffId)))[0]!.passwordHash).not.toBeNull();

    const done = await post("/admin/staff", ownerJar, [["intent", "reset-sign-in"], ["staffId", String(member.staffId)], ["confirm", "yes"]]);
    expect(done.status).toBe(200);
    const shown = /data-testid="invite-link">([^<]+)</.exec(done.body)?.[1];
    expect(shown).toMatch(new RegExp(`^${server.consoleOrigin}/admin/invite/`));
    const invitation = (await mailsTo(member.email)).at(-1)!;
    expect(invitation.subject).toBe("Set up your back office sign-in again");
    expect(linkIn(invitation, "/admin/invite/")).toBe(shown);

    const [row] = await handle.db.select().from(staffMembers).where(eq(staffMembers.id, member.staffId));
    expect(row).toMatchObject({ passwordHash: null, totpSecretSealed: null, role: "manager", disabledAt: null });
    expect(await handle.db.select().from(staffPasskeys).where(eq(staffPasskeys.staffId, member.staffId))).toHaveLength(0);
    expect(await handle.db.select().from(staffRecoveryCodes).where(eq(staffRecoveryCodes.staffId, member.staffId))).toHaveLength(0);
    expect(await handle.db.select().from(staffSessions).where(eq(staffSessions.staffId, member.staffId))).toHaveLength(0);
    // The old session, the old password and the earlier reset link no longer work; the invitation does.
    expect((await get("/admin", member.jar)).status).toBe(303);
    expect((await post("/admin/sign-in", new Jar(), [["email", member.email], ["password", OLD_PASSWORD]])).status).toBe(400);
    expect((await get(resetLink, new Jar())).status).toBe(410);
    expect((await get(new URL(shown!).pathname, new Jar())).status).toBe(200);
    // And a reset link cannot be asked for instead of the invitation.
    await forgot(member.email);
    expect((await mailsTo(member.email)).filter((m) => m.subject.startsWith("Choose a new password"))).toHaveLength(1);

    const audit = (await audits("staff.sign_in_reset", member.staffId))[0]!;
    expect(audit.actor).toBe(owner.email);
    expect(audit.changes).toMatchObject({ passkeys: { before: 1, after: 0 }, unusedBackupCodes: { before: 10, after: 0 } });
    expect(String(audit.detail?.summary)).toBe(
      `Reset the sign-in of ${member.email}: password, authenticator app, 1 passkey, 10 recovery codes removed; 1 session ended; a new invitation e-mailed (it works once, for 24 hours).`,
    );
    expect(JSON.stringify(audit)).not.toContain(shown!.split("/").pop()!);
  });

  it("inviting a member's address again points to Reset sign-in instead of a dead end", async () => {
    const member = await enrolledMember();
    const owner = await freshOwner();
    const r = await post("/admin/staff", new Jar(owner.cookie), [["intent", "invite"], ["email", member.email], ["role", "front_desk"], ["locations", String(locationId)]]);
    expect(r.status).toBe(400);
    expect(text(r.body)).toContain("This person already has a staff account. If they cannot sign in, use “Reset sign-in” beside their name in the list of staff members");
    expect(r.body).toContain(`href="#member-${member.staffId}"`);
    expect(r.body).toContain(`id="member-${member.staffId}"`);
  });
});

describe("lockouts (decision 505) and Disable", () => {
  it("a member locked out shows as locked until a time, and an owner lifts it", async () => {
    const member = await enrolledMember();
    const owner = await freshOwner();
    for (let i = 0; i < 5; i++) expect((await post("/admin/sign-in", new Jar(), [["email", member.email], ["password", "Wrong-Password-123"]])).status).toBe(400);
    expect((await post("/admin/sign-in", new Jar(), [["email", member.email], ["password", OLD_PASSWORD]])).status).toBe(429);
    const ownerJar = new Jar(owner.cookie);
    const list = text((await get("/admin/staff", ownerJar)).body);
    const rowText = list.slice(list.indexOf(member.email));
    expect(rowText).toMatch(/^[^]*?Locked out until [A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2} \d{4}, \d{1,2}:\d{2} [AP]M [A-Z]{3,4}/); // decision 643's one way to show time
    expect(rowText.slice(0, rowText.indexOf("Lift lockout"))).not.toContain("Active");
    const lifted = await post("/admin/staff", ownerJar, [["intent", "lift-lockout"], ["staffId", String(member.staffId)]]);
    expect(lifted.status).toBe(303);
    expect(lifted.headers.get("location")).toBe("/admin/staff?done=lockout");
    const after = text((await get("/admin/staff?done=lockout", ownerJar)).body);
    expect(after).toContain("The lockout is lifted: they can sign in again now.");
    expect(after.slice(after.indexOf(member.email)).slice(0, 200)).not.toContain("Locked out");
    const signIn = await post("/admin/sign-in", new Jar(), [["email", member.email], ["password", OLD_PASSWORD]]);
    expect(signIn.status).toBe(303);
    const audit = (await audits("staff.lockout_lifted", member.staffId))[0]!;
    expect(audit.actor).toBe(owner.email);
    expect(audit.changes).toMatchObject({ failedSignIns: { before: 6, after: 0 } });
    expect(String(audit.detail?.summary)).toMatch(new RegExp(`^Lifted the lockout of ${member.email.replace(/[.]/g, "\\.")} \\(locked out until .+\\): they can sign in again\\.$`));
  });

  it("Disable asks for confirmation first", async () => {
    const member = await enrolledMember();
    const owner = await freshOwner();
    const ownerJar = new Jar(owner.cookie);
    const unconfirmed = await post("/admin/staff", ownerJar, [["intent", "disable"], ["staffId", String(member.staffId)]]);
    expect(unconfirmed.status).toBe(400);
    expect(text(unconfirmed.body)).toContain("Tick the box to confirm that you want to disable this account.");
    expect((await handle.db.select().from(staffMembers).where(eq(staffMembers.id, member.staffId)))[0]!.disabledAt).toBeNull();
    expect((await get("/admin", member.jar)).status).toBe(200);
    const done = await post("/admin/staff", ownerJar, [["intent", "disable"], ["staffId", String(member.staffId)], ["confirm", "yes"]]);
    expect(done.status).toBe(303);
    expect((await handle.db.select().from(staffMembers).where(eq(staffMembers.id, member.staffId)))[0]!.disabledAt).not.toBeNull();
    expect((await get("/admin", member.jar)).status).toBe(303);
  });

  it("only owners may lift a lockout, reset a sign-in or disable; never their own; nothing changes or is audited then", async () => {
    const member = await enrolledMember();
    const manager = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [locationId] });
    const owner = await freshOwner();
    const auditsBefore = (await handle.db.select({ n: sql<number>`count(*)` }).from(auditEvents).where(eq(auditEvents.staffId, manager.staffId)))[0]!.n;
    for (const fields of [
      [["intent", "lift-lockout"]],
      [["intent", "reset-sign-in"], ["confirm", "yes"]],
      [["intent", "disable"], ["confirm", "yes"]],
    ] as Array<Array<[string, string]>>) {
      const r = await post("/admin", new Jar(manager.cookie), [...fields, ["staffId", String(member.staffId)]], "/admin/staff");
      expect(r.status).toBe(403);
    }
    const [row] = await handle.db.select().from(staffMembers).where(eq(staffMembers.id, member.staffId));
    expect(row).toMatchObject({ disabledAt: null });
    expect(row!.passwordHash).not.toBeNull();
    expect((await handle.db.select({ n: sql<number>`count(*)` }).from(auditEvents).where(eq(auditEvents.staffId, manager.staffId)))[0]!.n).toBe(auditsBefore);
    const self = await post("/admin/staff", new Jar(owner.cookie), [["intent", "reset-sign-in"], ["staffId", String(owner.staffId)], ["confirm", "yes"]]);
    expect(self.status).toBe(400);
    expect(text(self.body)).toContain("You cannot do this to your own account. Ask another owner.");
  });
});

describe("npm run staff:invite opening the database itself (decision 506)", () => {
  it("prints a link on CONSOLE_URL when set, else on the local console origin — never the website's production domain", async () => {
    const kept = { CONSOLE_URL: process.env.CONSOLE_URL, PUBLIC_URL: process.env.PUBLIC_URL, PORT: process.env.PORT };
    try {
      delete process.env.CONSOLE_URL;
      delete process.env.PUBLIC_URL;
      process.env.PORT = "3917";
      const local = await inviteByCommand(handle.db, { email: `cmd-${process.pid}@office.example`, role: "owner", locationIds: [] }, new Date(), { direct: true });
      expect(local.ok && "link" in local ? local.link : "").toMatch(/^http:\/\/admin\.localhost:3917\/admin\/invite\//);
      process.env.CONSOLE_URL = "https://back.office.example";
      const configured = await inviteByCommand(handle.db, { email: `cmd2-${process.pid}@office.example`, role: "owner", locationIds: [] }, new Date(), { direct: true });
      expect(configured.ok && "link" in configured ? configured.link : "").toMatch(/^https:\/\/back\.office\.example\/admin\/invite\//);
    } finally {
      for (const [k, v] of Object.entries(kept)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
