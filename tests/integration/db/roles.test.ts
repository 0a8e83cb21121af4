/**
 * Issue 36, finding 2 (decision 462): the audit trail was append-only only for well-behaved code. The
 * app's role owned the tables (it ran the migrations), so it could `ALTER TABLE … DISABLE TRIGGER`
 * and rewrite or erase rows. Here the app connects as a role that owns nothing, granted by
 * `grantAppRole` (what `db:migrate` and `db:setup` run as the owner): every statement that would
 * change the audit trail is refused, INSERT and SELECT work, and the app works over HTTP as that role.
 *
 * On PostgreSQL only: PGlite has one session, whose user is a superuser (see the decision).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import pg from "pg";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { auditEvents, contactMessages } from "~/db/schema";
import { appRoleGrants, ensurePgliteAppRole, grantAppRole, schemaSetupStatements, usePgliteAppRole } from "~/db/roles.server";
import { readPageChanges } from "~/db/page-changes.server";
import { getWebsite } from "~/db/queries/site.server";
import { recordAudit } from "~/services/audit/events.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { staffPasswordStep } from "~/services/staff/auth.server";
import { startAppServer, type AppServer } from "../support/app-server";
import { createTestDatabase, isPostgres } from "../support/db";

const role = `gh_app_${process.pid}_${Date.now()}`;
let owner: DatabaseHandle;
let app: DatabaseHandle;
let appClient: pg.Client;
let server: AppServer;
let accountId: number;

describe.skipIf(!isPostgres())("the app's database role (PostgreSQL)", () => {
  beforeAll(async () => {
    owner = await createTestDatabase({ seeded: true });
    accountId = (await getWebsite(owner.db))!.accountId;
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE ROLE "${role}" LOGIN NOINHERIT PASSWORD 'app-role-test'`);
    await admin.end();
    const ownerUrl = await urlOf(owner);
    const database = new URL(ownerUrl).pathname.slice(1);
    for (const statement of schemaSetupStatements({ owner: "postgres", app: role, database })) await owner.db.execute(sql.raw(statement));
    await grantAppRole(owner, role);
    const appUrl = new URL(ownerUrl);
    appUrl.username = role;
    appUrl.password = "app-role-test";
    app = openDatabase({ url: appUrl.toString(), poolSize: 4 });
    appClient = new pg.Client({ connectionString: appUrl.toString() });
    await appClient.connect();
    server = await startAppServer(app.db);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await appClient?.end();
    await app?.close();
    await owner?.close();
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    await admin.end();
  });

  it("connects as a role that owns nothing and is no superuser", async () => {
    const { rows } = await appClient.query<{ user: string; superuser: string; owned: string }>(
      "select current_user as user, current_setting('is_superuser') as superuser, (select count(*) from pg_tables where tableowner = current_user)::text as owned",
    );
    expect(rows[0]).toEqual({ user: role, superuser: "off", owned: "0" });
  });

  it("may INSERT into and SELECT from the audit trail", async () => {
    await recordAudit(app.db, { accountId, staffId: null, actor: "db-roles-test", ip: null, action: "staff.sign_in_failed", at: new Date() });
    const rows = await app.db.select({ id: auditEvents.id }).from(auditEvents).where(eq(auditEvents.actor, "db-roles-test"));
    expect(rows).toHaveLength(1);
  });

  it("a change it makes to what a page shows commits, counted once, and it reads the change counter (decision 710)", async () => {
    const before = await readPageChanges(app.db);
    await app.db.transaction(async (tx) => {
      await tx.execute(sql`update accounts set tagline = ${`as the app's role ${Date.now()}`} where id = ${accountId}`);
      await tx.execute(sql`update accounts set tagline = tagline || '.' where id = ${accountId}`);
    });
    expect(await readPageChanges(app.db)).toBe(before + 1);
  });

  // The review's reproduction first: DISABLE TRIGGER, then rewrite and erase, in a transaction.
  it.each([
    ["ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only", "must be owner"],
    ["ALTER TABLE audit_events DISABLE TRIGGER ALL", "must be owner"],
    ["ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_truncate", "must be owner"],
    ["ALTER TABLE audit_events ADD COLUMN note text", "must be owner"],
    ["ALTER TABLE audit_events OWNER TO CURRENT_USER", "must be owner"],
    ["DROP TRIGGER audit_events_append_only ON audit_events", "must be owner"],
    ["CREATE OR REPLACE FUNCTION gatehouse_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$", "permission denied for schema public"],
    ["UPDATE audit_events SET action = 'rewritten'", "permission denied"],
    ["DELETE FROM audit_events", "permission denied"],
    ["TRUNCATE audit_events", "permission denied"],
    ["DROP TABLE audit_events", "must be owner"],
    ["SET session_replication_role = replica", "permission denied"],
    ["SET ROLE postgres", "permission denied"],
    ["CREATE TABLE audit_copy (id int)", "permission denied"],
  ])("%s is refused", async (statement, message) => {
    await appClient.query("BEGIN");
    try {
      await expect(appClient.query(statement)).rejects.toThrow(message);
    } finally {
      await appClient.query("ROLLBACK");
    }
    // A grant the app's role would give itself gives nothing (it holds no grant option).
    await appClient.query("GRANT UPDATE, DELETE ON audit_events TO PUBLIC");
    await expect(appClient.query("UPDATE audit_events SET action = 'rewritten'")).rejects.toThrow("permission denied");
    expect((await owner.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents))[0]!.n).toBeGreaterThan(0);
  });

  it("keeps the rows as they were", async () => {
    const rows = await owner.db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.actor, "db-roles-test"));
    expect(rows).toEqual([{ action: "staff.sign_in_failed" }]);
  });

  it("the app works as that role: pages over HTTP, a form that writes, a sign-in that is audited", async () => {
    for (const path of ["/", "/view-locations", "/locations/lumberton-nc-28358", "/admin/sign-in"]) expect((await fetch(server.origin + path)).status, path).toBe(200);
    const { token, setCookie } = await getCsrfToken(new Request(`${server.origin}/contact`));
    const body = new URLSearchParams({ csrf: token, name: "Role Test", email: "role-test@example.com", phone: "910 555 0199", location: "jacksonville-nc-28546", message: "Written by the app's role" });
    const posted = await fetch(`${server.origin}/contact`, { method: "POST", redirect: "manual", body, headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" } });
    expect(posted.status).toBe(303);
    expect(await owner.db.select({ name: contactMessages.name }).from(contactMessages).where(eq(contactMessages.email, "role-test@example.com"))).toEqual([{ name: "Role Test" }]);
    const failed = await staffPasswordStep(app.db, { accountId, email: "nobody-role@example.com", password: "not-a-password", ip: "10.36.0.1", now: new Date() });
    expect(failed.ok).toBe(false);
    expect(await owner.db.select({ action: auditEvents.action }).from(auditEvents).where(eq(auditEvents.actor, "nobody-role@example.com"))).toEqual([{ action: "staff.sign_in_failed" }]);
  });
});

// PGlite (decision 462): the engine has roles and SET ROLE, so the grants are the same SQL and, under
// the app's role, the same statements are refused. But its one session's user is a superuser, and any
// later statement may RESET ROLE: on PGlite the split guards against mistakes, not against the code it runs.
describe.skipIf(isPostgres())("the app's role on PGlite (SET ROLE)", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase({ seeded: true });
  }, 120_000);
  afterAll(async () => {
    await handle?.close();
  });

  it("takes the same grants; under the role the audit trail cannot be changed; RESET ROLE undoes it", async () => {
    await ensurePgliteAppRole(handle);
    await ensurePgliteAppRole(handle); // again, as every db:setup does
    const accountId = (await getWebsite(handle.db))!.accountId;
    await usePgliteAppRole(handle);
    const who = await handle.db.execute<{ role: string }>(sql`select current_user as role`);
    expect(((Array.isArray(who) ? who : (who as { rows: Array<{ role: string }> }).rows) as Array<{ role: string }>)[0]!.role).toBe("gatehouse_app");
    try {
      await recordAudit(handle.db, { accountId, staffId: null, actor: "pglite-role", ip: null, action: "staff.sign_in_failed", at: new Date() });
      expect(await handle.db.select({ id: auditEvents.id }).from(auditEvents).where(eq(auditEvents.actor, "pglite-role"))).toHaveLength(1);
      for (const statement of [
        "ALTER TABLE audit_events DISABLE TRIGGER ALL",
        "UPDATE audit_events SET action = 'rewritten'",
        "DELETE FROM audit_events",
        "TRUNCATE audit_events",
        "DROP TABLE audit_events",
      ]) {
        await expect(handle.db.execute(sql.raw(statement)), statement).rejects.toThrow();
      }
    } finally {
      await handle.db.execute(sql.raw("RESET ROLE"));
    }
    const rows = await handle.db.execute<{ role: string }>(sql`select current_user as role`);
    const role = ((Array.isArray(rows) ? rows : (rows as { rows: Array<{ role: string }> }).rows) as Array<{ role: string }>)[0]!.role;
    expect(role).not.toBe("gatehouse_app");
  });
});

describe("appRoleGrants", () => {
  it("gives the app's role no UPDATE, DELETE or TRUNCATE on the audit trail, and refuses a name that is not plain", () => {
    const statements = appRoleGrants("gatehouse_app");
    expect(statements).toContain(`REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON "audit_events" FROM "gatehouse_app", PUBLIC`);
    expect(() => appRoleGrants('app"; drop table x; --')).toThrow(/lowercase/);
  });
});

async function urlOf(handle: DatabaseHandle): Promise<string> {
  const result = await handle.db.execute<{ db: string }>(sql`select current_database() as db`);
  const rows = (Array.isArray(result) ? result : (result as { rows: Array<{ db: string }> }).rows) as Array<{ db: string }>;
  const u = new URL(process.env.TEST_DATABASE_URL!);
  u.pathname = `/${rows[0]!.db}`;
  return u.toString();
}
