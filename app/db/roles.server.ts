import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "./client.server";

/**
 * Two database roles (issue 36, docs/decisions/462-two-database-roles.md). The owner role runs the
 * migrations and owns every table; the app connects as a role that owns nothing, so it cannot ALTER a
 * table, disable a trigger or TRUNCATE, and on the audit trail it may only INSERT and SELECT (PCI DSS
 * 10.3.2: the append-only trigger is then not the only guard). These grants are hand-written SQL,
 * run by `db:migrate` and `db:setup` after the migrations (as the owner), so every table a migration
 * adds is covered; the default privileges cover a table created by the owner in between.
 */

/** Tables the app may only add to and read: no UPDATE, DELETE or TRUNCATE for the app's role. */
const APPEND_ONLY_TABLES = ["audit_events"] as const;

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A role name as an SQL identifier; only plain lowercase names are accepted. */
export function roleIdentifier(role: string): string {
  if (!ROLE_NAME.test(role)) throw new Error(`A database role name must be lowercase letters, digits and _ (got ${JSON.stringify(role)})`);
  return `"${role}"`;
}

/** The role a connection string signs in as (its user name), or null when it names none. */
export function roleOfUrl(url: string): string | null {
  try {
    const user = decodeURIComponent(new URL(url).username);
    return user || null;
  } catch {
    return null;
  }
}

/** The statements that give the app's role what it needs, and no more (run by the owner). */
export function appRoleGrants(appRole: string): string[] {
  const app = roleIdentifier(appRole);
  return [
    `GRANT USAGE ON SCHEMA public TO ${app}`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${app}`,
    `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${app}`,
    // Tables the owner creates later (the next migration) get the same, until the next run takes the append-only ones back.
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${app}`,
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${app}`,
    // Never TRUNCATE, REFERENCES or TRIGGER anywhere; only INSERT and SELECT on the append-only tables.
    `REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA public FROM ${app}`,
    ...APPEND_ONLY_TABLES.map((t) => `REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON "${t}" FROM ${app}, PUBLIC`),
    // The migrations' own bookkeeping is the owner's alone.
    `REVOKE ALL ON SCHEMA drizzle FROM ${app}`,
  ];
}

/** Runs `appRoleGrants` on a connection of the owner (after the migrations). */
export async function grantAppRole(owner: DatabaseHandle, appRole: string): Promise<void> {
  if (appRole === (await currentRole(owner))) throw new Error(`The app's role (${appRole}) must not be the owner's: set DATABASE_URL to the app's role and DATABASE_OWNER_URL to the owner's`);
  await owner.db.transaction(async (tx) => {
    for (const statement of appRoleGrants(appRole)) await tx.execute(sql.raw(statement));
  });
}

async function currentRole(handle: DatabaseHandle): Promise<string> {
  const result = await handle.db.execute<{ role: string }>(sql`select current_user as role`);
  const rows = (Array.isArray(result) ? result : (result as { rows: Array<{ role: string }> }).rows) as Array<{ role: string }>;
  return rows[0]!.role;
}

/**
 * The statements `db:roles` runs as an administrator (a superuser, or a role with CREATEROLE and
 * CREATEDB): the owner and app roles with their passwords, and the database owned by the owner. Each
 * is made only if missing (passwords are set again each time), so the command can run at every start.
 */
export function roleSetupStatements(input: { owner: string; ownerPassword: string; app: string; appPassword: string }): string[] {
  const owner = roleIdentifier(input.owner);
  const app = roleIdentifier(input.app);
  const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const ensure = (role: string, name: string) =>
    `DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${literal(name)}) THEN CREATE ROLE ${role} LOGIN; END IF; END $$`;
  return [
    ensure(owner, input.owner),
    `ALTER ROLE ${owner} WITH LOGIN NOSUPERUSER NOCREATEROLE NOBYPASSRLS PASSWORD ${literal(input.ownerPassword)}`,
    ensure(app, input.app),
    // The app's role owns nothing and can make nothing: no superuser, no new roles or databases, no inherited rights.
    `ALTER ROLE ${app} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOBYPASSRLS NOREPLICATION PASSWORD ${literal(input.appPassword)}`,
  ];
}

/** Run in the app's database as the administrator: the schema belongs to the owner; nobody else may create in it. */
export function schemaSetupStatements(input: { owner: string; app: string; database: string }): string[] {
  const owner = roleIdentifier(input.owner);
  const app = roleIdentifier(input.app);
  return [
    `ALTER DATABASE ${roleIdentifier(input.database)} OWNER TO ${owner}`,
    `ALTER SCHEMA public OWNER TO ${owner}`,
    `REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
    `REVOKE ALL ON DATABASE ${roleIdentifier(input.database)} FROM PUBLIC`,
    `GRANT CONNECT, TEMPORARY ON DATABASE ${roleIdentifier(input.database)} TO ${app}`,
    `GRANT USAGE ON SCHEMA public TO ${app}`,
  ];
}

/**
 * PGlite (decision 462): the embedded database has roles and SET ROLE but one session, whose user is a
 * superuser. `db:setup` and `db:migrate` make this role with the app's grants after the migrations
 * (`ensurePgliteAppRole`); the server then works as it (`usePgliteAppRole`), so a statement that would
 * change the audit trail is refused there too. Any later statement could still RESET ROLE: on PGlite
 * this guards against mistakes, not against the code the process runs.
 */
const PGLITE_APP_ROLE = "gatehouse_app";

export async function ensurePgliteAppRole(handle: DatabaseHandle): Promise<void> {
  await handle.db.execute(
    sql.raw(`DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${PGLITE_APP_ROLE}') THEN CREATE ROLE ${roleIdentifier(PGLITE_APP_ROLE)} NOLOGIN; END IF; END $$`),
  );
  await grantAppRole(handle, PGLITE_APP_ROLE);
}

/** Works as the app's role from now on, when `ensurePgliteAppRole` has made it (else nothing changes). */
export async function usePgliteAppRole(handle: DatabaseHandle): Promise<void> {
  await handle.db.execute(
    sql.raw(`DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${PGLITE_APP_ROLE}') THEN EXECUTE 'SET ROLE ${roleIdentifier(PGLITE_APP_ROLE)}'; END IF; END $$`),
  );
}
