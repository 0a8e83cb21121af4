import { PGlite } from "@electric-sql/pglite";
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { inject } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/db/client.server";

let counter = 0;

/**
 * A fresh database for one test (or one file): a copy of the golden image, migrated and — unless
 * `seeded: false` — holding the operator's seed data. PGlite by default; PostgreSQL when the
 * project runs with TEST_DRIVER=postgres (TEST_DATABASE_URL set).
 */
export async function createTestDatabase(options: { seeded?: boolean } = {}): Promise<DatabaseHandle> {
  const kind = options.seeded === false ? "migrated" : "seeded";
  if (process.env.TEST_DRIVER === "postgres") {
    const templates = inject("pgTemplates");
    if (!templates) throw new Error("PostgreSQL templates were not prepared");
    const url = process.env.TEST_DATABASE_URL!;
    const name = `gh_test_${kind}_${process.ppid}_${process.pid}_${++counter}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${templates[kind]}`);
    await admin.end();
    const u = new URL(url);
    u.pathname = `/${name}`;
    const handle = openDatabase({ url: u.toString(), poolSize: 10 });
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
  const file = path.join(inject("goldenDir"), `${kind}.tar.gz`);
  const client = await PGlite.create({ loadDataDir: new Blob([fs.readFileSync(file)]) });
  return openDatabase({ pglite: client });
}

export const isPostgres = () => process.env.TEST_DRIVER === "postgres";
