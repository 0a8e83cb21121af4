import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { tenants } from "~/db/schema";
import { DEMO_TENANT_EMAIL, DEMO_TENANT_PASSWORD, demoTenantWanted } from "../../../seeds/demo-tenant";
import { signIn } from "~/services/portal/sign-in-limits.server";
import { accountStorage, portalLocations } from "~/services/portal/context.server";
import { seedDatabase } from "../../../seeds/seed";
import { createTestDatabase } from "../support/db";

// Issue 8 and 19: the demo tenant's password is published, so production (on PostgreSQL or PGlite)
// does not get it unless SEED_DEMO_TENANT=true; `npm start` on a fresh machine (not production) keeps it.
describe("demo tenant in each environment", () => {
  it.each([
    [{}, true], // npm start / npm run dev on a fresh machine
    [{ NODE_ENV: "development" }, true],
    [{ NODE_ENV: "production" }, false], // production on PGlite: the Docker image's default (issue 19)
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "test" }, false], // a demo box still has to ask for it
    [{ NODE_ENV: "production", SEED_DEMO_TENANT: "true", PAYMENT_GATEWAY: "test" }, true],
    [{ NODE_ENV: "development", DATABASE_URL: "postgres://db/x" }, true],
    [{ NODE_ENV: "production", DATABASE_URL: "postgres://db/x", PAYMENT_GATEWAY: "test" }, false],
    [{ NODE_ENV: "production", DATABASE_URL: "postgres://db/x", SEED_DEMO_TENANT: "true", PAYMENT_GATEWAY: "test" }, true],
    // Decision 200: in production only on a demonstration site (its first month is paid through the test gateway).
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "none" }, false],
    [{ NODE_ENV: "production", SEED_DEMO_TENANT: "true", PAYMENT_GATEWAY: "none" }, false],
    [{ NODE_ENV: "development", SEED_DEMO_TENANT: "false" }, false],
    [{ NODE_ENV: "test" }, false],
  ] as const)("%j → %s", (env, wanted) => {
    expect(demoTenantWanted(env as NodeJS.ProcessEnv)).toBe(wanted);
  });
});

describe("seedDatabase and the demo tenant", () => {
  let handle: DatabaseHandle;
  beforeEach(async () => {
    handle = await createTestDatabase();
  });
  afterEach(() => handle.close());
  const demoTenants = async () =>
    (await handle.db.select({ id: tenants.id }).from(tenants).where(sql`lower(${tenants.email}) = ${DEMO_TENANT_EMAIL}`)).length;

  it("production on PostgreSQL: not seeded", async () => {
    const report = await seedDatabase(handle.db, { env: { NODE_ENV: "production", DATABASE_URL: "postgres://db/x" } });
    expect(report.created).toEqual([]);
    expect(await demoTenants()).toBe(0);
  });

  it("production on PostgreSQL with SEED_DEMO_TENANT=true: seeded", async () => {
    const report = await seedDatabase(handle.db, { env: { NODE_ENV: "production", DATABASE_URL: "postgres://db/x", SEED_DEMO_TENANT: "true", PAYMENT_GATEWAY: "test" } });
    expect(report.created).toEqual([`demo tenant ${DEMO_TENANT_EMAIL}`]);
    expect(await demoTenants()).toBe(1);
  });

  const demoSignsIn = async () => {
    const [account] = await handle.db.query.accounts.findMany({ limit: 1 });
    const { storage } = accountStorage(handle.db, await portalLocations(handle.db, account!.id));
    const r = await signIn(handle.db, storage, { accountId: account!.id, email: DEMO_TENANT_EMAIL, password: DEMO_TENANT_PASSWORD, ip: "192.0.2.1", now: new Date() });
    return r.ok;
  };

  it("production on PGlite (the Docker image's default, no DATABASE_URL): not seeded, and cannot sign in", async () => {
    const report = await seedDatabase(handle.db, { env: { NODE_ENV: "production" } });
    expect(report.created).toEqual([]);
    expect(await demoTenants()).toBe(0);
    expect(await demoSignsIn()).toBe(false);
  });

  it("production start-up after an older version seeded it: the published password no longer signs in", async () => {
    await seedDatabase(handle.db, { env: { NODE_ENV: "production", SEED_DEMO_TENANT: "true", PAYMENT_GATEWAY: "test" } });
    expect(await demoSignsIn()).toBe(true);
    const report = await seedDatabase(handle.db, { env: { NODE_ENV: "production" } });
    expect(report.created).toEqual([`demo tenant ${DEMO_TENANT_EMAIL}: published password disabled (production)`]);
    expect(await demoTenants()).toBe(1);
    expect(await demoSignsIn()).toBe(false);
    // Idempotent.
    expect((await seedDatabase(handle.db, { env: { NODE_ENV: "production" } })).created).toEqual([]);
  });

  it("a fresh machine (PGlite, NODE_ENV unset): seeded", async () => {
    const report = await seedDatabase(handle.db, { env: {} });
    expect(report.created).toEqual([`demo tenant ${DEMO_TENANT_EMAIL}`]);
    expect(await demoTenants()).toBe(1);
  });
});
