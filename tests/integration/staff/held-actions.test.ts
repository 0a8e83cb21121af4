/**
 * "Confirm it's you" completes every action it interrupts (issue 39, decision 660), over real HTTP
 * against the app's routes, as a browser without JavaScript does it: the form posted with a stale
 * second factor is held (303 to /admin/reauth with the held action's token; nothing done yet), the
 * code is given (307 back to the form's URL), the browser posts the same body again and the action is
 * completed with what was chosen, once; the same post again (a replay, the back button) does nothing.
 * Every action that asks for a recent sign-in: the staff page's (invite, role and locations, end
 * sessions, disable, re-enable, lift a lockout, reset sign-in), "Your sign-in"'s (add and remove a
 * passkey) and the audit trail's revert; the refund's is in tests/integration/desk/tenant-page.test.ts.
 * Then: the role checked again at completion (no longer allowed: nothing done, and the page says so),
 * the CSRF token checked again at completion, and the URL held as the server saw it (a JavaScript
 * post to `.data`, the audit trail's filter).
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { auditEvents, locations, rateLimitHits, staffHeldActions, staffLocations, staffMembers, staffPasskeys, staffRecoveryCodes, staffSessions } from "~/db/schema";
import { hashPassword } from "~/platform/password.server";
import { now as clockNow } from "~/platform/clock.server";
import { currentDraftId, readEffectiveRecord, saveDraftEdit } from "~/services/content/changesets.server";
import { discardChangeset } from "~/services/content/publish.server";
import { staffLockoutKeys } from "~/services/staff/auth.server";
import { passkeyRegistrationOptions, relyingParty } from "~/services/staff/passkeys.server";
import { HELD_ACTION_GONE, HELD_ACTION_NOT_ALLOWED } from "~/services/staff/step-up.server";
import { hitRateLimit } from "~/services/web/rate-limit.server";
import { CSRF_FIELD } from "~/services/web/csrf.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase } from "../support/db";
import { signedInStaffMember, STALE_FACTOR_MS, type TestStaffMember } from "../support/staff-fixtures";
import { staffBrowser } from "../support/staff-browser";
import { SoftAuthenticator } from "../support/webauthn-authenticator";
import { textOf } from "../desk/over-http";

let handle: DatabaseHandle;
let app: AppServer;
let accountId: number;
let lumberton: number;
let jacksonville: number;
let n = 0;

beforeAll(async () => {
  handle = await createTestDatabase();
  const locs = await handle.db.select().from(locations);
  lumberton = locs.find((l) => l.name === "Lumberton")!.id;
  jacksonville = locs.find((l) => l.name === "Jacksonville")!.id;
  accountId = locs[0]!.accountId;
  app = await startAppServer(handle.db);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await handle?.close();
});

const RECOVERY_CODE = "abcde12345";

/** A member whose second factor is stale (past ten minutes), with one recovery code to confirm with. */
async function staleMember(role: TestStaffMember["role"] = "owner", locationIds: number[] = []) {
  const member = await signedInStaffMember(handle.db, { accountId, role, locationIds, factorAgeMs: STALE_FACTOR_MS, name: `stale-${role}-${++n}` });
  await handle.db.insert(staffRecoveryCodes).values({ staffId: member.staffId, codeHash: await hashPassword(RECOVERY_CODE) });
  return member;
}

const browserOf = (member: TestStaffMember) => staffBrowser(app.origin, member);
type Browser = Awaited<ReturnType<typeof browserOf>>;

/**
 * Posts the form with a stale factor: held (303 to "Confirm it's you", which says it will be done
 * after the code), then the code (307 back to `path`). Returns the body the browser posts again.
 */
async function heldThenConfirmed(browser: Browser, path: string, fields: Array<[string, string]>): Promise<URLSearchParams> {
  const asked = await browser.send(path, new URLSearchParams([[CSRF_FIELD, browser.token], ...fields]));
  expect(asked.status, `${path}: held`).toBe(303);
  const reauth = new URL(asked.location!, app.origin);
  expect(reauth.pathname).toBe("/admin/reauth");
  expect(reauth.searchParams.get("next")).toBe(path);
  const held = reauth.searchParams.get("heldAction");
  expect(held).toMatch(/^[\w-]{20,}$/);
  const page = await browser.send(`${reauth.pathname}${reauth.search}`);
  expect(page.status).toBe(200);
  expect(page.body).toContain(`name="heldAction" value="${held}"`);
  expect(textOf(page.body)).toContain("it is done straight after");
  const body = new URLSearchParams({ [CSRF_FIELD]: browser.token, next: path, heldAction: held!, code: "abcde-12345" });
  const confirmed = await browser.send("/admin/reauth", body);
  expect(confirmed.status).toBe(307);
  expect(confirmed.location).toBe(path);
  return body;
}

const auditCount = async (action: string, entityId?: number | string) =>
  (await handle.db.select({ id: auditEvents.id }).from(auditEvents).where(entityId === undefined ? eq(auditEvents.action, action) : and(eq(auditEvents.action, action), eq(auditEvents.entityId, String(entityId))))).length;

const memberRow = async (staffId: number) => (await handle.db.query.staffMembers.findFirst({ where: eq(staffMembers.id, staffId) }))!;

interface Case {
  name: string;
  /** The member who asks (an owner unless said), the form's URL and fields, and what it changes. */
  set: () => Promise<{
    who?: TestStaffMember;
    path: string;
    fields: Array<[string, string]>;
    /** The audit row the action writes (once), and its record. */
    audit: [string, (number | string)?];
    /** Whether the action's change is in the database. */
    done: () => Promise<boolean>;
    /** The completion's answer: a redirect's Location, or text the page shows. */
    answer: { location: string } | { text: string };
    after?: () => Promise<void>;
  }>;
}

const CASES: Case[] = [
  {
    name: "the staff page: invite a member, with the role and locations chosen",
    set: async () => {
      const email = `invited-${++n}@office.example`;
      return {
        path: "/admin/staff",
        fields: [["intent", "invite"], ["email", email], ["role", "front_desk"], ["locations", String(lumberton)], ["locations", String(jacksonville)]],
        audit: ["staff.invited"],
        done: async () => {
          const row = await handle.db.query.staffMembers.findFirst({ where: eq(staffMembers.email, email) });
          if (!row) return false;
          const locs = await handle.db.select().from(staffLocations).where(eq(staffLocations.staffId, row.id));
          expect(row.role).toBe("front_desk");
          expect(locs.map((l) => l.locationId).sort()).toEqual([lumberton, jacksonville].sort());
          return true;
        },
        answer: { text: `Invitation e-mailed to ${email}` },
      };
    },
  },
  {
    name: "the staff page: a member's role and locations",
    set: async () => {
      const target = await signedInStaffMember(handle.db, { accountId, role: "read_only", locationIds: [lumberton] });
      return {
        path: "/admin/staff",
        fields: [["staffId", String(target.staffId)], ["role", "manager"], ["locations", String(jacksonville)], ["intent", "access"]],
        audit: ["staff.access_changed", target.staffId],
        done: async () => {
          const locs = await handle.db.select().from(staffLocations).where(eq(staffLocations.staffId, target.staffId));
          return (await memberRow(target.staffId)).role === "manager" && locs.length === 1 && locs[0]!.locationId === jacksonville;
        },
        answer: { location: "/admin/staff?done=access" },
      };
    },
  },
  {
    name: "the staff page: end a member's sessions",
    set: async () => {
      const target = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton] });
      return {
        path: "/admin/staff",
        fields: [["staffId", String(target.staffId)], ["intent", "sessions"]],
        audit: ["staff.sessions_ended", target.staffId],
        done: async () => (await handle.db.select().from(staffSessions).where(eq(staffSessions.staffId, target.staffId))).length === 0,
        answer: { location: "/admin/staff?done=sessions" },
      };
    },
  },
  {
    name: "the staff page: disable a member (the box ticked)",
    set: async () => {
      const target = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton] });
      return {
        path: "/admin/staff",
        fields: [["staffId", String(target.staffId)], ["confirm", "yes"], ["intent", "disable"]],
        audit: ["staff.disabled", target.staffId],
        done: async () => (await memberRow(target.staffId)).disabledAt !== null,
        answer: { location: "/admin/staff?done=disabled" },
      };
    },
  },
  {
    name: "the staff page: re-enable a member",
    set: async () => {
      const target = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton] });
      await handle.db.update(staffMembers).set({ disabledAt: clockNow() }).where(eq(staffMembers.id, target.staffId));
      return {
        path: "/admin/staff",
        fields: [["staffId", String(target.staffId)], ["intent", "enable"]],
        audit: ["staff.enabled", target.staffId],
        done: async () => (await memberRow(target.staffId)).disabledAt === null,
        answer: { location: "/admin/staff?done=enabled" },
      };
    },
  },
  {
    name: "the staff page: lift a member's lockout",
    set: async () => {
      const target = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton] });
      const keys = staffLockoutKeys(accountId, { id: target.staffId, email: target.email });
      for (const k of keys) for (let i = 0; i <= k.limit; i++) await hitRateLimit(handle.db, { key: k.key, limit: k.limit, windowMs: 15 * 60_000, now: clockNow() });
      const locked = () => handle.db.select().from(rateLimitHits).where(inArray(rateLimitHits.key, keys.map((k) => k.key)));
      expect((await locked()).length).toBe(keys.length);
      return {
        path: "/admin/staff",
        fields: [["staffId", String(target.staffId)], ["intent", "lift-lockout"]],
        audit: ["staff.lockout_lifted", target.staffId],
        done: async () => (await locked()).length === 0,
        answer: { location: "/admin/staff?done=lockout" },
      };
    },
  },
  {
    name: "the staff page: reset a member's sign-in (the box ticked)",
    set: async () => {
      const target = await signedInStaffMember(handle.db, { accountId, role: "manager", locationIds: [lumberton] });
      return {
        path: "/admin/staff",
        fields: [["staffId", String(target.staffId)], ["confirm", "yes"], ["intent", "reset-sign-in"]],
        audit: ["staff.sign_in_reset", target.staffId],
        done: async () => (await memberRow(target.staffId)).passwordHash === null,
        answer: { text: `The sign-in of ${target.email} is reset` },
      };
    },
  },
  {
    name: "Your sign-in: remove a passkey",
    set: async () => {
      const who = await staleMember("front_desk", [lumberton]);
      const [key] = await handle.db.insert(staffPasskeys).values({ staffId: who.staffId, credentialId: `cred-${++n}`, publicKey: "not-used", name: "Old phone" }).returning({ id: staffPasskeys.id });
      return {
        who,
        path: "/admin/security",
        fields: [["intent", "remove"], ["passkeyId", String(key!.id)]],
        audit: ["staff.passkey_removed", key!.id],
        done: async () => (await handle.db.select().from(staffPasskeys).where(eq(staffPasskeys.id, key!.id))).length === 0,
        answer: { location: "/admin/security?done=removed" },
      };
    },
  },
  {
    name: "Your sign-in: add a passkey (the browser's answer to the page's challenge, held whole)",
    set: async () => {
      const who = await staleMember("read_only", [lumberton]);
      const rp = relyingParty((await getWebsite(handle.db))!);
      // The page was opened while the factor was fresh: its challenge is the session's.
      const options = await passkeyRegistrationOptions(handle.db, { accountId, staffId: who.staffId, sessionHash: who.signedIn.sessionHash, rp, now: clockNow() });
      if (!options.ok) throw new Error(options.message);
      const response = JSON.stringify(new SoftAuthenticator({ origin: rp.origin, rpId: rp.id, counter: 1 }).register(options.options.challenge));
      return {
        who,
        path: "/admin/security",
        fields: [["intent", "add"], ["name", "Desk laptop"], ["response", response]],
        audit: ["staff.passkey_added"],
        done: async () => (await handle.db.select().from(staffPasskeys).where(and(eq(staffPasskeys.staffId, who.staffId), eq(staffPasskeys.name, "Desk laptop")))).length === 1,
        answer: { location: "/admin/security?done=added" },
      };
    },
  },
  {
    name: "the audit trail: revert a field (the trail's filter kept)",
    set: async () => {
      const editor = await signedInStaffMember(handle.db, { accountId, role: "owner" });
      const before = (await readEffectiveRecord(handle.db, editor.signedIn, "location", lumberton))!.values.metaTagline;
      const saved = await saveDraftEdit(handle.db, editor.signedIn, { op: "update", entity: "location", recordId: lumberton, values: { metaTagline: `Held revert ${++n}` }, base: { metaTagline: before } });
      expect(saved.ok).toBe(true);
      const [latest] = await handle.db.select().from(auditEvents).where(and(eq(auditEvents.action, "content.draft_update"), eq(auditEvents.entityId, String(lumberton)))).orderBy(desc(auditEvents.id)).limit(1);
      const path = "/admin/audit?action=content.draft_update";
      return {
        path,
        fields: [["eventId", String(latest!.id)], ["field", "metaTagline"]],
        audit: ["content.draft_update", lumberton],
        done: async () => (await readEffectiveRecord(handle.db, editor.signedIn, "location", lumberton))!.values.metaTagline === before,
        answer: { location: "/admin/audit?action=content.draft_update&reverted=1" },
        after: async () => {
          const draft = await currentDraftId(handle.db, accountId);
          if (draft) await discardChangeset(handle.db, editor.signedIn, { changesetId: draft });
        },
      };
    },
  },
];

describe("Confirm it's you completes the action it interrupted, once (decision 660)", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const s = await c.set();
    const who = s.who ?? (await staleMember());
    const browser = await browserOf(who);
    const audits = await auditCount(...s.audit);
    const body = await heldThenConfirmed(browser, s.path, s.fields);
    // Held, and the code given: nothing done until the browser posts again.
    expect(await s.done()).toBe(false);
    expect(await auditCount(...s.audit)).toBe(audits);

    const done = await browser.send(s.path, body);
    if ("location" in s.answer) {
      expect({ status: done.status, location: done.location }).toEqual({ status: 303, location: s.answer.location });
    } else {
      expect(done.status).toBe(200);
      expect(textOf(done.body)).toContain(s.answer.text);
    }
    expect(await s.done()).toBe(true);
    expect(await auditCount(...s.audit)).toBe(audits + 1);

    // The same post again (a replay, the back button, a reload): the held action is spent.
    const again = await browser.send(s.path, body);
    expect(again.status).toBe(400);
    expect(textOf(again.body)).toContain(HELD_ACTION_GONE);
    expect(await auditCount(...s.audit)).toBe(audits + 1);
    await s.after?.();
  });
});

describe("checked again when the held action is completed", () => {
  it("a member whose role no longer allows it: nothing is done, the page says so, and the held action is spent", async () => {
    const owner = await staleMember();
    const target = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton] });
    const browser = await browserOf(owner);
    const body = await heldThenConfirmed(browser, "/admin/staff", [["staffId", String(target.staffId)], ["confirm", "yes"], ["intent", "disable"]]);
    // Meanwhile another owner made them a manager (no staff management).
    await handle.db.update(staffMembers).set({ role: "manager" }).where(eq(staffMembers.id, owner.staffId));
    const refused = await browser.send("/admin/staff", body);
    expect(refused.status).toBe(403);
    expect(textOf(refused.body)).toContain(HELD_ACTION_NOT_ALLOWED);
    expect(textOf(refused.body)).toContain("Nothing was done");
    expect((await memberRow(target.staffId)).disabledAt).toBeNull();
    // Made an owner again: the held action is not waiting to be done.
    await handle.db.update(staffMembers).set({ role: "owner" }).where(eq(staffMembers.id, owner.staffId));
    expect((await browser.send("/admin/staff", body)).status).toBe(400);
    expect((await memberRow(target.staffId)).disabledAt).toBeNull();
  });

  it("the CSRF token: a re-post without this session's token does nothing and leaves the held action for the real one", async () => {
    const owner = await staleMember();
    const target = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton] });
    const browser = await browserOf(owner);
    const body = await heldThenConfirmed(browser, "/admin/staff", [["staffId", String(target.staffId)], ["intent", "sessions"]]);
    const forged = new URLSearchParams(body);
    forged.set(CSRF_FIELD, "not-the-token");
    expect((await browser.send("/admin/staff", forged)).status).toBe(403);
    expect(await handle.db.select().from(staffSessions).where(eq(staffSessions.staffId, target.staffId))).toHaveLength(1);
    const done = await browser.send("/admin/staff", body);
    expect(done.location).toBe("/admin/staff?done=sessions");
    expect(await handle.db.select().from(staffSessions).where(eq(staffSessions.staffId, target.staffId))).toHaveLength(0);
  });

  it("another member cannot complete it with the token, and a member without the role is refused before anything is held", async () => {
    const owner = await staleMember();
    const target = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton] });
    const browser = await browserOf(owner);
    const asked = await browser.send("/admin/staff", new URLSearchParams([[CSRF_FIELD, browser.token], ["staffId", String(target.staffId)], ["intent", "sessions"]]));
    const held = new URL(asked.location!, app.origin).searchParams.get("heldAction")!;
    const other = await browserOf(await signedInStaffMember(handle.db, { accountId, role: "owner" }));
    const stolen = await other.send("/admin/staff", new URLSearchParams({ [CSRF_FIELD]: other.token, heldAction: held }));
    expect(stolen.status).toBe(400);
    expect(await handle.db.select().from(staffSessions).where(eq(staffSessions.staffId, target.staffId))).toHaveLength(1);

    const manager = await staleMember("manager", [lumberton]);
    const heldBefore = (await handle.db.select().from(staffHeldActions).where(eq(staffHeldActions.staffId, manager.staffId))).length;
    const managerBrowser = await browserOf(manager);
    const refused = await managerBrowser.send("/admin/staff", new URLSearchParams([[CSRF_FIELD, managerBrowser.token], ["staffId", String(target.staffId)], ["intent", "sessions"]]));
    expect(refused.status).toBe(403);
    expect(await handle.db.select().from(staffHeldActions).where(eq(staffHeldActions.staffId, manager.staffId))).toHaveLength(heldBefore);
  });

  it("holds the URL the server saw: a post with JavaScript (React Router's .data request) comes back to the page itself", async () => {
    const owner = await staleMember();
    const target = await signedInStaffMember(handle.db, { accountId, role: "front_desk", locationIds: [lumberton] });
    const browser = await browserOf(owner);
    const asked = await browser.send("/admin/staff.data", new URLSearchParams([[CSRF_FIELD, browser.token], ["staffId", String(target.staffId)], ["intent", "sessions"]]));
    expect(asked.status).toBeLessThan(500);
    expect(asked.body).toContain("/admin/reauth?next=%2Fadmin%2Fstaff&heldAction=");
    const [row] = await handle.db.select().from(staffHeldActions).where(eq(staffHeldActions.staffId, owner.staffId));
    expect(row!.path).toBe("/admin/staff");
    expect(row!.fields).toEqual([["staffId", String(target.staffId)], ["intent", "sessions"]]);
  });
});
