/**
 * Issue 23: passkeys (WebAuthn) as a second factor for staff (app/services/staff/passkeys.server.ts).
 * The responses are real: a software authenticator (./webauthn-authenticator.ts) makes an EC P-256
 * key, a "none" attestation and ES256 assertions, and @simplewebauthn/server checks them. Covered:
 * registration and sign-in, a wrong signature, a replayed challenge, a counter going backwards, a
 * wrong origin, a challenge of another purpose or session, an expired one, another member's passkey,
 * the limits per member and per address, removal, and the audit trail of each (with no secrets).
 */
import crypto from "node:crypto";
import { and, desc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { auditEvents, staffMembers, staffPasskeys, staffSessions } from "~/db/schema";
import {
  hasPasskeys,
  listPasskeys,
  MAX_PASSKEYS,
  PASSKEY_CHALLENGE_TTL_MS,
  PASSKEY_LIMIT_PER_MEMBER,
  passkeyAuthenticationOptions,
  passkeyName,
  passkeyRegistrationOptions,
  registerPasskey,
  relyingParty,
  removePasskey,
  verifyPasskey,
  type RelyingParty,
} from "~/services/staff/passkeys.server";
import { CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { createStaffSession, getStaffSession } from "~/services/staff/session.server";
import { action as codeAction, loader as codeLoader } from "~/routes/staff/sign-in.code";
import { createTestDatabase } from "../support/db";
import { callRoute } from "../support/route-helpers";
import { otherPrivateKey, SoftAuthenticator } from "../support/webauthn-authenticator";

let handle: DatabaseHandle;
let accountId: number;
let seq = 0;
const T0 = new Date("2026-11-20T10:00:00Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const rp: RelyingParty = { id: "www.gatehousestorage.example", origin: "https://www.gatehousestorage.example", name: "Gatehouse back office" };
const IP = "10.1.0.1";

beforeAll(async () => {
  handle = await createTestDatabase();
  accountId = (await getWebsite(handle.db))!.accountId;
});
afterAll(() => handle?.close());

/** A member with a full session (and, with `passwordOnly`, a second, pre-factor session). */
async function member(role: "owner" | "front_desk" = "owner") {
  const email = `passkey-${++seq}-${Date.now()}@example.com`;
  const [row] = await handle.db
    .insert(staffMembers)
    .values({ accountId, email, name: `Member ${seq}`, role, passwordHash: "not-used-here", totpSecretSealed: "not-used-here" })
    .returning({ id: staffMembers.id });
  const session = async (passwordOnly: boolean) => {
    const id = crypto.randomBytes(32).toString("hex");
    await handle.db.insert(staffSessions).values({ id, staffId: row!.id, expiresAt: at(60 * 60 * 1000), passwordOnly, factorAt: passwordOnly ? null : T0, createdAt: T0 });
    return id;
  };
  return { staffId: row!.id, email, fullSession: await session(false), pendingSession: await session(true), newSession: session };
}

type Member = Awaited<ReturnType<typeof member>>;

/** Registers a software authenticator for the member through the service; returns it. */
async function withPasskey(m: Member, name = "Laptop", when = T0, ip = IP) {
  const auth = new SoftAuthenticator({ origin: rp.origin, rpId: rp.id, counter: 1 });
  const options = await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp, now: when });
  if (!options.ok) throw new Error(options.message);
  const result = await registerPasskey(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, response: JSON.stringify(auth.register(options.options.challenge)), name, rp, ip, now: when });
  if (!result.ok) throw new Error(result.message);
  return { auth, passkeyId: result.passkey.id };
}

async function signInOptions(m: Member, when = T0, purpose: "sign_in" | "reauth" = "sign_in", sessionHash = m.pendingSession) {
  const options = await passkeyAuthenticationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash, purpose, rp, now: when });
  if (!options.ok) throw new Error(options.message);
  return options.options;
}

const signIn = (m: Member, response: unknown, when = T0, ip = IP, sessionHash = m.pendingSession) =>
  verifyPasskey(handle.db, { accountId, staffId: m.staffId, sessionHash, purpose: "sign_in", response, rp, ip, now: when, then: async () => "session made" });

async function audits(staffId: number, action: string) {
  return handle.db.select().from(auditEvents).where(and(eq(auditEvents.staffId, staffId), eq(auditEvents.action, action))).orderBy(desc(auditEvents.id));
}
const stored = async (passkeyId: number) => (await handle.db.query.staffPasskeys.findFirst({ where: eq(staffPasskeys.id, passkeyId) }))!;

describe("registration", () => {
  it("keeps the credential (id, COSE public key, counter, transports, name) and audits it without the key", async () => {
    const m = await member();
    const { auth, passkeyId } = await withPasskey(m, "  Work\u0007 laptop  ");
    const row = await stored(passkeyId);
    expect(row).toMatchObject({ staffId: m.staffId, credentialId: auth.id, counter: 1, transports: ["internal"], name: "Work laptop", lastUsedAt: null });
    expect(Buffer.from(row.publicKey, "base64url").length).toBeGreaterThan(60);
    expect(await listPasskeys(handle.db, m.staffId)).toEqual([expect.objectContaining({ id: passkeyId, name: "Work laptop" })]);
    expect(await hasPasskeys(handle.db, m.staffId)).toBe(true);
    const [audit] = await audits(m.staffId, "staff.passkey_added");
    expect(audit).toMatchObject({ entity: "staff_passkey", entityId: String(passkeyId), actor: m.email, ip: IP, changes: { name: { before: null, after: "Work laptop" } } });
    expect(JSON.stringify(audit)).not.toContain(row.publicKey);
    expect(JSON.stringify(audit)).not.toContain(auth.id);
    const session = await handle.db.query.staffSessions.findFirst({ where: eq(staffSessions.id, m.fullSession) });
    expect(session?.webauthnChallenge).toBeNull();
  });

  it("gives options bound to the configured relying party, with the member's passkeys excluded", async () => {
    const m = await member();
    const { auth } = await withPasskey(m);
    const options = await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp, now: T0 });
    expect(options.ok && options.options).toMatchObject({ rp: { id: rp.id, name: rp.name }, user: { name: m.email }, attestation: "none", excludeCredentials: [{ id: auth.id }] });
    const session = await handle.db.query.staffSessions.findFirst({ where: eq(staffSessions.id, m.fullSession) });
    expect(session?.webauthnChallenge).toBe(`register:${options.ok && options.options.challenge}`);
  });

  it("refuses a response from another origin, to another challenge, or the same response twice", async () => {
    const m = await member();
    const auth = new SoftAuthenticator({ origin: "https://evil.example", rpId: rp.id });
    let options = await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp, now: T0 });
    const register = (response: unknown) => registerPasskey(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, response, name: "x", rp, ip: IP, now: T0 });
    expect(await register(auth.register(options.ok ? options.options.challenge : ""))).toMatchObject({ ok: false, limited: false });
    expect((await audits(m.staffId, "staff.passkey_add_failed"))[0]?.detail).toMatchObject({ reason: "wrong origin" });

    auth.origin = rp.origin;
    options = await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp, now: T0 });
    expect(await register(auth.register("bm90LXRoZS1jaGFsbGVuZ2U"))).toMatchObject({ ok: false });
    expect((await audits(m.staffId, "staff.passkey_add_failed"))[0]?.detail).toMatchObject({ reason: "challenge unknown, used or expired" });
    // The wrong answer spent the pending challenge: the right one no longer works either.
    const right = auth.register(options.ok ? options.options.challenge : "");
    expect(await register(right)).toMatchObject({ ok: false });

    options = await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp, now: T0 });
    const fresh = auth.register(options.ok ? options.options.challenge : "");
    expect(await register(fresh)).toMatchObject({ ok: true });
    expect(await register(fresh)).toMatchObject({ ok: false });
    expect(await listPasskeys(handle.db, m.staffId)).toHaveLength(1);
  });

  it("refuses malformed input without a 500 and records it", async () => {
    const m = await member();
    await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp, now: T0 });
    for (const response of ["", "{", "null", JSON.stringify({ id: "x" }), { id: "a", rawId: "a", type: "public-key", response: { clientDataJSON: "!!", attestationObject: "a" } }]) {
      expect(await registerPasskey(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, response, name: "x", rp, ip: `10.9.${++seq}.1`, now: T0 })).toMatchObject({ ok: false, limited: false });
    }
    expect((await audits(m.staffId, "staff.passkey_add_failed"))[0]?.detail).toMatchObject({ reason: "malformed response" });
  });

  it(`stops at ${MAX_PASSKEYS} passkeys`, async () => {
    const m = await member();
    for (let i = 0; i < MAX_PASSKEYS; i++) await withPasskey(m, `Key ${i}`, T0, `10.8.${i}.1`);
    expect(await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp, now: T0 })).toMatchObject({ ok: false });
  });
});

describe("signing in with a passkey", () => {
  it("accepts a right assertion once: the counter and last use are updated, then() runs, and the sign-in is audited", async () => {
    const m = await member();
    const { auth, passkeyId } = await withPasskey(m);
    const options = await signInOptions(m, at(1000));
    expect(options).toMatchObject({ rpId: rp.id, allowCredentials: [{ id: auth.id, type: "public-key" }] });
    const response = auth.assert(options.challenge);
    const result = await signIn(m, JSON.stringify(response), at(2000));
    expect(result).toEqual({ ok: true, passkeyId, value: "session made" });
    expect(await stored(passkeyId)).toMatchObject({ counter: 2, lastUsedAt: at(2000) });
    expect((await handle.db.query.staffMembers.findFirst({ where: eq(staffMembers.id, m.staffId) }))?.lastSignInAt).toEqual(at(2000));
    const [audit] = await audits(m.staffId, "staff.sign_in");
    expect(audit?.detail).toMatchObject({ method: "passkey", passkeyId, passkey: "Laptop" });
    expect(JSON.stringify(audit)).not.toContain(response.response.signature);

    // A replayed challenge: the same response again is refused, even after new options are asked for.
    expect(await signIn(m, response, at(3000))).toMatchObject({ ok: false, limited: false });
    expect((await audits(m.staffId, "staff.sign_in_failed"))[0]?.detail).toMatchObject({ method: "passkey", reason: "challenge unknown, used or expired" });
    await signInOptions(m, at(4000));
    expect(await signIn(m, response, at(5000))).toMatchObject({ ok: false });
    expect(await stored(passkeyId)).toMatchObject({ counter: 2, lastUsedAt: at(2000) });
  });

  it("refuses a wrong signature", async () => {
    const m = await member();
    const { auth, passkeyId } = await withPasskey(m);
    const options = await signInOptions(m);
    expect(await signIn(m, auth.assert(options.challenge, { signWith: otherPrivateKey() }))).toMatchObject({ ok: false, limited: false });
    expect((await audits(m.staffId, "staff.sign_in_failed"))[0]?.detail).toMatchObject({ method: "passkey", reason: "signature not valid", passkeyId });
    expect(await stored(passkeyId)).toMatchObject({ counter: 1, lastUsedAt: null });
    expect(await audits(m.staffId, "staff.sign_in")).toHaveLength(0);
  });

  it("refuses a signature counter that goes backwards or stands still (a cloned authenticator)", async () => {
    const m = await member();
    const { auth, passkeyId } = await withPasskey(m);
    expect(await signIn(m, auth.assert((await signInOptions(m)).challenge, { counter: 5 }))).toMatchObject({ ok: true });
    expect(await stored(passkeyId)).toMatchObject({ counter: 5 });
    for (const counter of [3, 5]) {
      expect(await signIn(m, auth.assert((await signInOptions(m)).challenge, { counter }))).toMatchObject({ ok: false });
      expect((await audits(m.staffId, "staff.sign_in_failed"))[0]?.detail).toMatchObject({ reason: "signature counter did not increase" });
    }
    expect(await stored(passkeyId)).toMatchObject({ counter: 5 });
    expect(await signIn(m, auth.assert((await signInOptions(m)).challenge, { counter: 6 }))).toMatchObject({ ok: true });
  });

  it("accepts an authenticator that keeps no counter (always 0)", async () => {
    const m = await member();
    const auth = new SoftAuthenticator({ origin: rp.origin, rpId: rp.id, counter: 0 });
    const reg = await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp, now: T0 });
    const added = await registerPasskey(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, response: auth.register(reg.ok ? reg.options.challenge : ""), name: "", rp, ip: IP, now: T0 });
    expect(added).toMatchObject({ ok: true, passkey: { name: "Passkey" } });
    expect(await signIn(m, auth.assert((await signInOptions(m)).challenge))).toMatchObject({ ok: true });
    expect(await signIn(m, auth.assert((await signInOptions(m)).challenge))).toMatchObject({ ok: true });
  });

  it("refuses another origin, an expired challenge, a challenge of another purpose or session, and another member's passkey", async () => {
    const m = await member();
    const { auth } = await withPasskey(m);
    const reason = async () => ((await audits(m.staffId, "staff.sign_in_failed"))[0]?.detail as { reason?: string }).reason;

    expect(await signIn(m, auth.assert((await signInOptions(m)).challenge, { origin: "https://www.gatehousestorage.example.evil.test" }))).toMatchObject({ ok: false });
    expect(await reason()).toBe("wrong origin");

    const late = auth.assert((await signInOptions(m, T0)).challenge);
    expect(await signIn(m, late, at(PASSKEY_CHALLENGE_TTL_MS + 1))).toMatchObject({ ok: false });
    expect(await reason()).toBe("challenge unknown, used or expired");

    const reauth = auth.assert((await signInOptions(m, T0, "reauth", m.pendingSession)).challenge);
    expect(await signIn(m, reauth)).toMatchObject({ ok: false });

    const other = await m.newSession(true);
    const elsewhere = auth.assert((await signInOptions(m, T0, "sign_in", other)).challenge);
    expect(await signIn(m, elsewhere)).toMatchObject({ ok: false });
    expect(await signIn(m, elsewhere, T0, IP, other)).toMatchObject({ ok: true });

    const stranger = await member();
    const strangerKey = await withPasskey(stranger);
    expect(await signIn(m, strangerKey.auth.assert((await signInOptions(m)).challenge))).toMatchObject({ ok: false });
    expect(await reason()).toBe("passkey not registered to this member");
  });

  it("offers nothing to a member without passkeys, and refuses a disabled member", async () => {
    const m = await member();
    expect(await passkeyAuthenticationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.pendingSession, purpose: "sign_in", rp, now: T0 })).toMatchObject({ ok: false });
    const { auth } = await withPasskey(m);
    const options = await signInOptions(m);
    await handle.db.update(staffMembers).set({ disabledAt: T0 }).where(eq(staffMembers.id, m.staffId));
    expect(await signIn(m, auth.assert(options.challenge))).toMatchObject({ ok: false });
    expect((await audits(m.staffId, "staff.sign_in_failed"))[0]?.detail).toMatchObject({ reason: "account disabled" });
    expect(await passkeyAuthenticationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.pendingSession, purpose: "sign_in", rp, now: T0 })).toMatchObject({ ok: false });
  });

  it("a fresh factor (reauth) marks the session's factorAt", async () => {
    const m = await member();
    const { auth } = await withPasskey(m);
    const options = await signInOptions(m, at(60_000), "reauth", m.fullSession);
    const result = await verifyPasskey(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, purpose: "reauth", response: auth.assert(options.challenge), rp, ip: IP, now: at(70_000) });
    expect(result).toMatchObject({ ok: true });
    expect((await handle.db.query.staffSessions.findFirst({ where: eq(staffSessions.id, m.fullSession) }))?.factorAt).toEqual(at(70_000));
    expect((await audits(m.staffId, "staff.reauthenticated"))[0]?.detail).toMatchObject({ method: "passkey" });
  });
});

describe("limits", () => {
  it(`refuses past ${PASSKEY_LIMIT_PER_MEMBER} failed attempts per member, even a right one, and audits it`, async () => {
    const m = await member();
    const { auth } = await withPasskey(m, "Laptop", T0, "10.7.0.1");
    for (let i = 0; i < PASSKEY_LIMIT_PER_MEMBER; i++) {
      expect(await signIn(m, auth.assert((await signInOptions(m)).challenge, { signWith: otherPrivateKey() }), T0, `10.7.${i + 1}.1`)).toMatchObject({ limited: false });
    }
    const right = await signIn(m, auth.assert((await signInOptions(m)).challenge), T0, "10.7.99.1");
    expect(right).toMatchObject({ ok: false, limited: true });
    expect(!right.ok && right.message).toMatch(/wait \d+ minutes?/);
    expect((await audits(m.staffId, "staff.sign_in_failed"))[0]?.detail).toMatchObject({ reason: "too many attempts" });
    // After the window, a right one works and clears the count.
    expect(await signIn(m, auth.assert((await signInOptions(m, at(16 * 60_000))).challenge), at(16 * 60_000), "10.7.99.1")).toMatchObject({ ok: true });
  });

  it("counts per address across members", async () => {
    const ip = "10.6.0.1";
    let limited = false;
    for (let i = 0; i < 40 && !limited; i++) {
      const m = await member();
      const { auth } = await withPasskey(m, "Laptop", T0, `10.5.${i}.1`);
      const r = await signIn(m, auth.assert((await signInOptions(m)).challenge, { signWith: otherPrivateKey() }), T0, ip);
      limited = !r.ok && r.limited;
    }
    expect(limited).toBe(true);
  });

  it("a right attempt is not counted against the member", async () => {
    const m = await member();
    const { auth } = await withPasskey(m, "Laptop", T0, "10.4.0.1");
    for (let i = 0; i < PASSKEY_LIMIT_PER_MEMBER + 2; i++) {
      expect(await signIn(m, auth.assert((await signInOptions(m)).challenge), T0, "10.4.0.2")).toMatchObject({ ok: true });
    }
  });
});

describe("removal", () => {
  it("removes the member's own passkey (audited), and not another member's", async () => {
    const m = await member();
    const other = await member();
    const { passkeyId } = await withPasskey(m, "Phone");
    expect(await removePasskey(handle.db, { accountId, staffId: other.staffId, passkeyId, ip: IP, now: T0 })).toBe(false);
    expect(await listPasskeys(handle.db, m.staffId)).toHaveLength(1);
    expect(await removePasskey(handle.db, { accountId, staffId: m.staffId, passkeyId, ip: IP, now: T0 })).toBe(true);
    expect(await listPasskeys(handle.db, m.staffId)).toHaveLength(0);
    expect((await audits(m.staffId, "staff.passkey_removed"))[0]).toMatchObject({ entity: "staff_passkey", entityId: String(passkeyId), changes: { name: { before: "Phone", after: null } } });
    expect(await removePasskey(handle.db, { accountId, staffId: m.staffId, passkeyId, ip: IP, now: T0 })).toBe(false);
  });
});

describe("relying party", () => {
  const saved = { CONSOLE_URL: process.env.CONSOLE_URL, PUBLIC_URL: process.env.PUBLIC_URL, NODE_ENV: process.env.NODE_ENV, PORT: process.env.PORT };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  const website = { domain: "www.gatehousestorage.example", websiteName: "Gatehouse" };

  it("is the console's configured origin (CONSOLE_URL, else beside the site's) and its host name; never a request's Host", () => {
    delete process.env.CONSOLE_URL;
    delete process.env.PUBLIC_URL;
    delete process.env.PORT;
    // Development and tests: the console on admin.localhost (decision 450).
    expect(relyingParty(website)).toEqual({ id: "admin.localhost", origin: "http://admin.localhost:3000", name: "Gatehouse back office" });
    process.env.PUBLIC_URL = "https://www.storage.example.com/some/path";
    expect(relyingParty(website)).toMatchObject({ id: "admin.storage.example.com", origin: "https://admin.storage.example.com" });
    process.env.CONSOLE_URL = "https://office.storage.example.com/x";
    expect(relyingParty(website)).toMatchObject({ id: "office.storage.example.com", origin: "https://office.storage.example.com" });
  });

  it("names a passkey from what was typed", () => {
    expect(passkeyName("  My\u200b  key\n")).toBe("My key");
    expect(passkeyName(undefined)).toBe("Passkey");
    expect(passkeyName("x".repeat(100))).toHaveLength(60);
  });
});

describe("the code page (route)", () => {
  it("offers a member's passkey and signs in with it: a full session replaces the password-only one; a replay is refused", async () => {
    const m = await member();
    const site = relyingParty((await getWebsite(handle.db))!);
    const now = new Date();
    // A passkey registered for the site's own relying party.
    const auth = new SoftAuthenticator({ origin: site.origin, rpId: site.id, counter: 1 });
    const reg = await passkeyRegistrationOptions(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, rp: site, now });
    expect(await registerPasskey(handle.db, { accountId, staffId: m.staffId, sessionHash: m.fullSession, response: auth.register(reg.ok ? reg.options.challenge : ""), name: "Desk PC", rp: site, ip: IP, now })).toMatchObject({ ok: true });

    const staffCookie = (await createStaffSession(handle.db, { staffId: m.staffId, now, passwordOnly: true })).split(";")[0]!;
    const pending = (await getStaffSession(handle.db, new Request("http://localhost/admin", { headers: { Cookie: staffCookie } }), now))!;
    // The code page's token is bound to the (password-only) staff session (decision 283).
    const csrf = await getCsrfToken(new Request("http://localhost/admin/sign-in/code", { headers: { Cookie: staffCookie } }));
    expect(csrf.setCookie).toBeNull();
    const cookie = staffCookie;
    const page = await callRoute<{ passkeyOptions: string | null }>(codeLoader, handle.db, "/admin/sign-in/code", { init: { headers: { Cookie: cookie } } });
    const options = JSON.parse(page.data.passkeyOptions!) as { challenge: string; rpId: string; allowCredentials: Array<{ id: string }> };
    expect(options).toMatchObject({ rpId: site.id, allowCredentials: [{ id: auth.id }] });

    const post = (response: unknown) => {
      const body = new URLSearchParams({ [CSRF_FIELD]: csrf.token, intent: "passkey", next: "/admin/staff", response: JSON.stringify(response) });
      return callRoute<{ message: string | null }>(codeAction, handle.db, "/admin/sign-in/code", { init: { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } }, clientIp: IP });
    };
    const response = auth.assert(options.challenge);
    const signedIn = await post(response);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("Location")).toBe("/admin/staff");
    expect(signedIn.headers.getSetCookie().some((c) => /^__Host-gh_staff=/.test(c) && !c.startsWith(`${staffCookie};`))).toBe(true);
    expect(await handle.db.query.staffSessions.findFirst({ where: eq(staffSessions.id, pending.sessionHash) })).toBeUndefined();
    expect((await audits(m.staffId, "staff.sign_in"))[0]?.detail).toMatchObject({ method: "passkey", passkey: "Desk PC" });

    // The same answer again with the old cookie: its session is gone, so back to the password step.
    const again = await post(response);
    expect(again.headers.get("Location")).toBe("/admin/sign-in");
    expect(again.headers.getSetCookie().some((c) => /^(?:__Host-)?gh_staff=[^;]/.test(c))).toBe(false);
  });
});
