/**
 * Links to a signed lease (docs/decisions/078-expiring-lease-links-and-confirmation.md): the
 * expiring token links of the confirmation page and the email, the portal's tokenless link, and the
 * lease document they open, read through the storage port.
 */
import crypto from "node:crypto";
import type { Database } from "~/db/client.server";
import { env } from "~/platform/env.server";
import type { MoveInRecord } from "~/storage-software/port";
import { now as clockNow } from "~/platform/clock.server";
import { findAtAnyLocation } from "./storage-lookup.server";

/** How long a lease link (confirmation page, email) works; after that the tenant opens it in the portal. */
export const LEASE_LINK_DAYS = 30;

function leaseMac(leaseId: number | string, expires: number, secret: string): string {
  return crypto.createHmac("sha256", secret).update(`lease:${leaseId}:${expires}`).digest("base64url").slice(0, 32);
}

function legacyLeaseMac(leaseId: number | string, secret: string): string {
  return crypto.createHmac("sha256", secret).update(`lease:${leaseId}`).digest("base64url").slice(0, 32);
}

/**
 * The printable lease of a lease, for links (confirmation, email). The token is `{expiry}.{mac}`:
 * the expiry (Unix seconds, LEASE_LINK_DAYS from `now`) is inside the HMAC (SESSION_SECRET), so it
 * cannot be extended (docs/decisions/078-expiring-lease-links-and-confirmation.md).
 */
export function leaseDocumentPath(leaseId: number | string, now: Date = clockNow()): string {
  const expires = Math.floor(now.getTime() / 1000) + LEASE_LINK_DAYS * 24 * 60 * 60;
  return `/rent/lease/${leaseId}?token=${expires}.${leaseMac(leaseId, expires, env().sessionSecrets[0]!)}`;
}

/**
 * The lease line of an e-mail (the welcome e-mail and the back office's resend): an expiring link
 * made now. Computed once per e-mail by the caller (`now` fixed), so the line and its secrets match.
 */
export function leaseLinkLine(origin: string, leaseId: number | string, now: Date = clockNow()): string {
  return `Your lease: ${origin}${leaseDocumentPath(leaseId, now)}`;
}

/** The lease link's forms to seal in the outbox (decisions 071, 198): absolute, and the path alone. */
export function leaseLinkSecrets(origin: string, leaseId: number | string, now: Date = clockNow()): string[] {
  const path = leaseDocumentPath(leaseId, now);
  return [`${origin}${path}`, path];
}

/** The portal's link to a lease: no token, it opens for the signed-in tenant who holds the lease. */
export function portalLeasePath(leaseId: number | string): string {
  return `/rent/lease/${leaseId}`;
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};

/**
 * "ok": a genuine, unexpired link; "expired": a genuine link past its expiry (or an old link without
 * one, made before links expired); "invalid": anything else. Every secret of the list verifies.
 */
export function checkLeaseToken(leaseId: string, token: string | null, now: Date = clockNow()): "ok" | "expired" | "invalid" {
  if (!token || !/^\d{1,9}$/.test(leaseId)) return "invalid";
  const secrets = env().sessionSecrets;
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{32})$/.exec(token);
  if (m) {
    const expires = Number(m[1]);
    if (!secrets.some((s) => sameText(leaseMac(leaseId, expires, s), m[2]!))) return "invalid";
    return expires * 1000 > now.getTime() ? "ok" : "expired";
  }
  return secrets.some((s) => sameText(legacyLeaseMac(leaseId, s), token)) ? "expired" : "invalid";
}

/** The move-in behind a lease link (/rent/lease/:id carries no location). */
async function findMoveIn(db: Database, leaseId: string): Promise<MoveInRecord | null> {
  if (!/^\d{1,9}$/.test(leaseId)) return null;
  return findAtAnyLocation(db, (storage) => storage.getMoveIn(leaseId));
}

/** The holder of a lease (for the portal's tokenless lease link). */
export async function leaseTenantId(db: Database, leaseId: number | string): Promise<string | null> {
  return (await findMoveIn(db, String(leaseId)))?.tenantId ?? null;
}

/** The signed lease of a move-in, for the printable document. */
export async function getLeaseDocument(db: Database, leaseId: number | string) {
  const m = await findMoveIn(db, String(leaseId));
  if (!m) return null;
  return { leaseId: m.leaseId, tenantId: m.tenantId, unitName: m.unitName, moveInDate: m.moveInDate, ...m.lease };
}
