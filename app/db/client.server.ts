import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import pg from "pg";
import fs from "node:fs";
import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";
import * as schema from "./schema";
import { logger } from "~/platform/logger.server";
import { databasePoolEnv, env, type Env } from "~/platform/env.server";
import { ConnectionGate } from "./connection-gate";
import { isDatabaseUnavailable } from "./unavailable";
import { serialiseQueries } from "./serial-queries";

export type Schema = typeof schema;
/** The one database type the app sees, whichever driver is underneath. */
export type Database = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

export interface DatabaseHandle {
  db: Database;
  driver: "pglite" | "postgres";
  close(): Promise<void>;
  /** Resolves when the database answers a trivial query (readiness); rejects otherwise. */
  ping(): Promise<void>;
  /**
   * Calls `onNotify` with its payload for each NOTIFY on `channel`, and `onReconnect` each time the
   * listening connection is made, the first time included (notifications may have been missed before
   * it, or while it was lost). Returns a stop function.
   */
  listen(channel: string, onNotify: (payload: string) => void, onReconnect?: () => void): () => Promise<void>;
  /**
   * PostgreSQL only: opens the pool's connections ahead of need (at start-up, so a rush does not open
   * them while the process is busiest); resolves in any case.
   */
  warm?: () => Promise<void>;
  /** PostgreSQL only: the pool's connections in use and the statements waiting for one (decision 205). */
  pool?: () => { size: number; active: number; waiting: number };
}

interface DatabaseOptions {
  /** A PostgreSQL connection string. When absent, PGlite is used. */
  url?: string;
  /**
   * PostgreSQL only: a connection string straight to the server, for the LISTEN connection (issue 41,
   * decision 560), when `url` goes through a pooler in transaction mode (PgBouncer), which carries no
   * LISTEN. Unset: `url`.
   */
  directUrl?: string;
  /** PGlite data directory (default ./data/pglite); "memory://" for an in-memory database. */
  pgliteDir?: string;
  /** An already-open PGlite instance (tests load one from a golden image). */
  pglite?: PGlite;
  poolSize?: number;
  /** PostgreSQL only: how long opening a connection may take, and one statement (ms). */
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  /**
   * PostgreSQL only: how long a statement may wait for a free connection of the pool (ms), and how many
   * may wait at once; past either it is refused with DatabaseBusyError (decision 205).
   */
  poolWaitTimeoutMs?: number;
  poolMaxWaiting?: number;
}

/**
 * Counts the statements a piece of work sends (issue 10: a public page on a cache miss sends at most
 * two). `countQueries.run(counter, fn)`: every statement `fn` sends, through any await, adds one to
 * `counter.count`. Outside such a run it costs one lookup per statement.
 */
export const countQueries = new AsyncLocalStorage<{ count: number; statements?: string[] }>();

/**
 * The tables a public page reads: each has the `gatehouse_changed` trigger (migration 0003), and a
 * write to one changes what the page and site caches hold. A guard test compares this list with the
 * migration.
 */
export const PUBLIC_PAGE_TABLES: ReadonlySet<string> = new Set([
  "accounts", "addresses", "amenities", "content_items", "hours_blocks", "hours_items", "insurance_plans",
  "location_images", "locations", "menus", "nav_menu_items", "old_domains", "pages", "payment_types",
  "redirects", "reservations", "sitelink_discount_plans", "special_hours", "unit_types", "units", "websites",
]);

/** Statements that change nothing: reads and transaction control. */
const READ_ONLY_STATEMENT = /^\s*(?:select|begin|commit|rollback|savepoint|release|start transaction|set|show|listen|unlisten)\b/i;
const WRITE_TARGET = /\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?(?:"?[a-z_][a-z0-9_]*"?\.)?"?([a-z_][a-z0-9_]*)"?/gi;

/**
 * Whether a statement may change a table a public page reads (issue 19: the caches are dropped for
 * real writes only, not for every request that is not a GET). A statement that is not plainly a read
 * and names no table we can see counts as one (a raw statement, a function call).
 */
export function writesPublicTable(statement: string): boolean {
  const tables = [...statement.replace(/\bfor\s+(?:no\s+key\s+)?update\b/gi, "").matchAll(WRITE_TARGET)].map((m) => m[1]!.toLowerCase());
  if (tables.length > 0) return tables.some((t) => PUBLIC_PAGE_TABLES.has(t));
  return !READ_ONLY_STATEMENT.test(statement);
}

/**
 * `trackWrites.run(tracker, fn)`: `tracker.wrote` turns true when `fn` (through any await) sends a
 * statement that may change a public page's table (`writesPublicTable`). server/caches.ts runs each
 * request in one, and drops the page and site caches only when it wrote.
 */
export const trackWrites = new AsyncLocalStorage<{ wrote: boolean }>();

/**
 * A conditional write that mostly changes nothing (the sweep of expired reservations, a hold that
 * finds no free unit): it counts as this request's write only when `changed(result)` says it changed
 * a row (issue 22). Without this, every rental POST of a rush dropped the page, site and form caches
 * on its way out, for a sweep or a failed hold that changed nothing, and the next requests read
 * everything again. (The database's change notification comes for real changes only, as before.)
 */
export async function writeIfChanged<T>(run: () => Promise<T>, changed: (result: T) => boolean): Promise<T> {
  const outer = trackWrites.getStore();
  if (!outer) return run();
  const inner = { wrote: false };
  // Awaited inside: a Drizzle query is a lazy thenable that runs when awaited, which must be in here.
  const result = await trackWrites.run(inner, async () => await run());
  if (inner.wrote && changed(result)) outer.wrote = true;
  return result;
}

const queryLogger = {
  logQuery(query: string) {
    const tracker = trackWrites.getStore();
    if (tracker && !tracker.wrote && writesPublicTable(query)) tracker.wrote = true;
    const counter = countQueries.getStore();
    if (!counter) return;
    counter.count++;
    counter.statements?.push(query);
  },
};

/** Defaults chosen so that an unreachable database answers a visitor within a second (issue 14). */
const DEFAULT_CONNECT_TIMEOUT_MS = 800;
const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
const DEFAULT_POOL_SIZE = 10;
/** A busy pool is not a dead database (decision 205): waiting for a free connection has its own bounds. */
const DEFAULT_POOL_WAIT_TIMEOUT_MS = 5_000;
const DEFAULT_POOL_MAX_WAITING = 5_000;

export function openDatabase(options: DatabaseOptions = {}): DatabaseHandle {
  if (options.url) {
    const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
    const max = options.poolSize ?? DEFAULT_POOL_SIZE;
    const gate = new ConnectionGate({
      slots: max,
      waitTimeoutMs: options.poolWaitTimeoutMs ?? DEFAULT_POOL_WAIT_TIMEOUT_MS,
      maxWaiting: options.poolMaxWaiting ?? DEFAULT_POOL_MAX_WAITING,
    });
    const pool = gatedPool(gate, {
      connectionString: options.url,
      max,
      // A stopped or unreachable server fails fast instead of queueing visitors behind it. The gate
      // never lets more callers into the pool than it has connections, so this bounds only the opening
      // of a connection, never the wait for a free one (decision 205).
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      // The server cancels a statement that runs too long; the client gives up a little later
      // still, for a server that no longer answers at all (a network partition).
      statement_timeout: statementTimeout,
      query_timeout: statementTimeout + 1_000,
      // A transaction left open by a lost client is rolled back by the server.
      idle_in_transaction_session_timeout: 15_000,
      keepAlive: true,
      // Connections stay open once made (a rush then finds them ready instead of opening ten at once
      // while the event loop is busiest); a lost one is dropped by the error listeners below.
      idleTimeoutMillis: 0,
    });
    // A connection can be lost at any time (restart, failover, admin termination). pg emits 'error'
    // on the pool for an idle client and on the Client itself for one that is checked out (inside a
    // transaction, say); an 'error' event with no listener kills the process. With these listeners the
    // request using that client fails its query (its transaction rolls back on the server) and the
    // pool opens fresh connections once the database is back.
    pool.on("error", (error) => logger.warn({ err: error }, "[db] idle connection lost"));
    pool.on("connect", (client) => {
      client.on("error", (error) => logger.warn({ err: error }, "[db] connection lost"));
      // A transaction's statements sent at once (a previewed page's loaders) go one at a time (decision 350).
      serialiseQueries(client);
    });
    const db = drizzlePg(pool, { schema, casing: "snake_case", logger: queryLogger }) as unknown as Database;
    // LISTEN needs a session of its own on PostgreSQL itself: never through a transaction-mode pooler.
    const listenUrl = options.directUrl ?? options.url;
    return {
      db,
      driver: "postgres",
      close: () => pool.end(),
      ping: () => ping(pool),
      warm: () => warm(pool, max),
      pool: () => ({ size: max, active: gate.active, waiting: gate.waiting }),
      listen: (channel, onNotify, onReconnect) => listenPostgres(listenUrl, channel, onNotify, onReconnect),
    };
  }
  let client = options.pglite;
  if (!client) {
    const dir = options.pgliteDir ?? defaultPgliteDir();
    if (!dir.startsWith("memory://")) keepDirectoryPrivate(dir);
    client = new PGlite(dir);
    // PGlite writes its relation-cache init files 0644 whatever the umask: fix them once it is up.
    if (!dir.startsWith("memory://")) client.waitReady.then(() => makeFilesPrivate(dir)).catch(() => undefined);
  }
  const db = drizzlePglite(client, { schema, casing: "snake_case", logger: queryLogger }) as unknown as Database;
  const c = client;
  return {
    db,
    driver: "pglite",
    close: () => c.close(),
    ping: async () => void (await c.query("select 1")),
    listen: (channel, onNotify) => {
      const unsubscribe = c.listen(channel, (payload) => onNotify(payload));
      return async () => (await unsubscribe)();
    },
  };
}

/**
 * The PGlite directory holds every tenant's data and password hash: only the server's user may read
 * it (issue 19). It is created 0700; at every start the files already in it are made 0600 and its
 * directories 0700 (older versions left them 0666 under a permissive umask); and the process's umask
 * masks group and other bits from now on, so the files PGlite creates later are 0600 too. PGlite
 * (Emscripten's NODEFS) creates files with mode 0666 and offers no option for it, hence the umask.
 */
function keepDirectoryPrivate(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    process.umask(process.umask() | 0o077);
  } catch {
    // Worker threads cannot change the umask; the chmod below still fixes what exists.
  }
  makeFilesPrivate(dir);
}

/** Makes `dir` and its directories 0700 and its files 0600 (only those that are not already). */
function makeFilesPrivate(dir: string): void {
  const walk = (d: string) => {
    if ((fs.statSync(d).mode & 0o777) !== 0o700) fs.chmodSync(d, 0o700);
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && (fs.statSync(p).mode & 0o777) !== 0o600) fs.chmodSync(p, 0o600);
    }
  };
  walk(dir);
}

export function defaultPgliteDir(e: Pick<Env, "PGLITE_DIR"> = env()): string {
  return e.PGLITE_DIR ?? path.resolve("data", "pglite");
}

/**
 * Options from the environment: DATABASE_URL picks PostgreSQL, otherwise PGlite under ./data/.
 * DATABASE_DIRECT_URL, when set, carries the LISTEN connection (decision 560).
 */
export function databaseOptionsFromEnv(e: Env = env()): DatabaseOptions {
  if (!e.DATABASE_URL) return { pgliteDir: defaultPgliteDir(e) };
  return { url: e.DATABASE_URL, directUrl: e.DATABASE_DIRECT_URL, ...databasePoolEnv(e) };
}

/** pg's "could not open a connection in time" (connectionTimeoutMillis), as opposed to a refusal. */
function isConnectTimeout(error: unknown): boolean {
  const message = (error as { message?: unknown })?.message;
  return typeof message === "string" && /connection timeout|timeout expired|timeout exceeded when trying to connect/i.test(message);
}

/**
 * A pg Pool whose `connect` (also used by `pool.query` and by Drizzle's transactions) first takes a
 * slot of the gate, and gives it back when the client is released. A connection that cannot be opened
 * because the database is unreachable fails everyone waiting at once (decision 080: an outage is
 * answered within the connect timeout, not after the queue's longer bound).
 */
function gatedPool(gate: ConnectionGate, config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const gated = async (): Promise<pg.PoolClient> => {
    await gate.acquire();
    let client: pg.PoolClient;
    try {
      client = await connect();
    } catch (error) {
      gate.release();
      // The server said no (refused, not accepting connections): everyone waiting would hear the same,
      // so they hear it now. Not on a connect *timeout*: under a rush the event loop can be busy for
      // longer than the timeout, which then fires before the server's answer is read (a spurious
      // timeout of a reachable database); the others keep waiting within their own bound.
      if (isDatabaseUnavailable(error) && !isConnectTimeout(error)) gate.failWaiting(error);
      throw error;
    }
    const release = client.release.bind(client);
    let released = false;
    client.release = (err?: Error | boolean) => {
      if (released) return release(err);
      released = true;
      try {
        return release(err);
      } finally {
        gate.release();
      }
    };
    return client;
  };
  type Callback = (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void;
  pool.connect = ((callback?: Callback) => {
    if (!callback) return gated();
    gated().then(
      (client) => callback(undefined, client, (err?: unknown) => client.release(err as Error | boolean | undefined)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
    return undefined;
  }) as typeof pool.connect;
  return pool;
}

const globalForDb = globalThis as unknown as { __gatehouseDb?: DatabaseHandle };

/** The process-wide database (kept across dev-server reloads so PGlite opens its directory once). */
export function getDatabase(): DatabaseHandle {
  globalForDb.__gatehouseDb ??= openDatabase(databaseOptionsFromEnv());
  return globalForDb.__gatehouseDb;
}

async function warm(pool: pg.Pool, size: number): Promise<void> {
  const clients = await Promise.all(Array.from({ length: size }, () => pool.connect().catch(() => null)));
  for (const c of clients) c?.release();
}

async function ping(pool: pg.Pool): Promise<void> {
  await pool.query({ text: "select 1", query_timeout: 1_000 } as pg.QueryConfig);
}

/**
 * LISTEN on a connection of its own (not from the pool), made again with a growing delay whenever it
 * is lost (a restart, a failover): the process keeps running, and `onReconnect` tells the caller to
 * assume it missed something.
 */
function listenPostgres(url: string, channel: string, onNotify: (payload: string) => void, onReconnect?: () => void): () => Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Bad channel name ${channel}`);
  let stopped = false;
  let client: pg.Client | null = null;
  let delay = 250;
  let timer: NodeJS.Timeout | null = null;
  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000, keepAlive: true });
    c.on("error", () => undefined);
    c.on("end", () => {
      if (client === c) client = null;
      schedule();
    });
    c.on("notification", (n) => {
      if (n.channel === channel) onNotify(n.payload ?? "");
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
      if (stopped) return void c.end().catch(() => undefined);
      client = c;
      delay = 250;
      // Also on the first connection: what was cached before it was listening may have missed a change.
      onReconnect?.();
    } catch {
      c.end().catch(() => undefined);
      schedule();
    }
  };
  const schedule = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
    timer.unref();
    delay = Math.min(delay * 2, 5_000);
  };
  void connect();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await client?.end().catch(() => undefined);
  };
}
