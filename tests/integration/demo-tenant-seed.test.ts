import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import { tenants } from "~/db/schema";
import { DEMO_TENANT_EMAIL, demoTenantWanted } from "../../seeds/demo-tenant";
import { seedDatabase } from "../../seeds/seed";
import { createTestDatabase } from "./db";

// Issue 8: the demo tenant's password is published, so production on PostgreSQL does not get it
// unless SEED_DEMO_TENANT=true; `npm start` on a fresh machine (PGlite, not production) keeps it.
describe("demo tenant in each environment", () => {
  it.each([
    [{}, true], // npm start / npm run dev on a fresh machine
    [{ NODE_ENV: "development" }, true],
    [{ NODE_ENV: "production", PAYMENT_GATEWAY: "test" }, true], // production on PGlite (a demo box)
    [{ NODE_ENV: "development", DATABASE_URL: "postgres://db/x" }, true],
    [{ NODE_ENV: "production", DATABASE_URL: "postgres://db/x", PAYMENT_GATEWAY: "test" }, false],
    [{ NODE_ENV: "production", DATABASE_URL: "postgres://db/x", SEED_DEMO_TENANT: "true", PAYMENT_GATEWAY: "test" }, true],
    // Decision 200: in production only on a demonstration site (its first month is paid through the test gateway).
    [{ NODE_ENV: "production" }, false],
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

  it("a fresh machine (PGlite, NODE_ENV unset): seeded", async () => {
    const report = await seedDatabase(handle.db, { env: {} });
    expect(report.created).toEqual([`demo tenant ${DEMO_TENANT_EMAIL}`]);
    expect(await demoTenants()).toBe(1);
  });
});
