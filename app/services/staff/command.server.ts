/**
 * `npm run staff:invite` while the server runs (issue 23, docs/decisions/249-staff-invite-command.md).
 *
 * The embedded database (PGlite) admits one process: while the server has it open, the command
 * cannot. So the server, when it starts, writes a command file next to its database
 * (`<PGLITE_DIR>.staff-command.json`, mode 0600: its pid, its port and a random secret made afresh at
 * each start) and answers `POST /__staff/invite` only from a loopback address, without proxy
 * headers, with that secret as a bearer token. The command asks the running server first, and opens
 * the database itself only when no server answers (no file, a dead pid, nothing listening). The
 * same works on PostgreSQL, where opening the database directly would also do.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Database } from "~/db/client.server";
import { getWebsite } from "~/db/queries/site.server";
import { now as clockNow } from "~/platform/clock.server";
import { inviteStaff, type InviteResult } from "./admin.server";
import { commandConsoleOrigin, consoleOrigin } from "../site/origin.server";

export const STAFF_COMMAND_PATH = "/__staff/invite";

export interface InviteRequest {
  email: string;
  role: string;
  locationIds: number[];
}

/** Where the server leaves its command file: beside the PGlite directory (null for an in-memory one). */
export function staffCommandFile(pgliteDir: string): string | null {
  if (pgliteDir.startsWith("memory://")) return null;
  return `${pgliteDir.replace(/[/\\]+$/, "")}.staff-command.json`;
}

interface CommandFile {
  pid: number;
  port: number;
  secret: string;
}

/** Writes this server's command file (a fresh secret) and removes it at exit; returns the secret. */
export function announceStaffCommand(file: string | null, port: number): string {
  const secret = crypto.randomBytes(32).toString("base64url");
  if (!file) return secret;
  try {
    fs.writeFileSync(file, `${JSON.stringify({ pid: process.pid, port, secret } satisfies CommandFile)}\n`, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
    process.once("exit", () => {
      try {
        const kept = JSON.parse(fs.readFileSync(file, "utf8")) as CommandFile;
        if (kept.pid === process.pid) fs.unlinkSync(file);
      } catch {
        // already gone
      }
    });
  } catch {
    // No command file: the command then says the server must be stopped (PGlite) or opens PostgreSQL itself.
  }
  return secret;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/**
 * Whether a request to the command endpoint may be served: from a loopback socket, with no proxy
 * header (a request relayed by a reverse proxy on the same machine carries one), and the secret.
 */
export function commandRequestAllowed(input: { remoteAddress: string | undefined; headers: Record<string, string | string[] | undefined>; secret: string }): boolean {
  if (!input.remoteAddress || !LOOPBACK.has(input.remoteAddress)) return false;
  for (const h of ["x-forwarded-for", "forwarded", "x-real-ip", "x-forwarded-host"]) if (input.headers[h] !== undefined) return false;
  const auth = input.headers.authorization;
  if (typeof auth !== "string" || !auth.startsWith("Bearer ")) return false;
  const given = Buffer.from(auth.slice(7));
  const expected = Buffer.from(input.secret);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** Parses the command's arguments (from the command line or the endpoint's JSON). */
function parseInviteRequest(value: unknown): InviteRequest | null {
  if (!value || typeof value !== "object") return null;
  const v = value as Record<string, unknown>;
  if (typeof v.email !== "string" || typeof v.role !== "string") return null;
  const ids = Array.isArray(v.locationIds) ? v.locationIds : [];
  if (!ids.every((n) => Number.isInteger(n) && (n as number) > 0)) return null;
  return { email: v.email, role: v.role, locationIds: ids as number[] };
}

/**
 * Invites by command: the site's account, and the console's origin — through the endpoint, the running
 * server's own (what it serves); opened directly (`direct`), the one the command's settings give a
 * server on this machine (`commandConsoleOrigin`, decision 506).
 */
export async function inviteByCommand(db: Database, request: InviteRequest, now: Date = clockNow(), options: { direct?: boolean } = {}): Promise<InviteResult | { ok: false; errors: { site: string } }> {
  const website = await getWebsite(db);
  if (!website) return { ok: false, errors: { site: "The database has no site yet: run npm run db:setup first." } };
  const origin = options.direct ? commandConsoleOrigin().origin : consoleOrigin(website);
  return inviteStaff(db, { accountId: website.accountId, email: request.email, role: request.role, locationIds: request.locationIds, origin, now, by: { commandLine: true } });
}

/** Answers an allowed request to the endpoint (JSON in, JSON out; at most 4 kB read). */
export async function answerStaffCommand(db: Database, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= 4096) chunks.push(chunk);
  }
  let parsed: unknown = null;
  try {
    parsed = size <= 4096 ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
  } catch {
    parsed = null;
  }
  const request = parseInviteRequest(parsed);
  const result = request ? await inviteByCommand(db, request) : { ok: false, errors: { request: "Send e-mail, role and location ids." } };
  res.writeHead(result.ok ? 200 : 400, { "Content-Type": "application/json", "Cache-Control": "no-store" });
  res.end(JSON.stringify(result));
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Asks the running server to invite: its answer, or null when no server runs (no command file, its
 * process gone, or nothing answering on its port).
 */
export async function inviteThroughServer(file: string | null, request: InviteRequest): Promise<{ status: number; body: unknown } | null> {
  if (!file || !fs.existsSync(file)) return null;
  let kept: CommandFile;
  try {
    kept = JSON.parse(fs.readFileSync(file, "utf8")) as CommandFile;
  } catch {
    return null;
  }
  if (!Number.isInteger(kept.pid) || !pidAlive(kept.pid)) return null;
  try {
    const response = await fetch(`http://127.0.0.1:${kept.port}${STAFF_COMMAND_PATH}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${kept.secret}`, "Content-Type": "application/json" },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch {
    return null;
  }
}
