import { describe, expect, it } from "vitest";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import pg from "pg";
import fs from "node:fs";
import path from "node:path";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";
import { migrationsFolder, runMigrations } from "~/db/migrate.server";
import { isPostgres } from "../support/db";
import { withDatabase } from "../global-setup";

/** An empty database of the project's driver: a new in-memory PGlite, or a new PostgreSQL database. */
async function emptyDatabase(): Promise<DatabaseHandle> {
  if (!isPostgres()) return openDatabase({ pglite: await PGlite.create() });
  const url = process.env.TEST_DATABASE_URL!;
  const name = `gh_empty_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const handle = openDatabase({ url: withDatabase(url, name), poolSize: 2 });
  return {
    ...handle,
    close: async () => {
      await handle.close();
      const a = new pg.Client({ connectionString: url });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/** Rows of a raw query (both drivers answer `{ rows }`). */
const rows = <T>(result: unknown) => (result as { rows: T[] }).rows;

const tableNames = async (handle: DatabaseHandle) =>
  rows<{ table_name: string }>(
    await handle.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`),
  ).map((r) => r.table_name);
const appliedMigrations = async (handle: DatabaseHandle) =>
  rows<{ n: number }>(await handle.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`))[0]!.n;

describe("migrations", () => {
  it("apply to an empty database, creating every table of the public site, and a second run changes nothing", async () => {
    const handle = await emptyDatabase();
    try {
      expect(await tableNames(handle)).toEqual([]);
      await runMigrations(handle);
      const tables = await tableNames(handle);
      expect(tables).toEqual(
        expect.arrayContaining([
          "accounts",
          "websites",
          "redirects",
          "old_domains",
          "menus",
          "nav_menu_items",
          "content_items",
          "pages",
          "locations",
          "addresses",
          "hours_blocks",
          "hours_items",
          "amenities",
          "location_images",
          "insurance_plans",
          "payment_types",
          "contact_messages",
          "email_outbox",
        ]),
      );
      const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta", "_journal.json"), "utf8")) as {
        entries: unknown[];
      };
      expect(await appliedMigrations(handle)).toBe(journal.entries.length);

      await runMigrations(handle);
      expect(await tableNames(handle)).toEqual(tables);
      expect(await appliedMigrations(handle)).toBe(journal.entries.length);
    } finally {
      await handle.close();
    }
  });
});
