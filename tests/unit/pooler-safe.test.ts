import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { databaseOptionsFromEnv } from "~/db/client.server";
import { loadEnv } from "~/platform/env.server";
import { APP, appSources } from "./app-sources";

/**
 * The app's statements survive a connection pooler in transaction mode (issue 41, decision 560):
 * between two transactions the server connection may be another one, so nothing may rely on the
 * session. Pinned here by reading the sources of app/ and server/:
 *  - advisory locks are transaction-scoped (`pg_advisory_xact_lock`, `pg_try_advisory_xact_lock`),
 *    never the session's `pg_advisory_lock`;
 *  - no `SET` outside a transaction's own `SET LOCAL` (the one exception: PGlite's SET ROLE, where
 *    there is one session and no pooler);
 *  - no named prepared statement (Drizzle's `.prepare(name)`; node-postgres sends unnamed ones);
 *  - LISTEN only in app/db/client.server.ts, on the direct URL.
 */
const SERVER = path.resolve(APP, "../server");
const sources = [...appSources(APP), ...appSources(SERVER)].map((file) => ({ file: path.relative(path.resolve(APP, ".."), file), text: readFileSync(file, "utf8") }));

/** The code of a file without its comments (a comment may name what the code must not do). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

function offenders(pattern: RegExp, allowed: string[] = []): string[] {
  return sources.filter((s) => !allowed.includes(s.file) && pattern.test(code(s.text))).map((s) => s.file);
}

describe("nothing in the app relies on the session (PgBouncer transaction mode)", () => {
  it("advisory locks are transaction-scoped", () => {
    expect(offenders(/pg_(?:try_)?advisory_(?:un)?lock(?:_shared)?\s*\(/i)).toEqual([]);
    expect(offenders(/pg_advisory_unlock_all/i)).toEqual([]);
    // And they are used (this test reads the right files).
    expect(offenders(/pg_advisory_xact_lock\s*\(/).length).toBeGreaterThan(0);
  });

  it("no session SET (SET LOCAL inside a transaction only)", () => {
    // A statement that begins with SET (in a sql`` template or a string), not SET LOCAL.
    expect(offenders(/(?:sql(?:\.raw)?\(?\s*`|["'`])\s*set\s+(?!local\b)(?:session\s+)?[a-z_]+\s*(?:=|to\b)/i, ["app/db/roles.server.ts"])).toEqual([]);
    expect(offenders(/set_config\s*\([^)]*,\s*false\s*\)/i)).toEqual([]);
    // The exception is PGlite's, and only there.
    expect(readFileSync(path.join(APP, "db/roles.server.ts"), "utf8")).toMatch(/PGlite[\s\S]*SET ROLE/);
  });

  it("no named prepared statements", () => {
    // Drizzle's `.prepare(name)` names the statement; `.prepare("")` is the unnamed one, which lasts one transaction.
    expect(offenders(/\.prepare\s*\((?!\s*""\s*\))/)).toEqual([]);
    expect(offenders(/\bname\s*:\s*["'`][^"'`]+["'`]\s*,\s*text\s*:/)).toEqual([]);
  });

  it("LISTEN only on the listening connection of app/db/client.server.ts", () => {
    expect(offenders(/`\s*LISTEN\s/i, ["app/db/client.server.ts"])).toEqual([]);
  });
});

describe("DATABASE_DIRECT_URL (decision 560)", () => {
  const base = { NODE_ENV: "production", SESSION_SECRET: "x".repeat(40), DATABASE_URL: "postgres://app@127.0.0.1:6432/gatehouse" };

  it("carries the listening connection when set; the pool goes to DATABASE_URL", () => {
    const options = databaseOptionsFromEnv(loadEnv({ ...base, DATABASE_DIRECT_URL: "postgres://app@db:5432/gatehouse" }));
    expect(options.url).toBe("postgres://app@127.0.0.1:6432/gatehouse");
    expect(options.directUrl).toBe("postgres://app@db:5432/gatehouse");
  });

  it("unset (or empty): DATABASE_URL alone, as before", () => {
    expect(databaseOptionsFromEnv(loadEnv(base)).directUrl).toBeUndefined();
    expect(databaseOptionsFromEnv(loadEnv({ ...base, DATABASE_DIRECT_URL: "" })).directUrl).toBeUndefined();
  });
});
