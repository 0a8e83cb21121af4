/**
 * `npm run db:roles` (issue 36, docs/decisions/462-two-database-roles.md): creates the two database
 * roles and the database, as an administrator. Run once before `db:setup` (it may run at every start:
 * each step is made only if missing, and the passwords are set again).
 *
 *   DATABASE_ADMIN_URL   a superuser or a role with CREATEROLE and CREATEDB (used by this command only)
 *   DATABASE_OWNER_URL   the owner role: runs the migrations, owns every table
 *   DATABASE_URL         the app's role: owns nothing; INSERT and SELECT on the audit trail
 *
 * The role names and passwords are read from the two URLs; the database is the one they name.
 */
import pg from "pg";
import { envOrExit } from "~/platform/env.server";
import { roleIdentifier, roleOfUrl, roleSetupStatements, schemaSetupStatements } from "~/db/roles.server";

const e = envOrExit({ server: false });
const adminUrl = e.DATABASE_ADMIN_URL;
const ownerUrl = e.DATABASE_OWNER_URL;
const appUrl = e.DATABASE_URL;
if (!adminUrl || !ownerUrl || !appUrl) {
  console.error("db:roles needs DATABASE_ADMIN_URL (an administrator), DATABASE_OWNER_URL (the owner role) and DATABASE_URL (the app's role).");
  process.exit(1);
}
const owner = roleOfUrl(ownerUrl);
const app = roleOfUrl(appUrl);
const database = decodeURIComponent(new URL(appUrl).pathname.slice(1));
if (!owner || !app || owner === app || database !== decodeURIComponent(new URL(ownerUrl).pathname.slice(1))) {
  console.error("DATABASE_OWNER_URL and DATABASE_URL must name two different roles (their user names) and the same database.");
  process.exit(1);
}
const password = (url: string) => decodeURIComponent(new URL(url).password);

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
try {
  for (const statement of roleSetupStatements({ owner, ownerPassword: password(ownerUrl), app, appPassword: password(appUrl) })) await admin.query(statement);
  const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
  if (!rowCount) await admin.query(`CREATE DATABASE ${roleIdentifier(database)} OWNER ${roleIdentifier(owner)}`);
} finally {
  await admin.end();
}
const inDatabase = new URL(adminUrl);
inDatabase.pathname = `/${database}`;
const adminHere = new pg.Client({ connectionString: inDatabase.toString() });
await adminHere.connect();
try {
  for (const statement of schemaSetupStatements({ owner, app, database })) await adminHere.query(statement);
} finally {
  await adminHere.end();
}
console.log(`Database roles ready: ${owner} owns ${database}; the app connects as ${app}.`);
