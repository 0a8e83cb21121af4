import type { Database, Transaction } from "~/db/client.server";
import { auditEvents, type AuditFieldChange } from "~/db/schema";

/**
 * The audit trail (issue 23, docs/decisions/246-audit-trail-append-only.md). Every staff sign-in,
 * failed sign-in and action is written here in the same transaction as the action: pass the action's
 * transaction. Rows are never updated or deleted (the database refuses it).
 *
 * Passwords, codes, card data, tokens and link secrets never enter: a field whose name says it is a
 * secret is recorded as changed without its values, and `detail` is filtered the same way.
 */
interface AuditEntry {
  accountId: number;
  /** Null when nobody was signed in (a failed sign-in of an unknown address, the invite command). */
  staffId: number | null;
  /** Who, as a person reads it: the member's e-mail, the e-mail typed, or "command line". */
  actor: string;
  ip: string | null;
  /** What happened, as `thing.verb`: staff.sign_in, staff.sign_in_failed, lead.contacted, pay_link.sent … */
  action: string;
  entity?: string | null;
  entityId?: string | number | null;
  locationId?: number | null;
  changes?: Record<string, AuditFieldChange> | null;
  detail?: Record<string, unknown> | null;
  at?: Date;
}

/** Field names whose values are secrets: recorded as changed, never with their values. */
const SECRET_FIELD = /(password|passwd|secret|token|totp|otp|recovery|cvv|cvc|card_?number|cardnumber|pan$|gate_?code|access_?code|signature|cookie)/i;
const NOT_RECORDED = "[not recorded]";

function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

function scrub(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (isSecretField(k)) out[k] = NOT_RECORDED;
    else if (v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date)) out[k] = scrub(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Each field that differs between `before` and `after` (only `fields` when given), with both values;
 * secret fields as changed, without values. `before` null means the record is new.
 */
function fieldChanges(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  fields?: readonly string[],
): Record<string, AuditFieldChange> {
  const names = fields ?? [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])];
  const changes: Record<string, AuditFieldChange> = {};
  for (const name of names) {
    const b = before?.[name] ?? null;
    const a = after?.[name] ?? null;
    if (same(b, a)) continue;
    changes[name] = isSecretField(name) ? { before: NOT_RECORDED, after: NOT_RECORDED } : { before: b, after: a };
  }
  return changes;
}

/** Writes one entry. Call it with the action's own transaction so both commit or neither does. */
export async function recordAudit(db: Database | Transaction, entry: AuditEntry): Promise<void> {
  const changes = entry.changes ? fieldChanges(
    Object.fromEntries(Object.entries(entry.changes).map(([k, v]) => [k, v.before])),
    Object.fromEntries(Object.entries(entry.changes).map(([k, v]) => [k, v.after])),
  ) : null;
  await db.insert(auditEvents).values({
    accountId: entry.accountId,
    staffId: entry.staffId,
    actor: entry.actor.slice(0, 320),
    ip: entry.ip,
    action: entry.action,
    entity: entry.entity ?? null,
    entityId: entry.entityId == null ? null : String(entry.entityId),
    locationId: entry.locationId ?? null,
    changes: changes && Object.keys(changes).length ? changes : null,
    detail: entry.detail ? scrub(entry.detail) : null,
    ...(entry.at ? { at: entry.at } : {}),
  });
}
