import { PGlite } from "@electric-sql/pglite";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openDatabase } from "~/db/client.server";
import { runMigrations } from "~/db/migrate.server";
import { seedDatabase } from "../../seeds/seed";

declare module "vitest" {
  export interface ProvidedContext {
    goldenDir: string;
    pgTemplates: { migrated: string; seeded: string } | null;
  }
}

/**
 * Builds the "golden" databases once per run: migrated, and migrated + seeded. PGlite ones are
 * dumped to files that each test loads (~0.8 s); PostgreSQL ones are template databases each test
 * copies with CREATE DATABASE … TEMPLATE.
 */
export default async function setup(project: TestProject) {
  const driver = (project.config.env?.TEST_DRIVER as string | undefined) ?? "pglite";
  const goldenDir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-golden-"));
  project.provide("goldenDir", goldenDir);
  project.provide("pgTemplates", null);

  if (driver === "pglite") {
    const client = await PGlite.create();
    const handle = openDatabase({ pglite: client });
    await runMigrations(handle);
    fs.writeFileSync(path.join(goldenDir, "migrated.tar.gz"), Buffer.from(await (await client.dumpDataDir("gzip")).arrayBuffer()));
    await seedDatabase(handle.db);
    fs.writeFileSync(path.join(goldenDir, "seeded.tar.gz"), Buffer.from(await (await client.dumpDataDir("gzip")).arrayBuffer()));
    await client.close();
    return () => fs.rmSync(goldenDir, { recursive: true, force: true });
  }

  const url = process.env.TEST_DATABASE_URL!;
  const suffix = `${process.pid}_${Date.now()}`;
  const templates = { migrated: `gh_tpl_migrated_${suffix}`, seeded: `gh_tpl_seeded_${suffix}` };
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  for (const name of Object.values(templates)) await admin.query(`CREATE DATABASE ${name}`);
  for (const [kind, name] of Object.entries(templates)) {
    const handle = openDatabase({ url: withDatabase(url, name), poolSize: 2 });
    await runMigrations(handle);
    if (kind === "seeded") await seedDatabase(handle.db);
    await handle.close();
  }
  project.provide("pgTemplates", templates);
  return async () => {
    // Drop the templates and any test databases left behind.
    // Matched in JavaScript, not with LIKE (where "_" is a wildcard and could match another run's names).
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database");
    const ours = rows
      .map((r) => r.datname)
      .filter((n) => (n.startsWith("gh_tpl_") && n.endsWith(`_${suffix}`)) || (n.startsWith("gh_test_") && n.includes(`_${process.pid}_`)));
    for (const name of ours) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    fs.rmSync(goldenDir, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
