/**
 * Drafts (issue 24, docs/decisions/300-changesets.md): every staff edit of what the site renders is
 * stored in the account's one open draft changeset, never written to the live tables. The live site
 * changes only when a changeset is published (app/services/content/publish.server.ts), which applies
 * the changes with `applyChanges` in one transaction.
 *
 * - `saveDraftEdit`: validates with the registry's schemas (app/domain/content/editable.ts), checks the
 *   record is inside the staff member's locations (outside: not found), refuses a stale second save of
 *   a field (both values shown), merges the edit into the draft, records each field change in the audit
 *   trail in the same transaction, and keeps the website's `has_new_changes` true while the draft holds
 *   anything.
 * - `readEffectiveRecord` / `listEffectiveRecords`: a record (or a parent's children) as it will look
 *   after publishing: live values with the draft's changes over them, drafted creates included and
 *   drafted deletes left out. The console's forms show these.
 */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import { randomUUID } from "node:crypto";
import type { Database, Transaction } from "~/db/client.server";
import { changesetChanges, changesets, locations, menus, websites } from "~/db/schema";
import { EDITABLE_TABLES } from "~/db/editable-tables.server";
import {
  EDITABLE_ENTITIES,
  sameValue,
  validateFields,
  type EditableEntityName,
  type FieldErrors,
} from "~/domain/content/editable";
import { inScope, type LocationScope } from "~/domain/staff/roles";
import { auditActor, type SignedInStaff } from "../staff/context.server";
import { recordAudit } from "../audit/events.server";

type Executor = Database | Transaction;
type Row = Record<string, unknown>;

export type DraftEdit =
  | { op: "update"; entity: EditableEntityName; recordId: number; values: Row; base: Row }
  | { op: "create"; entity: EditableEntityName; values: Row }
  | { op: "delete"; entity: EditableEntityName; recordId: number }
  /** Changing or dropping an earlier drafted create (not yet live). */
  | { op: "updateCreate"; entity: EditableEntityName; createKey: string; values: Row }
  | { op: "dropCreate"; entity: EditableEntityName; createKey: string };

export interface FieldConflict {
  field: string;
  label: string;
  /** What this staff member typed. */
  yours: unknown;
  /** What the draft (or the live site) holds now, saved by someone else since the form was loaded. */
  theirs: unknown;
}

export type DraftResult =
  | { ok: true; changesetId: number; createKey?: string }
  | { ok: false; reason: "invalid"; errors: FieldErrors }
  | { ok: false; reason: "conflict"; conflicts: FieldConflict[] }
  | { ok: false; reason: "not-found" };

function tableOf(entity: EditableEntityName): PgTable & Record<string, PgColumn> {
  return EDITABLE_TABLES[entity] as unknown as PgTable & Record<string, PgColumn>;
}

/** The live record (editable fields and its id, plus the columns used to find its location) or null. */
async function liveRecord(db: Executor, entity: EditableEntityName, id: number): Promise<Row | null> {
  const table = tableOf(entity);
  const [row] = await db.select().from(table).where(eq(table.id!, id)).limit(1);
  return (row as Row | undefined) ?? null;
}

/**
 * The location a record belongs to: a number, null for account-wide records, or undefined when the
 * record (or its parent) does not exist.
 */
export async function locationOfRecord(db: Executor, entity: EditableEntityName, row: Row): Promise<number | null | undefined> {
  const via = EDITABLE_ENTITIES[entity].location;
  switch (via.kind) {
    case "account":
      return null;
    case "self":
      return Number(row.id);
    case "column":
      return row.locationId == null ? undefined : Number(row.locationId);
    case "parent": {
      const parentId = row[via.column];
      if (parentId == null) return undefined;
      const parent = await liveRecord(db, via.entity, Number(parentId));
      return parent ? locationOfRecord(db, via.entity, parent) : undefined;
    }
  }
}

/** Whether the record belongs to the staff member's account (account-wide records through their owner column). */
async function inAccount(db: Executor, accountId: number, entity: EditableEntityName, row: Row, locationId: number | null): Promise<boolean> {
  if (locationId != null) {
    const [loc] = await db.select({ accountId: locations.accountId }).from(locations).where(eq(locations.id, locationId));
    return loc?.accountId === accountId;
  }
  switch (entity) {
    case "website":
    case "page":
    case "contentItem":
      return Number(row.accountId) === accountId;
    case "account":
      return Number(row.id) === accountId;
    case "menu":
    case "redirect": {
      const [w] = await db.select({ accountId: websites.accountId }).from(websites).where(eq(websites.id, Number(row.websiteId)));
      return w?.accountId === accountId;
    }
    case "menuItem": {
      const [m] = await db
        .select({ accountId: websites.accountId })
        .from(menus)
        .innerJoin(websites, eq(websites.id, menus.websiteId))
        .where(eq(menus.id, Number(row.menuId)));
      return m?.accountId === accountId;
    }
    default:
      return false;
  }
}

/** May this member edit this record? Account-wide records need a scope over every location (owners). */
function allowed(scope: LocationScope, locationId: number | null): boolean {
  if (locationId == null) return scope.all;
  return inScope(scope, locationId);
}

/** The account's open draft, created when missing (one per account: a unique index). */
async function openDraft(tx: Transaction, accountId: number, staffId: number | null): Promise<number> {
  const found = await tx
    .select({ id: changesets.id })
    .from(changesets)
    .where(and(eq(changesets.accountId, accountId), eq(changesets.status, "draft")))
    .limit(1);
  if (found[0]) return found[0].id;
  await tx.insert(changesets).values({ accountId, status: "draft", createdBy: staffId }).onConflictDoNothing();
  const [row] = await tx
    .select({ id: changesets.id })
    .from(changesets)
    .where(and(eq(changesets.accountId, accountId), eq(changesets.status, "draft")))
    .limit(1);
  return row!.id;
}

/** The open draft's id, or null (no edits waiting). */
export async function currentDraftId(db: Executor, accountId: number): Promise<number | null> {
  const [row] = await db
    .select({ id: changesets.id })
    .from(changesets)
    .where(and(eq(changesets.accountId, accountId), eq(changesets.status, "draft")))
    .limit(1);
  return row?.id ?? null;
}

/** Keeps `websites.has_new_changes` true exactly while the account's draft holds a change (spec flag, F18). */
export async function syncHasNewChanges(tx: Executor, accountId: number): Promise<void> {
  await tx
    .update(websites)
    .set({
      hasNewChanges: sql`exists (select 1 from ${changesetChanges} c join ${changesets} s on s.id = c.changeset_id where s.account_id = ${accountId} and s.status = 'draft')`,
    })
    .where(eq(websites.accountId, accountId));
}

function pick(row: Row, fields: readonly string[]): Row {
  return Object.fromEntries(fields.map((f) => [f, row[f] ?? null]));
}

/** Saves one edit into the draft (see the module comment). */
export async function saveDraftEdit(db: Database, staff: SignedInStaff, edit: DraftEdit): Promise<DraftResult> {
  const entity = EDITABLE_ENTITIES[edit.entity];
  if ((edit.op === "create" || edit.op === "delete" || edit.op === "dropCreate") && !entity.canCreate) return { ok: false, reason: "not-found" };
  if ("values" in edit) {
    const checked = validateFields(entity, edit.values);
    if (!checked.ok) return { ok: false, reason: "invalid", errors: checked.errors };
    edit = { ...edit, values: checked.values };
  }
  const actor = auditActor(staff);
  return db.transaction(async (tx): Promise<DraftResult> => {
    const changesetId = await openDraft(tx, staff.accountId, staff.staffId);
    // Serialise edits of one account's draft: the conflict check reads then writes.
    await tx.select({ id: changesets.id }).from(changesets).where(eq(changesets.id, changesetId)).for("update");

    if (edit.op === "create" || edit.op === "updateCreate" || edit.op === "dropCreate") {
      const createKey = edit.op === "create" ? randomUUID() : edit.createKey;
      const [existing] = await tx
        .select()
        .from(changesetChanges)
        .where(and(eq(changesetChanges.changesetId, changesetId), eq(changesetChanges.createKey, createKey)));
      if (edit.op !== "create" && !existing) return { ok: false, reason: "not-found" };
      const values = edit.op === "dropCreate" ? {} : { ...(existing?.values ?? {}), ...edit.values };
      const createProblems = edit.op === "dropCreate" ? {} : (entity.check?.(values) ?? {});
      if (Object.keys(createProblems).length) return { ok: false, reason: "invalid", errors: createProblems };
      const locationId = await locationOfRecord(tx, edit.entity, values);
      if (locationId === undefined && EDITABLE_ENTITIES[edit.entity].location.kind !== "account") return { ok: false, reason: "not-found" };
      if (edit.op !== "dropCreate" && !allowed(staff.scope, locationId ?? null)) return { ok: false, reason: "not-found" };
      if (existing && !allowed(staff.scope, existing.locationId)) return { ok: false, reason: "not-found" };
      if (edit.op === "dropCreate") {
        await tx.delete(changesetChanges).where(eq(changesetChanges.id, existing!.id));
      } else if (existing) {
        await tx.update(changesetChanges).set({ values, staffId: staff.staffId }).where(eq(changesetChanges.id, existing.id));
      } else {
        await tx.insert(changesetChanges).values({
          changesetId,
          entity: edit.entity,
          op: "create",
          createKey,
          locationId: locationId ?? null,
          values,
          staffId: staff.staffId,
        });
      }
      await recordAudit(tx, {
        ...actor,
        action: edit.op === "dropCreate" ? "content.draft_create_dropped" : "content.draft_create",
        entity: edit.entity,
        entityId: `new:${createKey}`,
        locationId: locationId ?? existing?.locationId ?? null,
        changes: Object.fromEntries(Object.keys(edit.op === "dropCreate" ? existing!.values : edit.values).map((f) => [
          f,
          { before: edit.op === "create" ? null : (existing!.values[f] ?? null), after: edit.op === "dropCreate" ? null : (values[f] ?? null) },
        ])),
        detail: { changesetId },
      });
      await syncHasNewChanges(tx, staff.accountId);
      return { ok: true, changesetId, createKey };
    }

    const live = await liveRecord(tx, edit.entity, edit.recordId);
    if (!live) return { ok: false, reason: "not-found" };
    const locationId = await locationOfRecord(tx, edit.entity, live);
    if (locationId === undefined) return { ok: false, reason: "not-found" };
    if (!(await inAccount(tx, staff.accountId, edit.entity, live, locationId)) || !allowed(staff.scope, locationId)) {
      return { ok: false, reason: "not-found" };
    }
    const fields = Object.keys(entity.fields);
    const livePicked = pick(live, fields);
    const [existing] = await tx
      .select()
      .from(changesetChanges)
      .where(
        and(eq(changesetChanges.changesetId, changesetId), eq(changesetChanges.entity, edit.entity), eq(changesetChanges.recordId, edit.recordId)),
      );
    const effective = existing?.op === "update" ? { ...livePicked, ...existing.values } : livePicked;

    if (edit.op === "delete") {
      if (!entity.canCreate) return { ok: false, reason: "not-found" };
      const values = {};
      if (existing) {
        await tx.update(changesetChanges).set({ op: "delete", values, base: livePicked, staffId: staff.staffId }).where(eq(changesetChanges.id, existing.id));
      } else {
        await tx.insert(changesetChanges).values({
          changesetId,
          entity: edit.entity,
          op: "delete",
          recordId: edit.recordId,
          locationId,
          values,
          base: livePicked,
          staffId: staff.staffId,
        });
      }
      await recordAudit(tx, {
        ...actor,
        action: "content.draft_delete",
        entity: edit.entity,
        entityId: edit.recordId,
        locationId,
        changes: Object.fromEntries(fields.map((f) => [f, { before: effective[f] ?? null, after: null }])),
        detail: { changesetId },
      });
      await syncHasNewChanges(tx, staff.accountId);
      return { ok: true, changesetId };
    }
    if (existing?.op === "delete") return { ok: false, reason: "not-found" };

    // A field saved by someone else since this form was loaded, to another value: refused, both shown.
    const conflicts: FieldConflict[] = [];
    for (const [field, value] of Object.entries(edit.values)) {
      if (!(field in edit.base)) continue;
      if (!sameValue(edit.base[field], effective[field]) && !sameValue(value, effective[field])) {
        conflicts.push({ field, label: entity.fields[field]!.label, yours: value, theirs: effective[field] ?? null });
      }
    }
    if (conflicts.length) return { ok: false, reason: "conflict", conflicts };
    // The rules between fields (registry `check`), on the record as it will be.
    const problems = entity.check?.({ ...effective, ...edit.values }) ?? {};
    if (Object.keys(problems).length) return { ok: false, reason: "invalid", errors: problems };

    const merged: Row = { ...(existing?.values ?? {}) };
    const changed: Record<string, { before: unknown; after: unknown }> = {};
    for (const [field, value] of Object.entries(edit.values)) {
      if (!sameValue(value, effective[field])) changed[field] = { before: effective[field] ?? null, after: value ?? null };
      if (sameValue(value, livePicked[field])) delete merged[field];
      else merged[field] = value;
    }
    if (Object.keys(changed).length === 0) return { ok: true, changesetId };
    const base = pick(live, Object.keys(merged));
    if (Object.keys(merged).length === 0) {
      if (existing) await tx.delete(changesetChanges).where(eq(changesetChanges.id, existing.id));
    } else if (existing) {
      await tx.update(changesetChanges).set({ values: merged, base, staffId: staff.staffId }).where(eq(changesetChanges.id, existing.id));
    } else {
      await tx.insert(changesetChanges).values({
        changesetId,
        entity: edit.entity,
        op: "update",
        recordId: edit.recordId,
        locationId,
        values: merged,
        base,
        staffId: staff.staffId,
      });
    }
    await recordAudit(tx, {
      ...actor,
      action: "content.draft_update",
      entity: edit.entity,
      entityId: edit.recordId,
      locationId,
      changes: changed,
      detail: { changesetId },
    });
    await syncHasNewChanges(tx, staff.accountId);
    return { ok: true, changesetId };
  });
}

export interface EffectiveRecord {
  /** The live id, or null for a record created in the draft. */
  id: number | null;
  createKey: string | null;
  /** The editable fields as they will be after publishing. */
  values: Row;
  /** The live values (null for a drafted create). */
  live: Row | null;
  /** Fields the draft changes. */
  pending: string[];
  /** The draft deletes it (listed only by `listEffectiveRecords({ includeDeleted: true })`). */
  deleted: boolean;
  locationId: number | null;
}

/** One record as it will look after publishing, or null when it does not exist or is outside the scope. */
export async function readEffectiveRecord(
  db: Executor,
  staff: Pick<SignedInStaff, "accountId" | "scope">,
  entity: EditableEntityName,
  recordId: number,
): Promise<EffectiveRecord | null> {
  const live = await liveRecord(db, entity, recordId);
  if (!live) return null;
  const locationId = await locationOfRecord(db, entity, live);
  if (locationId === undefined || !(await inAccount(db, staff.accountId, entity, live, locationId)) || !allowed(staff.scope, locationId)) return null;
  const fields = Object.keys(EDITABLE_ENTITIES[entity].fields);
  const draftId = await currentDraftId(db, staff.accountId);
  const [change] = draftId
    ? await db
        .select()
        .from(changesetChanges)
        .where(and(eq(changesetChanges.changesetId, draftId), eq(changesetChanges.entity, entity), eq(changesetChanges.recordId, recordId)))
    : [];
  const livePicked = pick(live, fields);
  return {
    id: recordId,
    createKey: null,
    values: change?.op === "update" ? { ...livePicked, ...change.values } : livePicked,
    live: livePicked,
    pending: change ? (change.op === "delete" ? fields : Object.keys(change.values)) : [],
    deleted: change?.op === "delete",
    locationId,
  };
}

/**
 * The records of an entity under a parent (`where` on a column such as locationId, hoursBlockId,
 * menuId), live ones with the draft over them and drafted creates, ordered by `index` when the entity
 * has one, then id. Records outside the scope are left out.
 */
export async function listEffectiveRecords(
  db: Executor,
  staff: Pick<SignedInStaff, "accountId" | "scope">,
  entity: EditableEntityName,
  where: { column: string; value: number | string } | null,
  options: { includeDeleted?: boolean } = {},
): Promise<EffectiveRecord[]> {
  const table = tableOf(entity);
  const fields = Object.keys(EDITABLE_ENTITIES[entity].fields);
  const conditions: SQL[] = [];
  if (where) conditions.push(eq(table[where.column]!, where.value));
  const rows = (await db
    .select()
    .from(table)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(...(table.index ? [asc(table.index)] : []), asc(table.id!))) as Row[];
  const draftId = await currentDraftId(db, staff.accountId);
  const changes = draftId
    ? await db
        .select()
        .from(changesetChanges)
        .where(and(eq(changesetChanges.changesetId, draftId), eq(changesetChanges.entity, entity)))
        .orderBy(asc(changesetChanges.id))
    : [];
  const byRecord = new Map(changes.filter((c) => c.recordId != null).map((c) => [c.recordId!, c]));
  const out: EffectiveRecord[] = [];
  for (const row of rows) {
    const locationId = await locationOfRecord(db, entity, row);
    if (locationId === undefined || !(await inAccount(db, staff.accountId, entity, row, locationId)) || !allowed(staff.scope, locationId)) continue;
    const change = byRecord.get(Number(row.id));
    if (change?.op === "delete" && !options.includeDeleted) continue;
    const livePicked = pick(row, fields);
    out.push({
      id: Number(row.id),
      createKey: null,
      values: change?.op === "update" ? { ...livePicked, ...change.values } : livePicked,
      live: livePicked,
      pending: change ? (change.op === "delete" ? fields : Object.keys(change.values)) : [],
      deleted: change?.op === "delete",
      locationId,
    });
  }
  for (const change of changes) {
    if (change.op !== "create") continue;
    if (where && !sameValue(change.values[where.column], where.value)) continue;
    if (!allowed(staff.scope, change.locationId)) continue;
    out.push({
      id: null,
      createKey: change.createKey,
      values: { ...Object.fromEntries(fields.map((f) => [f, null])), ...change.values },
      live: null,
      pending: Object.keys(change.values),
      deleted: false,
      locationId: change.locationId,
    });
  }
  if (EDITABLE_ENTITIES[entity].fields.index) out.sort((a, b) => Number(a.values.index ?? 0) - Number(b.values.index ?? 0));
  return out;
}

/** The changes of one changeset in the order they apply: creates (parents first), updates, deletes. */
export async function changesOf(db: Executor, changesetId: number) {
  const rows = await db.select().from(changesetChanges).where(eq(changesetChanges.changesetId, changesetId)).orderBy(asc(changesetChanges.id));
  const rank = { create: 0, update: 1, delete: 2 } as const;
  return rows.sort((a, b) => rank[a.op] - rank[b.op] || a.id - b.id);
}
export type ChangeRow = Awaited<ReturnType<typeof changesOf>>[number];

/**
 * Applies changes to the live tables inside the caller's transaction (publish, preview, restore).
 * A create may point at another create of the same changeset with `{ "$create": key }`; creates are
 * applied in an order that puts the record pointed at first. Throws on any constraint violation: the
 * caller's transaction then changes nothing.
 */
export async function applyChanges(tx: Transaction, changes: readonly ChangeRow[]): Promise<{ createdIds: Map<string, number> }> {
  const createdIds = new Map<string, number>();
  const resolve = (values: Row): Row | null => {
    const out: Row = {};
    for (const [k, v] of Object.entries(values)) {
      if (v && typeof v === "object" && !Array.isArray(v) && "$create" in (v as Row)) {
        const id = createdIds.get(String((v as Row).$create));
        if (id === undefined) return null;
        out[k] = id;
      } else out[k] = v;
    }
    return out;
  };
  let pending = changes.filter((c) => c.op === "create");
  while (pending.length) {
    const next: ChangeRow[] = [];
    for (const change of pending) {
      const whole = change.base.$row;
      if (whole && typeof whole === "object") {
        // A restore (app/services/content/publish.server.ts) puts a removed record back as it was,
        // its id included: the database's own JSON of the row, every column.
        const table = tableOf(change.entity);
        await tx.execute(sql`insert into ${table} select * from jsonb_populate_record(null::${table}, ${JSON.stringify(whole)}::jsonb)`);
        createdIds.set(change.createKey!, Number((whole as Row).id));
        continue;
      }
      const values = resolve(change.values);
      if (!values) {
        next.push(change);
        continue;
      }
      const table = tableOf(change.entity);
      const [row] = (await tx.insert(table).values(values).returning({ id: table.id! })) as { id: number }[];
      createdIds.set(change.createKey!, row!.id);
    }
    if (next.length === pending.length) throw new Error("A new record points at a record that is not in the changeset.");
    pending = next;
  }
  for (const change of changes) {
    if (change.op !== "update" || change.recordId == null) continue;
    const table = tableOf(change.entity);
    const values = resolve(change.values);
    if (!values) throw new Error("A change points at a record that is not in the changeset.");
    await tx.update(table).set(values).where(eq(table.id!, change.recordId));
  }
  const deletes = changes.filter((c) => c.op === "delete" && c.recordId != null);
  for (const change of deletes) {
    const table = tableOf(change.entity);
    await tx.delete(table).where(eq(table.id!, change.recordId!));
  }
  return { createdIds };
}

/**
 * Inside the caller's transaction: a location just saved unpublished (the console's "Add a location",
 * decision 620) is put in the account's draft as `isPublished: false → true`, audited like any draft
 * edit. Publishing the draft puts it on the website; preview shows it meanwhile; discarding the draft
 * leaves it off (the location's page in the console offers to draft it again).
 */
export async function draftLocationPublication(tx: Transaction, staff: SignedInStaff, locationId: number): Promise<number> {
  const changesetId = await openDraft(tx, staff.accountId, staff.staffId);
  await tx.select({ id: changesets.id }).from(changesets).where(eq(changesets.id, changesetId)).for("update");
  const [existing] = await tx
    .select({ id: changesetChanges.id, op: changesetChanges.op, values: changesetChanges.values })
    .from(changesetChanges)
    .where(and(eq(changesetChanges.changesetId, changesetId), eq(changesetChanges.entity, "location"), eq(changesetChanges.recordId, locationId)));
  if (existing?.op === "delete") return changesetId;
  if (existing) {
    await tx
      .update(changesetChanges)
      .set({ values: { ...existing.values, isPublished: true }, staffId: staff.staffId })
      .where(eq(changesetChanges.id, existing.id));
  } else {
    await tx.insert(changesetChanges).values({
      changesetId,
      entity: "location",
      op: "update",
      recordId: locationId,
      locationId,
      values: { isPublished: true },
      base: { isPublished: false },
      staffId: staff.staffId,
    });
  }
  await recordAudit(tx, {
    ...auditActor(staff),
    action: "content.draft_update",
    entity: "location",
    entityId: locationId,
    locationId,
    changes: { isPublished: { before: false, after: true } },
    detail: { changesetId },
  });
  await syncHasNewChanges(tx, staff.accountId);
  return changesetId;
}
