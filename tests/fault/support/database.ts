/**
 * Migrates and seeds a fault test's database (what scripts/db-setup.ts does), then gives the rented
 * unit type (Lumberton's 10' x 10' Drive-Up, as in tests/e2e/rental/flow.spec.ts) its own stock so the
 * test never sells it out.
 */
import pg from "pg";
import { openDatabase } from "~/db/client.server";
import { runMigrations } from "~/db/migrate.server";
import { seedDatabase } from "../../../seeds/seed";

export const LOCATION = "lumberton-nc-28358";
export const UNIT_TYPE_PAGE = `/locations/${LOCATION}/units/10x10-drive-up`;

/** Returns the id of the unit type the renters rent. */
export async function prepareDatabase(url: string, options: { extraUnits: number }): Promise<number> {
  const handle = openDatabase({ url, poolSize: 2 });
  try {
    await runMigrations(handle);
    await seedDatabase(handle.db);
  } finally {
    await handle.close();
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const type = await c.query(
      `select t.id, t.location_id, t.floor from unit_types t join locations l on l.id = t.location_id
        where l.url_slug = $1 and t.width = 10 and t.length = 10 and t.name = 'Drive-Up'`,
      [LOCATION],
    );
    const t = type.rows[0] as { id: number; location_id: number; floor: number } | undefined;
    if (!t) throw new Error(`No 10x10 Drive-Up unit type at ${LOCATION} after seeding`);
    for (let i = 1; i <= options.extraUnits; i++) {
      await c.query(`insert into units (location_id, unit_type_id, name, floor, status) values ($1, $2, $3, $4, 'available')`, [
        t.location_id,
        t.id,
        `FAULT-${i}`,
        t.floor,
      ]);
    }
    return Number(t.id);
  } finally {
    await c.end();
  }
}
