/**
 * What the console's "Changes" page (/admin/changes, issue 24) shows: the draft's changes record by
 * record (each field before → after, who changed it), scheduled and failed changesets, the published
 * versions, and the time zones a publish can be scheduled in. A manager sees the changes at their
 * locations; the others are only counted (their records are not named).
 */
import { GONE_OR_OUT_OF_SCOPE } from "../web/responses.server";
import { and, eq, inArray } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Database } from "~/db/client.server";
import { auditEvents, changesets, locations, staffMembers } from "~/db/schema";
import { EDITABLE_TABLES } from "~/db/editable-tables.server";
import { EDITABLE_ENTITIES, type EditableEntityName } from "~/domain/content/editable";
import { formatDeskTime } from "~/domain/desk/time";
import { changesOf, currentDraftId, saveDraftEdit, type ChangeRow } from "./changesets.server";
import { changesInScope, countChanges, listVersions, mayPublish, scheduleTimeZones, type ChangeCounts, type RestorePlanChange } from "./publish.server";
import type { SignedInStaff } from "../staff/context.server";

type Row = Record<string, unknown>;

interface FieldLine {
  field: string;
  label: string;
  before: string;
  after: string;
}

interface ChangeLine {
  id: number;
  op: "update" | "create" | "delete";
  entityLabel: string;
  recordName: string;
  location: string;
  fields: FieldLine[];
  by: string;
}

const NAME_FIELDS = ["name", "websiteName", "title", "heading", "label", "fromPath", "hostname", "street1", "displayText", "days", "date", "alt"];

function recordName(entity: EditableEntityName, row: Row | null, id: number | null): string {
  for (const f of NAME_FIELDS) {
    const v = row?.[f];
    // A unit type by its size and name, as the operator knows it: "10' x 10' Climate Controlled" (decision 644).
    if (typeof v === "string" && v.trim()) return (typeof row?.width === "number" && typeof row?.length === "number" ? `${row.width}' x ${row.length}' ${v.trim()}` : v.trim()).slice(0, 80);
  }
  return id != null ? `${EDITABLE_ENTITIES[entity].label} #${id}` : `New ${EDITABLE_ENTITIES[entity].label.toLowerCase()}`;
}

/** A field's value as staff read it, short. */
function showValue(v: unknown): string {
  if (v === null || v === undefined || v === "") return "(empty)";
  if (typeof v === "boolean") return v ? "Yes" : "No";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

async function liveRows(db: Database, entity: EditableEntityName, ids: number[]): Promise<Map<number, Row>> {
  if (!ids.length) return new Map();
  const table = EDITABLE_TABLES[entity] as unknown as PgTable & Record<string, PgColumn>;
  const rows = (await db.select().from(table).where(inArray(table.id!, ids))) as Row[];
  return new Map(rows.map((r) => [Number(r.id), r]));
}

/** The lines of a list of changes (draft rows or a restore plan). */
async function describeChanges(
  db: Database,
  changes: ReadonlyArray<Pick<ChangeRow, "entity" | "op" | "recordId" | "locationId" | "values" | "base"> & { id?: number; staffId?: number | null }>,
): Promise<ChangeLine[]> {
  const byEntity = new Map<EditableEntityName, number[]>();
  for (const c of changes) if (c.recordId != null && c.op !== "create") byEntity.set(c.entity, [...(byEntity.get(c.entity) ?? []), c.recordId]);
  const live = new Map<EditableEntityName, Map<number, Row>>();
  for (const [entity, ids] of byEntity) live.set(entity, await liveRows(db, entity, ids));
  const locIds = [...new Set(changes.map((c) => c.locationId).filter((x): x is number => x != null))];
  const locs = locIds.length ? await db.select({ id: locations.id, name: locations.name }).from(locations).where(inArray(locations.id, locIds)) : [];
  const staffIds = [...new Set(changes.map((c) => c.staffId).filter((x): x is number => x != null))];
  const staff = staffIds.length ? await db.select({ id: staffMembers.id, name: staffMembers.name, email: staffMembers.email }).from(staffMembers).where(inArray(staffMembers.id, staffIds)) : [];
  return changes.map((c, i) => {
    const def = EDITABLE_ENTITIES[c.entity];
    const row = c.recordId != null ? (live.get(c.entity)?.get(c.recordId) ?? null) : null;
    const label = (f: string) => def.fields[f]?.label ?? f;
    const fields: FieldLine[] =
      c.op === "update"
        ? Object.keys(c.values).map((f) => ({ field: f, label: label(f), before: showValue(row ? row[f] : c.base[f]), after: showValue(c.values[f]) }))
        : c.op === "create"
          ? Object.keys(c.values).map((f) => ({ field: f, label: label(f), before: "(new)", after: showValue(c.values[f]) }))
          : Object.keys(c.base).map((f) => ({ field: f, label: label(f), before: showValue(c.base[f]), after: "(removed)" }));
    const who = staff.find((s) => s.id === c.staffId);
    return {
      id: c.id ?? i,
      op: c.op,
      entityLabel: def.label,
      recordName: recordName(c.entity, c.op === "create" ? c.values : (row ?? c.base), c.recordId),
      location: c.locationId == null ? "Whole website" : (locs.find((l) => l.id === c.locationId)?.name ?? `#${c.locationId}`),
      fields,
      by: who ? who.name || who.email : "",
    };
  });
}

/** A moment in the console's one way (decision 644): "Mon 3 Mar 2031, 12:00 AM EST", in the zone given (a schedule's own, else the account's). */
function localMoment(at: Date, timeZone: string): string {
  return formatDeskTime(at, timeZone);
}

interface PendingChangeset {
  id: number;
  status: "scheduled" | "failed";
  when: string | null;
  failure: string | null;
  counts: ChangeCounts;
  mayAct: boolean;
}

export async function changesPage(db: Database, staff: SignedInStaff) {
  const draftId = await currentDraftId(db, staff.accountId);
  const [draftRow] = draftId ? await db.select({ failure: changesets.failure }).from(changesets).where(eq(changesets.id, draftId)) : [];
  const draftChanges = draftId ? await changesOf(db, draftId) : [];
  const visible = changesInScope(staff, draftChanges);
  const others = await db
    .select()
    .from(changesets)
    .where(and(eq(changesets.accountId, staff.accountId), inArray(changesets.status, ["scheduled", "failed"])));
  const zones = await scheduleTimeZones(db, staff.accountId);
  const accountZone = zones[0]?.timeZone ?? "America/New_York";
  const pending: PendingChangeset[] = [];
  for (const o of others.sort((a, b) => (a.scheduledFor?.getTime() ?? 0) - (b.scheduledFor?.getTime() ?? 0))) {
    const changes = await changesOf(db, o.id);
    pending.push({
      id: o.id,
      status: o.status as "scheduled" | "failed",
      when: o.scheduledFor ? localMoment(o.scheduledFor, o.scheduledTimeZone ?? accountZone) : null,
      failure: o.failure,
      counts: countChanges(changes),
      mayAct: mayPublish(staff, changes),
    });
  }
  const versions = await listVersions(db, staff.accountId);
  return {
    draft: draftId
      ? {
          id: draftId,
          failure: draftRow?.failure ?? null,
          lines: await describeChanges(db, visible),
          hidden: draftChanges.length - visible.length,
          total: draftChanges.length,
          /** Decision 630: the member publishes (schedules, discards) the changes they see, whoever else's are in the draft. */
          mayPublish: visible.length > 0,
          /** Everything in the draft is the member's (an owner's always): the buttons say "the draft", else "your changes". */
          whole: visible.length === draftChanges.length,
        }
      : null,
    pending,
    versions: versions.map((v) => ({ ...v, publishedAt: v.publishedAt ? localMoment(v.publishedAt, accountZone) : "" })),
    timeZones: zones,
    mayRestore: staff.scope.all,
  };
}

export async function restorePage(db: Database, plan: RestorePlanChange[]) {
  return describeChanges(db, plan.map((p) => ({ ...p, staffId: null })));
}

type RevertResult = { ok: true } | { ok: false; status: 400 | 404; message: string };

/**
 * The fields of an audit entry that can be offered as "Revert this field" (an edit of a live record's
 * fields, `content.draft_update`), with their labels.
 */
export function revertableFields(action: string, entity: string | null, entityId: string | null, fields: string[]): Array<{ field: string; label: string }> {
  if (action !== "content.draft_update" || !entity || !(entity in EDITABLE_ENTITIES) || !/^\d+$/.test(entityId ?? "")) return [];
  const def = EDITABLE_ENTITIES[entity as EditableEntityName];
  return fields.filter((f) => f in def.fields).map((f) => ({ field: f, label: def.fields[f]!.label }));
}

/**
 * "Revert this field" from the audit trail (issue 24): a new draft change setting the field back to
 * the audit entry's `before` value, through `saveDraftEdit` (its scope, validation and conflict check:
 * if the field changed again since, the entry's `after` no longer matches and the edit is refused).
 */
export async function revertAuditedField(db: Database, staff: SignedInStaff, input: { eventId: number; field: string }): Promise<RevertResult> {
  const [event] = await db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.id, input.eventId), eq(auditEvents.accountId, staff.accountId)));
  const change = event?.changes?.[input.field];
  if (!event || !change || !revertableFields(event.action, event.entity, event.entityId, [input.field]).length) return { ok: false, status: GONE_OR_OUT_OF_SCOPE, message: "That change cannot be reverted from here." };
  const result = await saveDraftEdit(db, staff, {
    op: "update",
    entity: event.entity as EditableEntityName,
    recordId: Number(event.entityId),
    values: { [input.field]: change.before },
    base: { [input.field]: change.after },
  });
  if (result.ok) return { ok: true };
  if (result.reason === "not-found") return { ok: false, status: GONE_OR_OUT_OF_SCOPE, message: "That record no longer exists, or is not yours to edit." };
  if (result.reason === "conflict") {
    const c = result.conflicts[0]!;
    return { ok: false, status: 400, message: `It changed again since: it is now ${showValue(c.theirs)}. Edit it in the website editor instead.` };
  }
  return { ok: false, status: 400, message: Object.values(result.errors)[0] ?? "That value is no longer allowed." };
}
