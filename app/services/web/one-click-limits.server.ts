import crypto from "node:crypto";
import type { Database } from "~/db/client.server";
import { hitRateLimit } from "./rate-limit.server";

/** One-click unsubscribe POSTs per link per hour (decision 612): a mail client sends one; more is someone hammering it. */
const PER_LINK_PER_HOUR = 20;

/**
 * Counts a one-click unsubscribe (RFC 8058) for its link (keyed by a hash of the token, never the token):
 * true when the link has been POSTed too often this hour. Not per address: a mail provider's few
 * addresses send every user's request.
 */
export async function limitOneClickUnsubscribe(db: Database, link: string, now: Date): Promise<boolean> {
  const key = `one-click-unsubscribe:${crypto.createHash("sha256").update(link).digest("base64url").slice(0, 32)}`;
  const hit = await hitRateLimit(db, { key, limit: PER_LINK_PER_HOUR, windowMs: 60 * 60_000, now });
  return !hit.allowed;
}
