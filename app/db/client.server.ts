import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import pg from "pg";
import fs from "node:fs";
import path from "node:path";
import * as schema from "./schema";
import { logger } from "~/logger.server";

export type Schema = typeof schema;
/** The one database type the app sees, whichever driver is underneath. */
export type Database = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

export interface DatabaseHandle {
  db: Database;
  driver: "pglite" | "postgres";
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A PostgreSQL connection string. When absent, PGlite is used. */
  url?: string;
  /** PGlite data directory (default ./data/pglite); "memory://" for an in-memory database. */
  pgliteDir?: string;
  /** An already-open PGlite instance (tests load one from a golden image). */
  pglite?: PGlite;
  poolSize?: number;
}

export function openDatabase(options: DatabaseOptions = {}): DatabaseHandle {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
    // An idle client can lose its connection (server restart, admin termination). Without a listener
    // the pool re-emits that as an unhandled 'error' and the process dies; the pool already drops the
    // broken client and opens a new one on the next query, so a warning is all that is needed.
    pool.on("error", (error) => logger.warn({ err: error }, "[db] idle connection lost"));
    const db = drizzlePg(pool, { schema, casing: "snake_case" }) as unknown as Database;
    return { db, driver: "postgres", close: () => pool.end() };
  }
  let client = options.pglite;
  if (!client) {
    const dir = options.pgliteDir ?? defaultPgliteDir();
    if (!dir.startsWith("memory://")) fs.mkdirSync(dir, { recursive: true });
    client = new PGlite(dir);
  }
  const db = drizzlePglite(client, { schema, casing: "snake_case" }) as unknown as Database;
  const c = client;
  return { db, driver: "pglite", close: () => c.close() };
}

export function defaultPgliteDir(): string {
  return process.env.PGLITE_DIR ?? path.resolve("data", "pglite");
}

/** Options from the environment: DATABASE_URL picks PostgreSQL, otherwise PGlite under ./data/. */
export function databaseOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseOptions {
  return env.DATABASE_URL ? { url: env.DATABASE_URL } : { pgliteDir: defaultPgliteDir() };
}

const globalForDb = globalThis as unknown as { __gatehouseDb?: DatabaseHandle };

/** The process-wide database (kept across dev-server reloads so PGlite opens its directory once). */
export function getDatabase(): DatabaseHandle {
  globalForDb.__gatehouseDb ??= openDatabase(databaseOptionsFromEnv());
  return globalForDb.__gatehouseDb;
}
