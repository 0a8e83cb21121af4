/**
 * Publishing (issue 24, docs/decisions/300-changesets.md, 310–314): a changeset goes live in ONE
 * transaction (`applyChanges`), gets the account's next version number and a snapshot of every
 * editable record (so any version can be restored), and is audited in that transaction. Nothing
 * else: the live tables' `gatehouse_changed` triggers tell every process to drop its caches.
 *
 * - `publishDraft`: the open draft, now. On failure nothing changes; the draft keeps its changes and
 *   its `failure` text says what failed (decision 311).
 * - `scheduleChangeset` / `unscheduleChangeset`: the draft frozen for a moment entered in a location's
 *   time zone; `publishDueChangesets(db, now)` (the scheduler in every server process) publishes it,
 *   once, whichever process gets there first (a row lock, `for update skip locked`).
 * - `discardChangeset`: thrown away (audited).
 * - `restoreVersion`: a new changeset that brings the live content back to a version's snapshot,
 *   published as a new version with `restoresVersion` (decision 312).
 * - `websites.has_redeploy_started` is true while a publish runs (its own committed statement
 *   before, false after, also after a failure; reset at server start if a crash left it set).
 *
 * Who may: owners everything; a manager the draft's changes at their locations, which leave the
 * shared draft for a changeset of their own when published, scheduled or discarded, everyone else's
 * staying in the draft (decision 630); a scheduled or failed changeset only when its every change is
 * at one of their locations (decision 310). Anyone else: refused, naming no record.
 */
import { DATE_MESSAGE, isCalendarDate, TIME_MESSAGE } from "~/domain/content/publish-forms";
import { GONE_OR_OUT_OF_SCOPE } from "../web/responses.server";
import { and, asc, desc, eq, getTableColumns, getTableName, inArray, isNotNull, lte, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { TZDate } from "@date-fns/tz";
import type { Database, Transaction } from "~/db/client.server";
import { accounts, changesetChanges, changesets, hoursBlocks, locations, menus, staffMembers, websites, type ContentSnapshot } from "~/db/schema";
import { EDITABLE_TABLES } from "~/db/editable-tables.server";
import { EDITABLE_ENTITIES, EDITABLE_ENTITY_NAMES, sameValue, type EditableEntityName } from "~/domain/content/editable";
import { inScope } from "~/domain/staff/roles";
import { logger } from "~/platform/logger.server";
import { isDatabaseUnavailable, outageReason } from "~/db/unavailable";
import { env } from "~/platform/env.server";
import { now as clockNow } from "~/platform/clock.server";
import { applyChanges, changesOf, currentDraftId, locationOfRecord, syncHasNewChanges, type ChangeRow } from "./changesets.server";
import { recordAudit } from "../audit/events.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { goLiveState } from "~/storage-software/index.server";

type Executor = Database | Transaction;
type Row = Record<string, unknown>;

/** Who publishes: a staff member, or the scheduler (no person). */
type Publisher = { kind: "staff"; staff: SignedInStaff } | { kind: "scheduler" };

export interface ChangeCounts {
  updates: number;
  creates: number;
  deletes: number;
}

type PublishResult =
  | { ok: true; changesetId: number; version: number; counts: ChangeCounts }
  | { ok: false; reason: "not-found" | "forbidden" | "empty" | "failed" | "refused"; message: string };

const PUBLISH_FORBIDDEN = "Your role does not allow publishing these changes. Ask an owner to publish them.";

/**
 * A location going on the website for the first time (the draft's `isPublished: false → true`,
 * decision 620) whose software is SiteLink must have passed the go-live check with its current
 * settings (decision 470): otherwise the publish is refused, naming the location and the command that
 * checks it (decision 623). Null when nothing stops the publish.
 */
async function goLiveRefusal(db: Executor, changes: readonly Pick<ChangeRow, "entity" | "op" | "recordId" | "values">[]): Promise<string | null> {
  const going = changes.filter((c) => c.entity === "location" && c.op === "update" && c.recordId != null && c.values.isPublished === true);
  for (const c of going) {
    const [loc] = await db.select({ name: locations.name, slug: locations.urlSlug, software: locations.software, isPublished: locations.isPublished }).from(locations).where(eq(locations.id, c.recordId!));
    if (!loc || loc.isPublished || loc.software !== "sitelink") continue;
    const state = await goLiveState(db as Database, c.recordId!);
    if (state.live) continue;
    return (
      `${loc.name} cannot go on the website yet: its SiteLink settings have not passed the go-live check (${state.reason}). ` +
      `Run the check on its settings page in the console (/admin/content/locations/${c.recordId}/settings), or npm run sitelink:verify -- --location ${loc.slug} --test-mode-move-in on the server; publish again once it passes. Nothing was published.`
    );
  }
  return null;
}

/** A publish refused before anything was applied (a SiteLink location without a passed go-live check). */
class PublishRefused extends Error {}

function tableOf(entity: EditableEntityName): PgTable & Record<string, PgColumn> {
  return EDITABLE_TABLES[entity] as unknown as PgTable & Record<string, PgColumn>;
}

export function countChanges(changes: readonly Pick<ChangeRow, "op">[]): ChangeCounts {
  return {
    updates: changes.filter((c) => c.op === "update").length,
    creates: changes.filter((c) => c.op === "create").length,
    deletes: changes.filter((c) => c.op === "delete").length,
  };
}

/**
 * Decision 310: owners publish anything; a manager publishes (schedules, discards) only a changeset
 * whose every change is at one of their locations (account-wide records need an owner). For the
 * draft, decision 630: each member acts on the draft's changes within their scope (`changesInScope`).
 */
export function mayPublish(staff: Pick<SignedInStaff, "scope">, changes: readonly Pick<ChangeRow, "locationId">[]): boolean {
  if (staff.scope.all) return true;
  return changes.every((c) => c.locationId != null && inScope(staff.scope, c.locationId));
}

/** The changes this member may publish or discard (decision 630): owners all, a manager those at their locations. */
export function changesInScope<T extends Pick<ChangeRow, "locationId">>(staff: Pick<SignedInStaff, "scope">, changes: readonly T[]): T[] {
  return changes.filter((c) => staff.scope.all || (c.locationId != null && inScope(staff.scope, c.locationId)));
}

/** The `$create` keys a change's values point at (a new record under another new record). */
function createKeysPointedAt(change: Pick<ChangeRow, "values">): string[] {
  return Object.values(change.values)
    .filter((v): v is { $create: unknown } => !!v && typeof v === "object" && !Array.isArray(v) && "$create" in v)
    .map((v) => String(v.$create));
}

class OutOfScopeDependency extends Error {}
const DEPENDENCY_MESSAGE =
  "One of your new records belongs to a record someone else added in the draft, outside your locations. Ask an owner to publish it, or publish together with them.";

/**
 * Decision 630: inside the caller's transaction (the draft's row locked), moves the member's own
 * changes out of the shared draft into a changeset of their own with `status`, leaving everyone
 * else's in the draft. When every change is the member's, the draft itself is the answer (nothing
 * moves). A new record of the member's under a new record outside their scope cannot go alone:
 * `OutOfScopeDependency`.
 */
async function splitOffOwnChanges(
  tx: Transaction,
  draft: { id: number; accountId: number },
  staff: SignedInStaff,
  status: "scheduled" | "discarded",
): Promise<{ changesetId: number; changes: ChangeRow[]; split: boolean; kept: number }> {
  const all = await changesOf(tx, draft.id);
  const mine = changesInScope(staff, all);
  if (mine.length === all.length) return { changesetId: draft.id, changes: all, split: false, kept: 0 };
  if (mine.length === 0) return { changesetId: draft.id, changes: [], split: true, kept: all.length };
  const myKeys = new Set(mine.map((c) => c.createKey).filter((k): k is string => k != null));
  if (status !== "discarded" && mine.some((c) => createKeysPointedAt(c).some((k) => !myKeys.has(k)))) throw new OutOfScopeDependency();
  const [own] = await tx
    .insert(changesets)
    .values({ accountId: draft.accountId, status, createdBy: staff.staffId, title: `Split from the draft by ${staff.name || staff.email}` })
    .returning({ id: changesets.id });
  await tx.update(changesetChanges).set({ changesetId: own!.id }).where(inArray(changesetChanges.id, mine.map((c) => c.id)));
  return { changesetId: own!.id, changes: mine, split: true, kept: all.length - mine.length };
}

/**
 * After the member's own changes went live out of the shared draft: a change still in the draft that
 * pointed at one of their new records (`{ "$create": key }`) now points at its id.
 */
async function repointDraftAtCreated(tx: Transaction, draftId: number, createdIds: ReadonlyMap<string, number>): Promise<void> {
  if (createdIds.size === 0) return;
  for (const change of await changesOf(tx, draftId)) {
    const keys = createKeysPointedAt(change).filter((k) => createdIds.has(k));
    if (!keys.length) continue;
    const values = Object.fromEntries(
      Object.entries(change.values).map(([f, v]) => {
        const key = v && typeof v === "object" && !Array.isArray(v) && "$create" in v ? String((v as { $create: unknown }).$create) : null;
        return [f, key != null && createdIds.has(key) ? createdIds.get(key) : v];
      }),
    );
    await tx.update(changesetChanges).set({ values }).where(eq(changesetChanges.id, change.id));
  }
}

// ---- snapshots ---------------------------------------------------------------------------------

/** The rows of one entity that belong to the account. */
function accountFilter(entity: EditableEntityName, accountId: number): SQL {
  const t = tableOf(entity);
  const websiteIds = sql`(select ${websites.id} from ${websites} where ${websites.accountId} = ${accountId})`;
  const locationIds = sql`(select ${locations.id} from ${locations} where ${locations.accountId} = ${accountId})`;
  switch (entity) {
    case "account":
      return eq(accounts.id, accountId);
    case "website":
    case "page":
    case "contentItem":
    case "location":
      return eq(t.accountId!, accountId);
    case "menu":
    case "redirect":
    case "oldDomain":
      return sql`${t.websiteId} in ${websiteIds}`;
    case "menuItem":
      return sql`${t.menuId} in (select ${menus.id} from ${menus} where ${menus.websiteId} in ${websiteIds})`;
    case "hoursItem":
      return sql`${t.hoursBlockId} in (select ${hoursBlocks.id} from ${hoursBlocks} where ${hoursBlocks.locationId} in ${locationIds})`;
    default:
      return sql`${t.locationId} in ${locationIds}`;
  }
}

/**
 * Every editable record of the account: entity → id → editable fields. Records of entities staff may
 * add and remove also keep their whole row (`$row`, as the database's JSON of it) so a restore can put
 * a removed record back exactly as it was, with its id (decision 312).
 */
export async function readSnapshot(db: Executor, accountId: number): Promise<ContentSnapshot> {
  const out: ContentSnapshot = {};
  for (const entity of EDITABLE_ENTITY_NAMES) {
    const def = EDITABLE_ENTITIES[entity];
    const table = tableOf(entity);
    const fields = Object.keys(def.fields);
    const columns = getTableColumns(table) as Record<string, PgColumn>;
    const selection: Record<string, PgColumn | SQL.Aliased> = { id: columns.id! };
    for (const f of fields) selection[f] = columns[f]!;
    if (def.canCreate) selection.$row = sql`to_jsonb(${table})`.as("gatehouse_row");
    const rows = (await db.select(selection).from(table).where(accountFilter(entity, accountId)).orderBy(asc(columns.id!))) as Row[];
    const records: Record<string, Row> = {};
    for (const r of rows) {
      const record: Row = {};
      for (const f of fields) record[f] = r[f] ?? null;
      if (def.canCreate) record.$row = r.$row;
      records[String(r.id)] = JSON.parse(JSON.stringify(record)) as Row;
    }
    out[entity] = records;
  }
  return out;
}

// ---- the one publishing transaction -------------------------------------------------------------

const TABLE_LABELS = new Map<string, string>(EDITABLE_ENTITY_NAMES.map((e) => [getTableName(EDITABLE_TABLES[e]), EDITABLE_ENTITIES[e].label]));

/** What failed, as staff read it (the database's own words after the record kind). */
function describeFailure(error: unknown): string {
  const e = error as { cause?: unknown; message?: string };
  const cause = (e?.cause ?? e) as { message?: string; table?: string; constraint?: string; detail?: string; column?: string };
  const label = cause.table ? TABLE_LABELS.get(cause.table) : undefined;
  const parts = [label ? `${label}: ${cause.message ?? "refused"}` : (cause.message ?? e?.message ?? String(error))];
  if (cause.column && !parts[0]!.includes(cause.column)) parts.push(`(field ${cause.column})`);
  // "Key (from_path)=(/old) already exists." helps; "Failing row contains (…)" (the whole row) does not.
  if (cause.detail && !cause.detail.startsWith("Failing row")) parts.push(cause.detail);
  return `Publishing failed and nothing was changed. ${parts.join(" ")}`.slice(0, 1000);
}

/** Key of the transaction-level advisory lock that serialises one account's publishes. */
export const PUBLISH_LOCK = 24_310;

async function setRedeployStarted(db: Database, accountId: number, value: boolean): Promise<void> {
  await db.update(websites).set({ hasRedeployStarted: value }).where(eq(websites.accountId, accountId));
}

/**
 * Inside `tx`: applies the changeset's changes, versions and snapshots it, audits. The changeset row
 * must be locked by the caller. Throws when a change is refused (the caller's transaction then
 * changes nothing).
 */
async function publishInTx(
  tx: Transaction,
  input: { changesetId: number; accountId: number; by: Publisher; restoresVersion?: number | null; now: Date; fromDraft?: number },
): Promise<{ version: number; counts: ChangeCounts; createdIds: Map<string, number> }> {
  await tx.execute(sql`select pg_advisory_xact_lock(${PUBLISH_LOCK}, ${input.accountId})`);
  const [{ published } = { published: 0 }] = await tx
    .select({ published: sql<number>`count(*)::int` })
    .from(changesets)
    .where(and(eq(changesets.accountId, input.accountId), isNotNull(changesets.version)));
  const staffId = input.by.kind === "staff" ? input.by.staff.staffId : null;
  if (published === 0) {
    // Version 0: the content before the first publish, so the first publish can be rolled back too.
    await tx.insert(changesets).values({
      accountId: input.accountId,
      status: "published",
      title: "Before the first publish",
      version: 0,
      createdBy: staffId,
      publishedBy: staffId,
      publishedAt: input.now,
      snapshot: await readSnapshot(tx, input.accountId),
    });
  }
  const [{ next } = { next: 1 }] = await tx
    .select({ next: sql<number>`coalesce(max(${changesets.version}), 0)::int + 1` })
    .from(changesets)
    .where(eq(changesets.accountId, input.accountId));
  const changes = await changesOf(tx, input.changesetId);
  const refusal = await goLiveRefusal(tx, changes);
  if (refusal) throw new PublishRefused(refusal);
  const { createdIds } = await applyChanges(tx, changes);
  const counts = countChanges(changes);
  await tx
    .update(changesets)
    .set({
      status: "published",
      version: next,
      publishedBy: staffId,
      publishedAt: input.now,
      failure: null,
      restoresVersion: input.restoresVersion ?? null,
      snapshot: await readSnapshot(tx, input.accountId),
    })
    .where(eq(changesets.id, input.changesetId));
  await syncHasNewChanges(tx, input.accountId);
  await recordAudit(tx, {
    ...(input.by.kind === "staff" ? auditActor(input.by.staff) : { accountId: input.accountId, staffId: null, actor: "scheduled publish", ip: null }),
    action: "content.published",
    entity: "changeset",
    entityId: input.changesetId,
    detail: {
      changesetId: input.changesetId,
      version: next,
      ...counts,
      records: changes.length,
      restoresVersion: input.restoresVersion ?? null,
      ...(input.fromDraft != null ? { fromDraft: input.fromDraft } : {}),
    },
  });
  return { version: next, counts, createdIds };
}

/**
 * Runs one publish with the `has_redeploy_started` flag around it; on failure records what failed
 * (in its own transaction) with `onFailure`.
 */
async function withRedeployFlag<T>(db: Database, accountId: number, run: () => Promise<T>): Promise<T> {
  await setRedeployStarted(db, accountId, true);
  try {
    return await run();
  } finally {
    await setRedeployStarted(db, accountId, false).catch((error: unknown) => logger.warn({ err: error }, "[publish] could not clear has_redeploy_started"));
  }
}

async function recordFailure(db: Database, changesetId: number, accountId: number, failure: string, by: Publisher): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.select().from(changesets).where(eq(changesets.id, changesetId)).for("update");
    if (!row) return;
    // Decision 311: the draft stays the draft (its changes kept, the failure shown); a scheduled one
    // goes back to being the draft, or waits as `failed` when another draft is open.
    const draftOpen = row.status !== "draft" && (await currentDraftId(tx, accountId)) != null;
    await tx
      .update(changesets)
      .set({ status: row.status === "draft" || !draftOpen ? "draft" : "failed", failure, scheduledFor: null, scheduledTimeZone: null })
      .where(eq(changesets.id, changesetId));
    await recordAudit(tx, {
      ...(by.kind === "staff" ? auditActor(by.staff) : { accountId, staffId: null, actor: "scheduled publish", ip: null }),
      action: "content.publish_failed",
      entity: "changeset",
      entityId: changesetId,
      detail: { changesetId, failure },
    });
    await syncHasNewChanges(tx, accountId);
  });
}

const NOTHING_OF_YOURS = "None of the draft's changes are yours to publish: they are at other locations or on the whole website.";

/**
 * Publishes the member's changes in the account's draft now (see the module comment; decision 630:
 * an owner publishes the whole draft, a manager the changes at their locations, which leave the
 * draft for a changeset of their own; everyone else's stay in the draft).
 */
export async function publishDraft(db: Database, staff: SignedInStaff, input: { changesetId: number; now?: Date }): Promise<PublishResult> {
  const now = input.now ?? clockNow();
  const [row] = await db
    .select({ id: changesets.id, status: changesets.status })
    .from(changesets)
    .where(and(eq(changesets.id, input.changesetId), eq(changesets.accountId, staff.accountId)));
  if (!row || row.status !== "draft") return { ok: false, reason: "not-found", message: "There is no draft to publish: it was published or discarded meanwhile." };
  const changes = await changesOf(db, row.id);
  if (changes.length === 0) return { ok: false, reason: "empty", message: "The draft holds no changes yet." };
  const inScope = changesInScope(staff, changes);
  if (inScope.length === 0) return { ok: false, reason: "empty", message: NOTHING_OF_YOURS };
  const refusal = await goLiveRefusal(db, inScope);
  if (refusal) return { ok: false, reason: "refused", message: refusal };
  const by: Publisher = { kind: "staff", staff };
  return withRedeployFlag(db, staff.accountId, async () => {
    try {
      const done = await db.transaction(async (tx) => {
        const [locked] = await tx
          .select({ status: changesets.status })
          .from(changesets)
          .where(eq(changesets.id, row.id))
          .for("update");
        if (locked?.status !== "draft") return null;
        // The member's changes as they are under the lock (saved since the check above included).
        const own = await splitOffOwnChanges(tx, { id: row.id, accountId: staff.accountId }, staff, "scheduled");
        if (own.changes.length === 0) throw new NothingOfYours();
        const published = await publishInTx(tx, { changesetId: own.changesetId, accountId: staff.accountId, by, now, ...(own.split ? { fromDraft: row.id } : {}) });
        if (own.split) await repointDraftAtCreated(tx, row.id, published.createdIds);
        return { changesetId: own.changesetId, version: published.version, counts: published.counts };
      });
      if (!done) return { ok: false, reason: "not-found", message: "There is no draft to publish: it was published or discarded meanwhile." };
      return { ok: true, ...done };
    } catch (error) {
      if (error instanceof PublishRefused) return { ok: false, reason: "refused", message: error.message };
      if (error instanceof NothingOfYours) return { ok: false, reason: "empty", message: NOTHING_OF_YOURS };
      if (error instanceof OutOfScopeDependency) return { ok: false, reason: "refused", message: DEPENDENCY_MESSAGE };
      if (isDatabaseUnavailable(error)) throw error;
      const failure = describeFailure(error);
      logger.warn({ changesetId: row.id, failure }, "[publish] refused; nothing was changed");
      await recordFailure(db, row.id, staff.accountId, failure, by);
      return { ok: false, reason: "failed", message: failure };
    }
  });
}

class NothingOfYours extends Error {}


// ---- scheduling --------------------------------------------------------------------------------

interface ScheduleInput {
  changesetId: number;
  /** YYYY-MM-DD, HH:MM, and an IANA zone of one of the account's locations. */
  date: string;
  time: string;
  timeZone: string;
}

type ScheduleResult = { ok: true; at: Date } | { ok: false; errors: Partial<Record<"date" | "time" | "timeZone" | "form", string>>; status?: 403 };

/** The time zones of the account's locations (for the schedule form), with the locations in each. */
export async function scheduleTimeZones(db: Executor, accountId: number): Promise<Array<{ timeZone: string; locations: string[] }>> {
  const rows = await db.select({ name: locations.name, tz: locations.timeZone }).from(locations).where(eq(locations.accountId, accountId)).orderBy(asc(locations.name));
  const byZone = new Map<string, string[]>();
  for (const r of rows) {
    const zone = r.tz.timeZoneId;
    byZone.set(zone, [...(byZone.get(zone) ?? []), r.name]);
  }
  return [...byZone].map(([timeZone, names]) => ({ timeZone, locations: names }));
}

/** The instant a wall-clock date and time stand for in a time zone (a time skipped by a clock change moves forward). */
export function instantIn(date: string, time: string, timeZone: string): Date {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const [hh, mm] = time.split(":").map(Number) as [number, number];
  return new Date(new TZDate(y, m - 1, d, hh, mm, 0, timeZone).getTime());
}

/** Freezes the draft to be published at a moment entered in a location's time zone. */
export async function scheduleChangeset(db: Database, staff: SignedInStaff, input: ScheduleInput & { now?: Date }): Promise<ScheduleResult> {
  const now = input.now ?? clockNow();
  const errors: Partial<Record<"date" | "time" | "timeZone" | "form", string>> = {};
  if (!isCalendarDate(input.date)) errors.date = DATE_MESSAGE;
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(input.time)) errors.time = TIME_MESSAGE;
  const zones = await scheduleTimeZones(db, staff.accountId);
  if (!zones.some((z) => z.timeZone === input.timeZone)) errors.timeZone = "Choose the time zone of one of your locations.";
  if (Object.keys(errors).length) return { ok: false, errors };
  const at = instantIn(input.date, input.time, input.timeZone);
  if (at.getTime() <= now.getTime()) return { ok: false, errors: { date: "Choose a moment in the future (or publish now)." } };
  return db.transaction(async (tx): Promise<ScheduleResult> => {
    const [row] = await tx
      .select()
      .from(changesets)
      .where(and(eq(changesets.id, input.changesetId), eq(changesets.accountId, staff.accountId)))
      .for("update");
    if (!row || row.status !== "draft") return { ok: false, errors: { form: "There is no draft to schedule: it was published or discarded meanwhile." } };
    if ((await changesOf(tx, row.id)).length === 0) return { ok: false, errors: { form: "The draft holds no changes yet." } };
    // Decision 630: the member's own changes are scheduled; everyone else's stay in the draft.
    let own: Awaited<ReturnType<typeof splitOffOwnChanges>>;
    try {
      own = await splitOffOwnChanges(tx, { id: row.id, accountId: staff.accountId }, staff, "scheduled");
    } catch (error) {
      if (error instanceof OutOfScopeDependency) return { ok: false, errors: { form: DEPENDENCY_MESSAGE } };
      throw error;
    }
    if (own.changes.length === 0) return { ok: false, errors: { form: NOTHING_OF_YOURS } };
    await tx.update(changesets).set({ status: "scheduled", scheduledFor: at, scheduledTimeZone: input.timeZone, failure: null }).where(eq(changesets.id, own.changesetId));
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "content.scheduled",
      entity: "changeset",
      entityId: own.changesetId,
      detail: {
        changesetId: own.changesetId,
        scheduledFor: at.toISOString(),
        timeZone: input.timeZone,
        local: `${input.date} ${input.time}`,
        ...countChanges(own.changes),
        ...(own.split ? { fromDraft: row.id, keptInDraft: own.kept } : {}),
      },
    });
    // The scheduled changes are no longer "new changes" of the draft.
    await syncHasNewChanges(tx, staff.accountId);
    return { ok: true, at };
  });
}

type SimpleResult = { ok: true } | { ok: false; status: 400 | 403 | 404; message: string };

/**
 * A scheduled (or failed) changeset becomes the draft again; when a draft is open meanwhile, its
 * changes join that draft (decision 630), unless a record is changed in both (then refused).
 */
export async function unscheduleChangeset(db: Database, staff: SignedInStaff, input: { changesetId: number }): Promise<SimpleResult> {
  return db.transaction(async (tx): Promise<SimpleResult> => {
    const [row] = await tx
      .select()
      .from(changesets)
      .where(and(eq(changesets.id, input.changesetId), eq(changesets.accountId, staff.accountId)))
      .for("update");
    if (!row || (row.status !== "scheduled" && row.status !== "failed")) return { ok: false, status: GONE_OR_OUT_OF_SCOPE, message: "That changeset is no longer scheduled." };
    const changes = await changesOf(tx, row.id);
    if (!mayPublish(staff, changes)) return { ok: false, status: 403, message: PUBLISH_FORBIDDEN };
    const openDraftId = await currentDraftId(tx, staff.accountId);
    if (openDraftId != null) {
      await tx.select({ id: changesets.id }).from(changesets).where(eq(changesets.id, openDraftId)).for("update");
      const inDraft = await changesOf(tx, openDraftId);
      const key = (c: Pick<ChangeRow, "entity" | "recordId">) => `${c.entity}:${c.recordId}`;
      const drafted = new Set(inDraft.filter((c) => c.recordId != null).map(key));
      if (changes.some((c) => c.recordId != null && drafted.has(key(c)))) {
        return { ok: false, status: 400, message: "The draft changes some of the same records meanwhile. Publish or discard those changes in the draft first; then this one can join the draft again." };
      }
      await tx.update(changesetChanges).set({ changesetId: openDraftId }).where(eq(changesetChanges.changesetId, row.id));
      await tx.update(changesets).set({ status: "discarded", scheduledFor: null, scheduledTimeZone: null, title: "Joined the draft again" }).where(eq(changesets.id, row.id));
    } else {
      await tx.update(changesets).set({ status: "draft", scheduledFor: null, scheduledTimeZone: null }).where(eq(changesets.id, row.id));
    }
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "content.unscheduled",
      entity: "changeset",
      entityId: row.id,
      detail: { changesetId: row.id, wasScheduledFor: row.scheduledFor?.toISOString() ?? null, ...(openDraftId != null ? { joinedDraft: openDraftId } : {}) },
    });
    await syncHasNewChanges(tx, staff.accountId);
    return { ok: true };
  });
}

/**
 * Throws away the member's changes in the draft (decision 630: an owner's, the whole draft; a
 * manager's, the changes at their locations, everyone else's kept), or a scheduled or failed
 * changeset the member may act on. The console asks first (/admin/changes).
 */
export async function discardChangeset(db: Database, staff: SignedInStaff, input: { changesetId: number }): Promise<SimpleResult> {
  return db.transaction(async (tx): Promise<SimpleResult> => {
    const [row] = await tx
      .select()
      .from(changesets)
      .where(and(eq(changesets.id, input.changesetId), eq(changesets.accountId, staff.accountId)))
      .for("update");
    if (!row || !["draft", "scheduled", "failed"].includes(row.status)) return { ok: false, status: GONE_OR_OUT_OF_SCOPE, message: "There is nothing to discard: it was published or discarded meanwhile." };
    if (row.status === "draft") {
      const own = await splitOffOwnChanges(tx, { id: row.id, accountId: staff.accountId }, staff, "discarded");
      if (own.changes.length === 0) return { ok: false, status: 400, message: "None of the draft's changes are yours to discard: they are at other locations or on the whole website." };
      if (!own.split) await tx.update(changesets).set({ status: "discarded", scheduledFor: null }).where(eq(changesets.id, row.id));
      await recordAudit(tx, {
        ...auditActor(staff),
        action: "content.discarded",
        entity: "changeset",
        entityId: own.changesetId,
        detail: { changesetId: own.changesetId, was: row.status, ...countChanges(own.changes), ...(own.split ? { fromDraft: row.id, keptInDraft: own.kept } : {}) },
      });
      await syncHasNewChanges(tx, staff.accountId);
      return { ok: true };
    }
    const changes = await changesOf(tx, row.id);
    if (!mayPublish(staff, changes)) return { ok: false, status: 403, message: PUBLISH_FORBIDDEN };
    await tx.update(changesets).set({ status: "discarded", scheduledFor: null }).where(eq(changesets.id, row.id));
    await recordAudit(tx, { ...auditActor(staff), action: "content.discarded", entity: "changeset", entityId: row.id, detail: { changesetId: row.id, was: row.status, ...countChanges(changes) } });
    await syncHasNewChanges(tx, staff.accountId);
    return { ok: true };
  });
}

/**
 * The scheduler: publishes every scheduled changeset whose moment has come, oldest first. Any number
 * of processes may run it at once: each changeset is claimed with `for update skip locked` and its
 * status checked under the lock, so it is published once. Returns the versions published.
 */
export async function publishDueChangesets(db: Database, now: Date): Promise<number[]> {
  const due = await db
    .select({ id: changesets.id, accountId: changesets.accountId })
    .from(changesets)
    .where(and(eq(changesets.status, "scheduled"), lte(changesets.scheduledFor, now)))
    .orderBy(asc(changesets.scheduledFor), asc(changesets.id));
  const versions: number[] = [];
  const by: Publisher = { kind: "scheduler" };
  for (const c of due) {
    try {
      const done = await withRedeployFlag(db, c.accountId, () =>
        db.transaction(async (tx) => {
          const [claimed] = await tx
            .select({ id: changesets.id })
            .from(changesets)
            .where(and(eq(changesets.id, c.id), eq(changesets.status, "scheduled"), lte(changesets.scheduledFor, now)))
            .for("update", { skipLocked: true });
          if (!claimed) return null;
          return publishInTx(tx, { changesetId: c.id, accountId: c.accountId, by, now });
        }),
      );
      if (done) {
        versions.push(done.version);
        logger.info({ changesetId: c.id, version: done.version, ...done.counts }, "[publish] scheduled changeset published");
      }
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      const failure = describeFailure(error);
      logger.warn({ changesetId: c.id, failure }, "[publish] scheduled publish refused; nothing was changed");
      await recordFailure(db, c.id, c.accountId, failure, by);
    }
  }
  return versions;
}

/**
 * Clears `has_redeploy_started` left set by a process that stopped in the middle of a publish (or
 * by the imported data), unless a publish of that account is running now (it holds the lock).
 */
async function resetStuckRedeployFlag(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(
      sql`update ${websites} set has_redeploy_started = false where has_redeploy_started and pg_try_advisory_xact_lock(${PUBLISH_LOCK}, ${websites.accountId})`,
    );
  });
}

const SCHEDULER_EVERY_MS = 15_000;

/**
 * Starts the scheduler once per process (off under NODE_ENV=test or PUBLISH_SCHEDULE=off): every 15
 * seconds, `publishDueChangesets`. First clears a stuck `has_redeploy_started`.
 */
export function startPublishScheduler(db: Database): () => void {
  const e = env();
  if (e.NODE_ENV === "test" || e.PUBLISH_SCHEDULE === "off") return () => {};
  const g = globalThis as unknown as { __gatehousePublish?: () => void };
  if (g.__gatehousePublish) return g.__gatehousePublish;
  void resetStuckRedeployFlag(db).catch((error: unknown) => logger.warn({ err: error }, "[publish] could not clear has_redeploy_started at start"));
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await publishDueChangesets(db, clockNow());
    } catch (error) {
      if (isDatabaseUnavailable(error)) logger.warn({ reason: outageReason(error) }, "[publish] database unavailable; scheduled publishing will be retried");
      else logger.error({ err: error }, "[publish] the scheduler failed; it will be retried");
    } finally {
      running = false;
    }
  };
  const first = setTimeout(tick, e.PUBLISH_SCHEDULE_FIRST_MS ?? 2_000);
  const every = setInterval(tick, SCHEDULER_EVERY_MS);
  first.unref();
  every.unref();
  g.__gatehousePublish = () => {
    clearTimeout(first);
    clearInterval(every);
  };
  return g.__gatehousePublish;
}

// ---- restore -----------------------------------------------------------------------------------

export interface RestorePlanChange {
  entity: EditableEntityName;
  op: "update" | "create" | "delete";
  recordId: number;
  locationId: number | null;
  values: Row;
  base: Row;
}

async function liveLocation(tx: Executor, entity: EditableEntityName, id: number): Promise<number | null> {
  const table = tableOf(entity);
  const [row] = (await tx.select().from(table).where(eq(table.id!, id)).limit(1)) as Row[];
  if (!row) return null;
  return (await locationOfRecord(tx, entity, row)) ?? null;
}

const fieldsOf = (record: Row): Row => Object.fromEntries(Object.entries(record).filter(([k]) => k !== "$row"));

/** The changes that bring the live content (`current`) to `target` (decision 312). */
async function restorePlan(tx: Executor, current: ContentSnapshot, target: ContentSnapshot): Promise<RestorePlanChange[]> {
  const plan: RestorePlanChange[] = [];
  for (const entity of EDITABLE_ENTITY_NAMES) {
    const def = EDITABLE_ENTITIES[entity];
    const now = current[entity] ?? {};
    const then = target[entity] ?? {};
    const ids = [...new Set([...Object.keys(now), ...Object.keys(then)])].map(Number).sort((a, b) => a - b);
    for (const id of ids) {
      const was = then[String(id)];
      const is = now[String(id)];
      if (was && is) {
        const values: Row = {};
        const base: Row = {};
        for (const f of Object.keys(def.fields)) {
          if (!(f in was)) continue;
          if (!sameValue(was[f], is[f])) {
            values[f] = was[f] ?? null;
            base[f] = is[f] ?? null;
          }
        }
        if (Object.keys(values).length) plan.push({ entity, op: "update", recordId: id, locationId: await liveLocation(tx, entity, id), values, base });
      } else if (was && !is && def.canCreate && was.$row) {
        plan.push({ entity, op: "create", recordId: id, locationId: null, values: fieldsOf(was), base: { $row: was.$row } });
      } else if (is && !was && def.canCreate) {
        plan.push({ entity, op: "delete", recordId: id, locationId: await liveLocation(tx, entity, id), values: {}, base: fieldsOf(is) });
      }
    }
  }
  // A removed child goes before its parent (a menu item under another).
  return plan.sort((a, b) => (a.op === "delete" && b.op === "delete" ? b.recordId - a.recordId : 0));
}

type RestoreResult = PublishResult;

/** The published versions of the account, newest first (version 0 is the content before the first publish). */
export async function listVersions(db: Executor, accountId: number) {
  const rows = await db
    .select({
      id: changesets.id,
      version: changesets.version,
      title: changesets.title,
      publishedAt: changesets.publishedAt,
      restoresVersion: changesets.restoresVersion,
      /** False once housekeeping pruned its snapshot (decision 361). */
      restorable: sql<boolean>`${changesets.snapshot} is not null`,
      publishedBy: staffMembers.email,
      publishedByName: staffMembers.name,
    })
    .from(changesets)
    .leftJoin(staffMembers, eq(staffMembers.id, changesets.publishedBy))
    .where(and(eq(changesets.accountId, accountId), eq(changesets.status, "published"), isNotNull(changesets.version)))
    .orderBy(desc(changesets.version));
  const counts = rows.length
    ? await db
        .select({ id: changesetChanges.changesetId, op: changesetChanges.op, n: sql<number>`count(*)::int` })
        .from(changesetChanges)
        .where(inArray(changesetChanges.changesetId, rows.map((r) => r.id)))
        .groupBy(changesetChanges.changesetId, changesetChanges.op)
    : [];
  return rows.map((r) => {
    const c: ChangeCounts = { updates: 0, creates: 0, deletes: 0 };
    for (const x of counts.filter((k) => k.id === r.id)) c[`${x.op}s` as keyof ChangeCounts] = x.n;
    return { ...r, version: r.version!, counts: c };
  });
}

/** What restoring `version` would change now (for the confirm page), or null when there is no such version. */
export async function previewRestore(db: Executor, accountId: number, version: number): Promise<RestorePlanChange[] | null> {
  const [row] = await db
    .select({ snapshot: changesets.snapshot })
    .from(changesets)
    .where(and(eq(changesets.accountId, accountId), eq(changesets.version, version), eq(changesets.status, "published")));
  if (!row?.snapshot) return null;
  return restorePlan(db, await readSnapshot(db, accountId), row.snapshot);
}

/**
 * Restores a published version: a new changeset that brings the live content to that version's
 * snapshot, published at once as a new version with `restoresVersion`. Owners only (it may touch
 * every record). Built and published in one transaction: on failure nothing changes.
 */
export async function restoreVersion(db: Database, staff: SignedInStaff, version: number, options: { now?: Date } = {}): Promise<RestoreResult> {
  if (!staff.scope.all) return { ok: false, reason: "forbidden", message: PUBLISH_FORBIDDEN };
  const now = options.now ?? clockNow();
  const by: Publisher = { kind: "staff", staff };
  return withRedeployFlag(db, staff.accountId, async () => {
    try {
      return await db.transaction(async (tx): Promise<RestoreResult> => {
        await tx.execute(sql`select pg_advisory_xact_lock(${PUBLISH_LOCK}, ${staff.accountId})`);
        const [target] = await tx
          .select({ snapshot: changesets.snapshot })
          .from(changesets)
          .where(and(eq(changesets.accountId, staff.accountId), eq(changesets.version, version), eq(changesets.status, "published")));
        if (!target?.snapshot) return { ok: false, reason: "not-found", message: `There is no version ${version}.` };
        const plan = await restorePlan(tx, await readSnapshot(tx, staff.accountId), target.snapshot);
        if (plan.length === 0) return { ok: false, reason: "empty", message: `The live site already matches version ${version}.` };
        const [cs] = await tx
          .insert(changesets)
          .values({ accountId: staff.accountId, status: "scheduled", title: `Restore version ${version}`, createdBy: staff.staffId, restoresVersion: version })
          .returning({ id: changesets.id });
        await tx.insert(changesetChanges).values(
          plan.map((p) => ({
            changesetId: cs!.id,
            entity: p.entity,
            op: p.op,
            recordId: p.op === "create" ? null : p.recordId,
            createKey: p.op === "create" ? `restore:${p.entity}:${p.recordId}` : null,
            locationId: p.locationId,
            values: p.values,
            base: p.base,
            staffId: staff.staffId,
          })),
        );
        const done = await publishInTx(tx, { changesetId: cs!.id, accountId: staff.accountId, by, restoresVersion: version, now });
        return { ok: true, changesetId: cs!.id, ...done };
      });
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      const failure = describeFailure(error);
      logger.warn({ version, failure }, "[publish] restore refused; nothing was changed");
      return { ok: false, reason: "failed", message: failure };
    }
  });
}

/** One publish action per staff member every few seconds at most (60 an hour). */
export function countPublishAction(db: Database, staff: SignedInStaff, now: Date) {
  return hitRateLimit(db, { key: `content-publish:staff:${staff.staffId}`, limit: 60, windowMs: 60 * 60_000, now });
}
