import { openDatabase, getDatabase, databaseOptionsFromEnv, type DatabaseHandle } from "./client.server";
import { ensurePgliteAppRole, grantAppRole, roleOfUrl } from "./roles.server";
import { env, type Env } from "~/platform/env.server";

/**
 * The database handle `db:migrate` and `db:setup` work through (issue 36, decision 462): the owner
 * role's (DATABASE_OWNER_URL) when it is set, else the app's own: DATABASE_DIRECT_URL when set (the
 * app's URL may go through a transaction-mode pooler, decision 560), else DATABASE_URL, or PGlite.
 * `afterMigrations` grants the app's role what it needs, when the two roles are split.
 */
export function ownerDatabase(e: Env = env()): { handle: DatabaseHandle; afterMigrations: () => Promise<void> } {
  if (!e.DATABASE_OWNER_URL && e.DATABASE_URL && e.DATABASE_DIRECT_URL) {
    return { handle: openDatabase({ ...databaseOptionsFromEnv(e), url: e.DATABASE_DIRECT_URL, poolSize: 2 }), afterMigrations: async () => undefined };
  }
  if (!e.DATABASE_OWNER_URL) {
    const handle = getDatabase();
    // PGlite: the same split as far as the engine allows (the server works as this role, decision 462).
    return { handle, afterMigrations: async () => (handle.driver === "pglite" ? ensurePgliteAppRole(handle) : undefined) };
  }
  if (!e.DATABASE_URL) throw new Error("DATABASE_OWNER_URL is set without DATABASE_URL: set DATABASE_URL to the app's role (it owns nothing).");
  const appRole = roleOfUrl(e.DATABASE_URL);
  if (!appRole) throw new Error("DATABASE_URL names no role (user name): the app's role is granted its rights by name.");
  const handle = openDatabase({ ...databaseOptionsFromEnv(e), url: e.DATABASE_OWNER_URL, poolSize: 2 });
  return { handle, afterMigrations: () => grantAppRole(handle, appRole) };
}
