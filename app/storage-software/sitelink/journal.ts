/**
 * The SiteLink write journal (study §3.1, §5, §8.3): one row per non-idempotent SiteLink call
 * (TenantNewDetailed, MoveIn, PaymentSimple*, ReservationNew*, ReservationUpdate, TenantBillingInfoUpdate,
 * ScheduleMoveOut), written `pending` and COMMITTED before the HTTP request leaves, so that a crash or a
 * timeout mid-call leaves a truthful trace. SiteLink has no idempotency key: the journal key is ours.
 *
 * States: pending (sent or about to be) -> done (SiteLink said yes; `externalIds` holds its ids) |
 * failed (SiteLink said no, or reconciliation proved it did nothing) | unknown (no answer, or an answer
 * that does not say: only reconciliation, never a blind resend, moves it on).
 *
 * What a row keeps (issue 19, docs/security.md "The SiteLink write journal"): only the fields named
 * below, checked on every write. SiteLink's ids, our ids, amounts, dates and the card's brand and last
 * four digits are kept until the row is pruned; personal data (the contact details a TenantUpdate_v3
 * is compared with) only until the row is settled. Never a password or its hash, a gate code, lease
 * text, a card number or a gateway token: what a move-in's reconciliation needs of those lives on the
 * rental until it is settled (checkouts.pending_move_in). Settled rows are deleted after
 * JOURNAL_RETENTION_DAYS, open ones lose their personal data after JOURNAL_PERSONAL_DAYS
 * (`pruneJournal`, run by the server's housekeeping).
 */
import { and, asc, eq, inArray, like, lt, ne, or, sql } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { sitelinkWrites } from "~/db/schema";

/** The fields a journal row may keep until it is pruned: ids, amounts, dates, outcomes. */
const JOURNAL_KEPT_FIELDS = [
  // SiteLink's ids
  "tenantId",
  "ledgerId",
  "leaseNum",
  "receipt",
  "waitingId",
  "globalNum",
  "unitId",
  "siteLinkTenantId",
  // ours
  "leaseId",
  "localUnitId",
  "idempotencyKey",
  "purpose",
  // money and dates (a move-in's charges as quoted: descriptions and cents, nothing personal)
  "total",
  "amount",
  "lines",
  "before",
  "dueDate",
  "moveInDate",
  "paidThroughDate",
  "nextDueDate",
  "monthlyRate",
  "insurancePremium",
  // the card as a receipt shows it, and our gateway's authorisation reference (not a token)
  "cardBrand",
  "cardLast4",
  "brand",
  "last4",
  "gatewayAuth",
  // flags and outcomes
  "autopay",
  "autopayHandled",
  "outcome",
  // why a failed row needs the operator (e.g. a -2 move-in while the unit was free, decision 180)
  "attention",
] as const;

/** Personal data a row may hold while it is open (what reconciliation compares); removed when it is settled. */
const JOURNAL_PERSONAL_FIELDS = ["fields"] as const;

/** The fields `sitelink:status` and the status snapshot show of a row: identifiers an operator looks up. */
const JOURNAL_SHOWN_FIELDS = ["tenantId", "siteLinkTenantId", "ledgerId", "leaseNum", "receipt", "waitingId", "leaseId", "unitId", "amount", "total", "dueDate", "gatewayAuth", "outcome", "purpose", "attention"] as const;

/** Settled rows are deleted this many days after they were settled. */
export const JOURNAL_RETENTION_DAYS = 90;
/** Rows still open this many days after they started lose their personal data (they stay listed). */
export const JOURNAL_PERSONAL_DAYS = 30;

const KEPT = new Set<string>(JOURNAL_KEPT_FIELDS);
const PERSONAL = new Set<string>(JOURNAL_PERSONAL_FIELDS);

/** A caller tried to keep a field the journal may not hold (a programming error, caught by the tests). */
export class JournalFieldError extends Error {
  override name = "JournalFieldError";
}

function checkFields(key: string, fields: Record<string, string> | undefined): void {
  for (const name of Object.keys(fields ?? {})) {
    if (!KEPT.has(name) && !PERSONAL.has(name)) {
      throw new JournalFieldError(
        `The SiteLink write journal may not keep "${name}" (row ${key.split(":")[0]}): add it to JOURNAL_KEPT_FIELDS in journal.ts only if reconciliation needs it and it is neither a secret nor personal data`,
      );
    }
  }
}

/** The fields a settled row keeps: the kept ones (personal data and anything older code stored dropped). */
function settledFields(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([k]) => KEPT.has(k)));
}

/** The fields shown to an operator (status output and snapshot). */
export function shownFields(fields: Record<string, string>): Record<string, string> {
  const shown = new Set<string>(JOURNAL_SHOWN_FIELDS);
  return Object.fromEntries(Object.entries(fields).filter(([k, v]) => shown.has(k) && typeof v === "string" && v !== ""));
}

export type JournalState = "pending" | "done" | "failed" | "unknown";

export interface JournalEntry {
  key: string;
  locationId: number;
  operation: string;
  state: JournalState;
  fingerprint: string;
  externalIds: Record<string, string>;
  startedAt: Date;
  finishedAt: Date | null;
  lastError: string | null;
}

type Executor = Database | Transaction;

function toEntry(r: typeof sitelinkWrites.$inferSelect): JournalEntry {
  return {
    key: r.idempotencyKey,
    locationId: r.locationId,
    operation: r.operation,
    state: r.state as JournalState,
    fingerprint: r.requestFingerprint ?? "",
    externalIds: (r.externalIds ?? {}) as Record<string, string>,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt ?? null,
    lastError: r.lastError ?? null,
  };
}

export interface Journal {
  get(key: string): Promise<JournalEntry | null>;
  /** Every entry whose key starts with `prefix`, oldest first. */
  withPrefix(prefix: string): Promise<JournalEntry[]>;
  /**
   * Writes the entry `pending` (committed on return) unless the key exists; returns the entry as it
   * is now and whether this call created it. A caller that did not create it must not send.
   */
  begin(input: {
    key: string;
    operation: string;
    fingerprint: string;
    externalIds?: Record<string, string>;
    now: Date;
  }): Promise<{ entry: JournalEntry; created: boolean }>;
  settle(
    key: string,
    state: Exclude<JournalState, "pending">,
    patch: {
      externalIds?: Record<string, string>;
      error?: string | null;
      now: Date;
    },
  ): Promise<void>;
  /** Adds ids to an entry without changing its state (e.g. our gateway's approval before the send). */
  note(key: string, externalIds: Record<string, string>): Promise<void>;
  /** Entries of this location still waiting for an answer (pending or unknown), oldest first. */
  open(operations?: string[]): Promise<JournalEntry[]>;
  /**
   * Puts an open entry back to `pending` to send it again, for a write SiteLink was read back and
   * shown not to have applied and that is harmless to repeat (a cancellation): `unknown`, or `pending`
   * since before `staleBefore` (its sender is gone). True for the one caller that wins it.
   */
  reopen(key: string, now: Date, staleBefore: Date): Promise<boolean>;
}

export function createJournal(db: Executor, locationId: number): Journal {
  return {
    async get(key) {
      const [row] = await db.select().from(sitelinkWrites).where(eq(sitelinkWrites.idempotencyKey, key));
      return row ? toEntry(row) : null;
    },
    async withPrefix(prefix) {
      const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
      const rows = await db
        .select()
        .from(sitelinkWrites)
        .where(and(eq(sitelinkWrites.locationId, locationId), like(sitelinkWrites.idempotencyKey, `${escaped}%`)))
        .orderBy(asc(sitelinkWrites.startedAt));
      return rows.map(toEntry);
    },
    async begin({ key, operation, fingerprint, externalIds, now }) {
      checkFields(key, externalIds);
      const inserted = await db
        .insert(sitelinkWrites)
        .values({
          idempotencyKey: key,
          locationId,
          operation,
          state: "pending",
          requestFingerprint: fingerprint,
          externalIds: externalIds ?? {},
          startedAt: now,
        })
        .onConflictDoNothing({ target: sitelinkWrites.idempotencyKey })
        .returning();
      if (inserted[0]) return { entry: toEntry(inserted[0]), created: true };
      const existing = await this.get(key);
      if (!existing) throw new Error(`Journal entry ${key} vanished`);
      return { entry: existing, created: false };
    },
    async settle(key, state, { externalIds, error, now }) {
      checkFields(key, externalIds);
      const final = state === "done" || state === "failed";
      const current = externalIds || final ? await this.get(key) : null;
      const merged = { ...(current?.externalIds ?? {}), ...(externalIds ?? {}) };
      await db
        .update(sitelinkWrites)
        .set({
          state,
          finishedAt: now,
          // Settled: personal data (and anything older code kept) goes; open: kept for reconciliation.
          ...(final ? { externalIds: settledFields(merged) } : externalIds ? { externalIds: merged } : {}),
          ...(error !== undefined ? { lastError: error } : {}),
        })
        .where(eq(sitelinkWrites.idempotencyKey, key));
    },
    async note(key, externalIds) {
      checkFields(key, externalIds);
      const current = await this.get(key);
      if (!current) return;
      await db
        .update(sitelinkWrites)
        .set({ externalIds: { ...current.externalIds, ...externalIds } })
        .where(eq(sitelinkWrites.idempotencyKey, key));
    },
    async reopen(key, now, staleBefore) {
      const won = await db
        .update(sitelinkWrites)
        .set({ state: "pending", startedAt: now, finishedAt: null })
        .where(
          and(
            eq(sitelinkWrites.idempotencyKey, key),
            or(eq(sitelinkWrites.state, "unknown"), and(eq(sitelinkWrites.state, "pending"), lt(sitelinkWrites.startedAt, staleBefore))),
          ),
        )
        .returning({ key: sitelinkWrites.idempotencyKey });
      return won.length > 0;
    },
    async open(operations) {
      const rows = await db
        .select()
        .from(sitelinkWrites)
        .where(
          and(
            eq(sitelinkWrites.locationId, locationId),
            inArray(sitelinkWrites.state, ["pending", "unknown"]),
            operations?.length ? inArray(sitelinkWrites.operation, operations) : undefined,
          ),
        )
        .orderBy(asc(sitelinkWrites.startedAt));
      return rows.map(toEntry);
    },
  };
}

/**
 * Housekeeping (every location): settled rows older than JOURNAL_RETENTION_DAYS are deleted, except a
 * done TenantNewDetailed_v3 row, which holds nothing but SiteLink's TenantID and is how a rental's own
 * left-over SiteLink tenant is told from someone else's account (move-in.ts `tenantsWeCreated`); settled
 * rows still holding other fields (written before issue 19) are cut down to the kept ones; rows open for
 * more than JOURNAL_PERSONAL_DAYS lose their personal data. Idempotent; safe in several processes.
 */
export async function pruneJournal(db: Executor, now: Date): Promise<{ deleted: number; scrubbed: number }> {
  const retention = new Date(now.getTime() - JOURNAL_RETENTION_DAYS * 86_400_000);
  const personal = new Date(now.getTime() - JOURNAL_PERSONAL_DAYS * 86_400_000);
  const deleted = await db
    .delete(sitelinkWrites)
    .where(
      or(
        and(
          inArray(sitelinkWrites.state, ["done", "failed"]),
          lt(sitelinkWrites.finishedAt, retention),
          or(ne(sitelinkWrites.operation, "TenantNewDetailed_v3"), ne(sitelinkWrites.state, "done")),
        ),
        // Marked resolved at the back office (decision 261): settled by a person, kept as long.
        and(inArray(sitelinkWrites.state, ["pending", "unknown", "failed"]), lt(sitelinkWrites.resolvedAt, retention)),
      ),
    )
    .returning({ key: sitelinkWrites.idempotencyKey });
  const kept = sql.raw(`array[${JOURNAL_KEPT_FIELDS.map((f) => `'${f}'`).join(", ")}]::text[]`);
  const stray = sql`exists (select 1 from jsonb_object_keys(${sitelinkWrites.externalIds}) as k where not (k = any(${kept})))`;
  const scrubbedSettled = await db
    .update(sitelinkWrites)
    .set({
      externalIds: sql`(select coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb) from jsonb_each(${sitelinkWrites.externalIds}) as e where e.key = any(${kept}))`,
    })
    .where(and(inArray(sitelinkWrites.state, ["done", "failed"]), stray))
    .returning({ key: sitelinkWrites.idempotencyKey });
  const personalKeys = sql.raw(`array[${JOURNAL_PERSONAL_FIELDS.map((f) => `'${f}'`).join(", ")}]::text[]`);
  const scrubbedOpen = await db
    .update(sitelinkWrites)
    .set({ externalIds: sql`${sitelinkWrites.externalIds} - ${personalKeys}` })
    .where(and(inArray(sitelinkWrites.state, ["pending", "unknown"]), lt(sitelinkWrites.startedAt, personal), sql`${sitelinkWrites.externalIds} ?| ${personalKeys}`))
    .returning({ key: sitelinkWrites.idempotencyKey });
  return { deleted: deleted.length, scrubbed: scrubbedSettled.length + scrubbedOpen.length };
}
