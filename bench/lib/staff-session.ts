/**
 * An owner signed in with a full session made through the session service, as a two-factor sign-in
 * leaves it (tests/integration/support/staff-fixtures.ts does the same for the tests), for the soak
 * and the deployed bench's console publishes. The cookie is what the servers expect only when this
 * process has their configuration (NODE_ENV, SESSION_SECRET, CONSOLE_URL) before anything reads it.
 */
import type { Database } from "~/db/client.server";
import { staffMembers } from "~/db/schema";
import { scopeFor } from "~/domain/staff/roles";
import type { SignedInStaff } from "~/services/staff/context.server";
import { createStaffSession, getStaffSession } from "~/services/staff/session.server";

export async function signedInOwner(db: Database, accountId: number, name: string): Promise<{ cookie: string; signedIn: SignedInStaff }> {
  const email = `${name}@office.example`;
  const [row] = await db.insert(staffMembers).values({ accountId, email, name, role: "owner", passwordHash: "not-used-by-the-bench" }).returning({ id: staffMembers.id });
  const staffId = row!.id;
  const now = new Date();
  const cookie = (await createStaffSession(db, { staffId, now, passwordOnly: false, ip: "127.0.0.1" })).split(";")[0]!;
  const session = await getStaffSession(db, new Request("http://localhost/admin", { headers: { Cookie: cookie } }), now);
  return { cookie, signedIn: { staffId, accountId, email, name, role: "owner", scope: scopeFor("owner", []), factorAt: now, sessionHash: session!.sessionHash, ip: "127.0.0.1" } };
}
