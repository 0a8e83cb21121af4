// A fresh PostgreSQL database for one bench run on the machine's server (or BENCH_DATABASE_URL as given).
import pg from "pg";

/**
 * BENCH_DATABASE_URL when set (used as it is: migrated and seeded, never dropped); otherwise a new
 * database `gatehouse_bench_<pid>` on BENCH_PG_ADMIN_URL (default: the local server as postgres),
 * dropped at the end; null when no PostgreSQL answers (the bench then runs on PGlite).
 */
export async function benchDatabase() {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, drop: async () => {} };
  if (process.env.BENCH_DATABASE === "pglite") return null;
  const adminUrl = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `gatehouse_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`create database ${name}`);
  } catch (error) {
    console.error(`bench: no PostgreSQL at ${adminUrl.replace(/:[^:@/]*@/, ":…@")} (${error.message}); running on PGlite`);
    await admin.end().catch(() => {});
    return null;
  }
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
