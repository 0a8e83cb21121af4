import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import path from "node:path";
import type { DatabaseHandle } from "./client.server";
import { env } from "~/platform/env.server";

/** The checked-in migrations: MIGRATIONS_FOLDER, else ./drizzle. */
export function migrationsFolder(): string {
  return path.resolve(env().MIGRATIONS_FOLDER ?? "drizzle");
}

/** Applies the checked-in drizzle-kit migrations that have not run yet. */
export async function runMigrations(handle: DatabaseHandle, folder = migrationsFolder()) {
  if (handle.driver === "postgres") {
    await migratePg(handle.db as unknown as NodePgDatabase, { migrationsFolder: folder });
  } else {
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder: folder });
  }
}
