/**
 * The SiteLink write journal (study §3.1, §5, §8.3): one row per non-idempotent SiteLink call
 * (TenantNewDetailed, MoveIn, PaymentSimple*, ReservationNew*, ReservationUpdate, TenantBillingInfoUpdate,
 * ScheduleMoveOut), written `pending` and COMMITTED before the HTTP request leaves, so that a crash or a
 * timeout mid-call leaves a truthful trace. SiteLink has no idempotency key: the journal key is ours.
 *
 * States: pending (sent or about to be) -> done (SiteLink said yes; `externalIds` holds its ids) |
 * failed (SiteLink said no, or reconciliation proved it did nothing) | unknown (no answer, or an answer
 * that does not say: only reconciliation, never a blind resend, moves it on).
 */
import { and, asc, eq, inArray, like } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { sitelinkWrites } from "~/db/schema";

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
      const current = externalIds ? await this.get(key) : null;
      await db
        .update(sitelinkWrites)
        .set({
          state,
          finishedAt: now,
          ...(externalIds
            ? {
                externalIds: {
                  ...(current?.externalIds ?? {}),
                  ...externalIds,
                },
              }
            : {}),
          ...(error !== undefined ? { lastError: error } : {}),
        })
        .where(eq(sitelinkWrites.idempotencyKey, key));
    },
    async note(key, externalIds) {
      const current = await this.get(key);
      if (!current) return;
      await db
        .update(sitelinkWrites)
        .set({ externalIds: { ...current.externalIds, ...externalIds } })
        .where(eq(sitelinkWrites.idempotencyKey, key));
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
