import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import * as schema from "~/db/schema";
import { seedDatabase } from "../../seeds/seed";
import { createTestDatabase } from "./db";

describe("seed", () => {
  let handle: DatabaseHandle;
  beforeAll(async () => {
    handle = await createTestDatabase({ seeded: false });
  });
  afterAll(() => handle.close());

  it("creates the operator's data, and a second run changes nothing", async () => {
    const first = await seedDatabase(handle.db);
    expect(first.created).toContain("location lumberton-nc-28358");
    const tables = [schema.accounts, schema.websites, schema.locations, schema.menus, schema.navMenuItems, schema.contentItems, schema.redirects, schema.oldDomains, schema.insurancePlans, schema.paymentTypes, schema.hoursItems] as const;
    const counts = async () => Promise.all(tables.map(async (t) => (await handle.db.select({ n: count() }).from(t))[0]!.n));
    const before = await counts();
    const second = await seedDatabase(handle.db);
    expect(second.created).toEqual([]);
    expect(await counts()).toEqual(before);
  });
});
