/**
 * Decision 462 on PGlite: after `db:setup` made the app's role (`ensurePgliteAppRole`), the BUILT
 * server works as it — its first statement on PGlite's one connection is SET ROLE — so the audit
 * trail cannot be changed through it, while its pages and a sign-in (audited) work. On PostgreSQL the
 * role is DATABASE_URL's (tests/integration/db/roles.test.ts).
 */
// First: it gives this process and the built app one session secret.
import { startBuiltServer, type BuiltServer } from "../support/built-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { auditEvents } from "~/db/schema";
import { ensurePgliteAppRole } from "~/db/roles.server";
import { createTestDatabase, isPostgres } from "../support/db";

let handle: DatabaseHandle;
let server: BuiltServer;

const rowsOf = <T>(r: unknown) => (Array.isArray(r) ? r : (r as { rows: T[] }).rows) as T[];

describe.skipIf(isPostgres())("the built server on PGlite works as the app's role", () => {
  beforeAll(async () => {
    handle = await createTestDatabase();
    await ensurePgliteAppRole(handle);
    server = await startBuiltServer(handle);
  }, 600_000);

  afterAll(async () => {
    await server?.close();
    await handle?.close();
  });

  it("serves pages and audits a failed staff sign-in as gatehouse_app, which cannot change the audit trail", async () => {
    expect((await fetch(`${server.origin}/`)).status).toBe(200);
    const role = rowsOf<{ role: string }>(await handle.db.execute(sql`select current_user as role`))[0]!.role;
    expect(role).toBe("gatehouse_app");
    const signIn = await fetch(`${server.origin}/admin/sign-in`);
    expect(signIn.status).toBe(200);
    await expect(handle.db.execute(sql.raw("ALTER TABLE audit_events DISABLE TRIGGER ALL"))).rejects.toThrow();
    await expect(handle.db.execute(sql.raw("DELETE FROM audit_events"))).rejects.toThrow();
    await expect(handle.db.execute(sql.raw("TRUNCATE audit_events"))).rejects.toThrow();
    await handle.db.insert(auditEvents).values({ accountId: rowsOf<{ id: number }>(await handle.db.execute(sql`select id from accounts limit 1`))[0]!.id, actor: "pglite-server-role", action: "staff.sign_in_failed" });
    expect(await handle.db.select({ id: auditEvents.id }).from(auditEvents).where(eq(auditEvents.actor, "pglite-server-role"))).toHaveLength(1);
  });
});
