import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { accounts, locations, unitTypes, units } from "~/db/schema";
import { demoInventory, seedDemoUnits } from "../../../seeds/demo-units";
import { seedDatabase } from "../../../seeds/seed";
import { createTestDatabase } from "../support/db";

describe("demo inventory seed", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase();
  });
  afterAll(() => handle.close());

  it("stocks only the live locations, sizes 5x5 to 10x30, with climate-controlled, drive-up, parking and sold-out types", async () => {
    const rows = await handle.db
      .select({ slug: locations.urlSlug, status: locations.status, width: unitTypes.width, length: unitTypes.length, category: unitTypes.category })
      .from(unitTypes)
      .innerJoin(locations, eq(locations.id, unitTypes.locationId));
    expect(new Set(rows.map((r) => r.slug))).toEqual(new Set(["lumberton-nc-28358", "jacksonville-nc-28546"]));
    expect(rows.every((r) => r.status === "Live")).toBe(true);
    const areas = rows.map((r) => r.width * r.length);
    expect(Math.min(...areas)).toBe(25);
    expect(Math.max(...areas)).toBe(300);
    expect(new Set(rows.map((r) => r.category))).toEqual(new Set(["climate_controlled", "drive_up", "indoor", "parking"]));
    for (const slug of ["lumberton-nc-28358", "jacksonville-nc-28546"]) {
      expect(demoInventory(slug).filter((t) => !t.statuses.includes("available"))).toHaveLength(2);
    }
  });

  it("stores exactly the reproducible inventory of each location", async () => {
    const lumberton = await handle.db.query.locations.findFirst({ where: eq(locations.urlSlug, "lumberton-nc-28358") });
    const stored = await handle.db
      .select({ status: units.status })
      .from(units)
      .where(eq(units.locationId, lumberton!.id))
      .orderBy(asc(units.unitTypeId), asc(units.id));
    expect(stored.map((u) => u.status)).toEqual(demoInventory("lumberton-nc-28358").flatMap((t) => t.statuses));
    expect(demoInventory("lumberton-nc-28358")).toEqual(demoInventory("lumberton-nc-28358"));
  });

  it("changes nothing when run again", async () => {
    const before = await handle.db.$count(units);
    expect((await seedDatabase(handle.db)).created).toEqual([]);
    const account = await handle.db.query.accounts.findFirst();
    await handle.db.transaction(async (tx) => expect(await seedDemoUnits(tx, account!.id)).toEqual([]));
    expect(await handle.db.$count(units)).toBe(before);
  });
});

describe("demo inventory seed with use_demo_units off", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase({ seeded: false });
  });
  afterAll(() => handle.close());

  it("creates no units", async () => {
    await seedDatabase(handle.db);
    await handle.db.delete(unitTypes);
    await handle.db.update(accounts).set({ useDemoUnits: false });
    const account = await handle.db.query.accounts.findFirst();
    await handle.db.transaction(async (tx) => expect(await seedDemoUnits(tx, account!.id)).toEqual([]));
    expect(await handle.db.$count(unitTypes)).toBe(0);
  });
});
