import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, sql } from "drizzle-orm";
import type { DatabaseHandle } from "~/db/client.server";
import * as schema from "~/db/schema";
import { seedDatabase } from "../../../seeds/seed";
import { createTestDatabase } from "../support/db";

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

  it("a second run leaves every row of every table exactly as it was (timestamps included)", async () => {
    await seedDatabase(handle.db);
    const dump = async () => {
      const rows = <T>(result: unknown) => (result as { rows: T[] }).rows;
      const tables = rows<{ table_name: string }>(
        await handle.db.execute(
          sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
        ),
      );
      const out: Record<string, unknown[]> = {};
      for (const { table_name } of tables) {
        out[table_name] = rows(await handle.db.execute(sql`select * from ${sql.identifier(table_name)} order by 1`));
      }
      return JSON.stringify(out);
    };
    const before = await dump();
    expect(before).toContain("lumberton-nc-28358");
    await seedDatabase(handle.db);
    expect(await dump()).toBe(before);
  });
});
