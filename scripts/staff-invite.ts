/**
 * Invites a staff member and prints the one-time link (24 hours):
 *
 *     npm run staff:invite -- --email owner@example.com --role owner
 *     npm run staff:invite -- --email desk@example.com --role front_desk --locations 1,2
 *
 * While the server runs it asks the server (the embedded database admits one process); otherwise it
 * opens the database itself. See docs/decisions/249-staff-invite-command.md.
 */
import { parseArgs } from "node:util";
import { databaseOptionsFromEnv, defaultPgliteDir, openDatabase } from "~/db/client.server";
import { STAFF_ROLES } from "~/domain/staff/roles";
import { envOrExit } from "~/platform/env.server";
import { inviteByCommand, inviteThroughServer, staffCommandFile, type InviteRequest } from "~/services/staff/command.server";
import { commandConsoleOrigin } from "~/services/site/origin.server";

envOrExit({ server: false });

const { values } = parseArgs({ options: { email: { type: "string" }, role: { type: "string" }, locations: { type: "string" } } });
if (!values.email || !values.role) {
  console.error(`Usage: npm run staff:invite -- --email E --role ${STAFF_ROLES.join("|")} [--locations id,id]`);
  process.exit(2);
}
const locationIds = (values.locations ?? "").split(",").map((s) => s.trim()).filter(Boolean).map(Number);
if (locationIds.some((n) => !Number.isInteger(n) || n <= 0)) {
  console.error("--locations must be location ids separated by commas, e.g. --locations 1,2");
  process.exit(2);
}
const request: InviteRequest = { email: values.email, role: values.role, locationIds };

function report(result: unknown, note = ""): never {
  const r = result as { ok?: boolean; link?: string; expiresAt?: string | Date; errors?: Record<string, string> } | null;
  if (r?.ok && r.link) {
    console.log(`Invitation for ${request.email} (${request.role}). Open this link within 24 hours (it works once):\n\n${r.link}\n${note}`);
    process.exit(0);
  }
  console.error(Object.values(r?.errors ?? { error: "The invitation could not be made." }).join("\n"));
  process.exit(1);
}

const options = databaseOptionsFromEnv();
const viaServer = await inviteThroughServer(staffCommandFile(options.pgliteDir ?? defaultPgliteDir()), request);
if (viaServer) report(viaServer.body);

const handle = openDatabase(options);
try {
  // No server answered: the link is on the console's origin these settings give a server on this
  // machine (CONSOLE_URL, else beside PUBLIC_URL, else http://admin.localhost:PORT; decision 506).
  const result = await inviteByCommand(handle.db, request, undefined, { direct: true });
  await handle.close();
  const note = commandConsoleOrigin().configured ? "" : "(CONSOLE_URL is not set: this is the back office of a server started on this machine with npm start. Set CONSOLE_URL to print links on another address.)\n";
  report(result, note);
} catch (error) {
  await handle.close().catch(() => {});
  console.error(`The invitation could not be made: ${error instanceof Error ? error.message : String(error)}`);
  console.error("If the server is running on the embedded database, start this command from the same folder with the same PGLITE_DIR.");
  process.exit(1);
}
