/**
 * The console's content editors (issue 24, decisions 301–304): every form under /admin/content saves
 * through here into the account's draft (`saveDraftEdit`), never into the live tables.
 *
 * A page lists its edit targets (an entity, the fields its forms edit, what the server sets on a new
 * record, the parents a new record may hang under, how siblings are ordered, extra checks); a form
 * posts `target`, `intent` (save | create | delete | up | down), the record (`recordId` or, for a
 * record created in the draft, `createKey`), `base` (JSON: each field's value as the form showed it,
 * for the conflict check) and its fields. The fields are parsed with Conform through the registry's
 * schemas (app/domain/content/form.ts); errors come back beside the fields with the typed values; a
 * stale save comes back with both values and the form's base moved to theirs, so saving again keeps
 * yours (decision 302).
 */
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { and, asc, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { hoursBlocks, locations, menus, unitTypes, websites } from "~/db/schema";
import { conflictMessage, controlOf, formErrorMap, formSchemaFor, jsonGroupValues, MENU_FIELDS, toFormValue, WEBSITE_JSON_GROUPS, withJsonGroup, type WebsiteJsonGroupName } from "~/domain/content/form";
import { EDITABLE_ENTITIES, sameValue, type EditableEntityName, type FieldErrors } from "~/domain/content/editable";
import { inScope } from "~/domain/staff/roles";
import { listEffectiveRecords, readEffectiveRecord, saveDraftEdit, type DraftEdit, type EffectiveRecord } from "./changesets.server";
import { hitRateLimit } from "../web/rate-limit.server";
import type { SignedInStaff } from "../staff/context.server";

type Row = Record<string, unknown>;

export interface EditTarget {
  entity: EditableEntityName;
  /** The fields this page's forms edit (never image fields: the photos pages set those). */
  fields: readonly string[];
  /** Values the server sets on a new record (its location, account or website): never read from the form. */
  createValues?: Row;
  /** Columns a new record's form posts to choose its parent, with the ids this page allows. */
  parents?: Record<string, readonly number[]>;
  /** Records are ordered by `index` among siblings sharing these columns' values (up and down buttons). */
  siblings?: readonly string[];
  /** Checks that need the other records (a redirect loop, a menu nested too deep): field errors. */
  verify?: (values: Row, record: { id: number | null; createKey: string | null }) => Promise<FieldErrors>;
  /** Adjusts parsed values before they are checked and saved (a redirect's path normalised). */
  normalise?: (values: Row) => Row;
}

/** One record as a form shows it. */
export interface FormRecord {
  /** A stable key for the form's id: the record id, or `new-<createKey>`. */
  key: string;
  id: number | null;
  createKey: string | null;
  /** Each field's text for its control. */
  values: Record<string, string | string[]>;
  /** JSON of each field's value as shown: posted back for the conflict check. */
  base: string;
  /** Fields the draft changes (shown as "Changed, not published"). */
  pending: string[];
  /** The record's values as they will be (for labels and lists). */
  raw: Row;
}

export function formRecord(entity: EditableEntityName, record: EffectiveRecord, fields: readonly string[]): FormRecord {
  const values: Record<string, string | string[]> = {};
  const base: Row = {};
  for (const f of fields) {
    values[f] = toFormValue(controlOf(entity, f), record.values[f]);
    base[f] = record.values[f] ?? null;
  }
  return {
    key: record.id != null ? String(record.id) : `new-${record.createKey}`,
    id: record.id,
    createKey: record.createKey,
    values,
    base: JSON.stringify(base),
    pending: record.pending.filter((f) => fields.includes(f)),
    raw: record.values,
  };
}

/** A form's defaults for a new record. */
export function blankFormValues(entity: EditableEntityName, fields: readonly string[], defaults: Row = {}): Record<string, string | string[]> {
  return Object.fromEntries(fields.map((f) => [f, toFormValue(controlOf(entity, f), defaults[f] ?? null)]));
}

export type ContentDone = "saved" | "added" | "removed" | "moved" | "location-added";

export type ContentFormOutcome =
  | { ok: true; done: ContentDone }
  | {
      ok: false;
      status: 400 | 409 | 429;
      formId: string;
      /** Conform's reply: the errors beside the fields and the typed values. */
      result: SubmissionResult<string[]>;
      /** After a conflict: the base the form now carries (theirs), so saving again keeps yours. */
      base: string | null;
      conflict: boolean;
    }
  | { ok: false; notFound: true };

const CONTENT_EDITS_PER_WINDOW = 300;
const CONTENT_EDITS_WINDOW_MS = 10 * 60 * 1000;

const NOT_FOUND = { ok: false as const, notFound: true as const };

function positiveInt(v: FormDataEntryValue | null): number | null {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : null;
}

function parseBase(raw: FormDataEntryValue | null, fields: readonly string[]): Row {
  if (typeof raw !== "string" || !raw) return {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed as Row).filter(([k]) => fields.includes(k)));
  } catch {
    return {};
  }
}

const arrays = (errors: FieldErrors): Record<string, string[]> => Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, [v]]));

/** Handles one posted content form (see the module comment). */
export async function submitContentForm(
  db: Database,
  staff: SignedInStaff,
  targets: Record<string, EditTarget>,
  formData: FormData,
  now: Date,
): Promise<ContentFormOutcome> {
  const formId = String(formData.get("formId") ?? "").slice(0, 100);
  const target = targets[String(formData.get("target") ?? "")];
  if (!target) return NOT_FOUND;
  const intent = String(formData.get("intent") ?? "save");
  const schema = formSchemaFor(target.entity, target.fields);
  const parse = () => parseWithZod(formData, { schema, disableAutoCoercion: true, error: formErrorMap });

  const limit = await hitRateLimit(db, { key: `content-edit:staff:${staff.staffId}`, limit: CONTENT_EDITS_PER_WINDOW, windowMs: CONTENT_EDITS_WINDOW_MS, now });
  if (!limit.allowed) {
    return { ok: false, status: 429, formId, conflict: false, base: null, result: parse().reply({ formErrors: [`Too many changes in a short time. Please wait ${limit.retryAfterMinutes} minutes and try again.`] }) };
  }

  const recordId = positiveInt(formData.get("recordId"));
  const createKey = String(formData.get("createKey") ?? "") || null;
  const entity = EDITABLE_ENTITIES[target.entity];

  if (intent === "delete") {
    if (!entity.canCreate) return NOT_FOUND;
    const edit: DraftEdit | null = createKey ? { op: "dropCreate", entity: target.entity, createKey } : recordId ? { op: "delete", entity: target.entity, recordId } : null;
    if (!edit) return NOT_FOUND;
    const result = await saveDraftEdit(db, staff, edit);
    return result.ok ? { ok: true, done: "removed" } : NOT_FOUND;
  }

  if (intent === "up" || intent === "down") {
    if (!target.siblings || !entity.fields.index) return NOT_FOUND;
    return reorder(db, staff, target, { recordId, createKey }, intent);
  }

  if (intent !== "save" && intent !== "create") return NOT_FOUND;
  const submission = parse();
  if (submission.status !== "success") return { ok: false, status: 400, formId, conflict: false, base: null, result: submission.reply() };
  let values: Row = { ...(submission.value as Row) };
  if (target.normalise) values = target.normalise(values);

  let edit: DraftEdit;
  let base: Row = {};
  if (intent === "create") {
    if (!entity.canCreate) return NOT_FOUND;
    for (const [column, allowed] of Object.entries(target.parents ?? {})) {
      const id = positiveInt(formData.get(column));
      if (id === null || !allowed.includes(id)) return NOT_FOUND;
      values[column] = id;
    }
    values = { ...values, ...(target.createValues ?? {}) };
    edit = { op: "create", entity: target.entity, values };
  } else if (createKey) {
    edit = { op: "updateCreate", entity: target.entity, createKey, values };
  } else if (recordId) {
    base = parseBase(formData.get("base"), target.fields);
    edit = { op: "update", entity: target.entity, recordId, values, base };
  } else return NOT_FOUND;

  const problems = target.verify ? await target.verify(values, { id: intent === "create" ? null : recordId, createKey: intent === "create" ? null : createKey }) : {};
  if (Object.keys(problems).length) return { ok: false, status: 400, formId, conflict: false, base: null, result: submission.reply({ fieldErrors: arrays(problems) }) };

  const result = await saveDraftEdit(db, staff, edit);
  if (result.ok) return { ok: true, done: intent === "create" ? "added" : "saved" };
  if (result.reason === "not-found") return NOT_FOUND;
  if (result.reason === "invalid") return { ok: false, status: 400, formId, conflict: false, base: null, result: submission.reply({ fieldErrors: arrays(result.errors) }) };
  const fieldErrors: Record<string, string[]> = {};
  const newBase: Row = { ...base };
  for (const c of result.conflicts) {
    fieldErrors[c.field] = [conflictMessage(c.label, c.theirs, c.yours, controlOf(target.entity, c.field))];
    newBase[c.field] = c.theirs;
  }
  return {
    ok: false,
    status: 409,
    formId,
    conflict: true,
    base: JSON.stringify(newBase),
    result: submission.reply({ fieldErrors, formErrors: ["Not saved: someone else changed this since you opened the page. Choose which values to keep."] }),
  };
}

async function reorder(
  db: Database,
  staff: SignedInStaff,
  target: EditTarget,
  at: { recordId: number | null; createKey: string | null },
  direction: "up" | "down",
): Promise<ContentFormOutcome> {
  const columns = target.siblings!;
  // The record itself first (in scope?), then its siblings.
  let self: EffectiveRecord | null = null;
  if (at.recordId) self = await readEffectiveRecord(db, staff, target.entity, at.recordId);
  else if (at.createKey) {
    const all = await listEffectiveRecords(db, staff, target.entity, null);
    self = all.find((r) => r.createKey === at.createKey) ?? null;
  }
  if (!self || self.deleted) return NOT_FOUND;
  const [first, ...rest] = columns;
  const list = (await listEffectiveRecords(db, staff, target.entity, { column: first!, value: self.values[first!] as number | string })).filter((r) =>
    rest.every((c) => sameValue(r.values[c], self.values[c])),
  );
  const i = list.findIndex((r) => (self.id != null ? r.id === self.id : r.createKey === self.createKey));
  const j = direction === "up" ? i - 1 : i + 1;
  if (i < 0 || j < 0 || j >= list.length) return { ok: true, done: "moved" };
  const order = [...list];
  [order[i], order[j]] = [order[j]!, order[i]!];
  // Positions 10, 20, 30 …: only records whose position changes are saved.
  for (const [k, r] of order.entries()) {
    const index = (k + 1) * 10;
    if (Number(r.values.index) === index) continue;
    const edit: DraftEdit = r.id != null ? { op: "update", entity: target.entity, recordId: r.id, values: { index }, base: {} } : { op: "updateCreate", entity: target.entity, createKey: r.createKey!, values: { index } };
    const saved = await saveDraftEdit(db, staff, edit);
    if (!saved.ok) return NOT_FOUND;
  }
  return { ok: true, done: "moved" };
}

// ---- what the pages list ------------------------------------------------------------------------

/** The member's locations (all of the account's for an owner). */
export async function contentLocations(db: Database, staff: SignedInStaff): Promise<Array<{ id: number; name: string; status: string; isPublished: boolean }>> {
  const rows = await db.select({ id: locations.id, name: locations.name, status: locations.status, isPublished: locations.isPublished }).from(locations).where(eq(locations.accountId, staff.accountId)).orderBy(asc(locations.name));
  return rows.filter((r) => inScope(staff.scope, r.id));
}

/** A location's hours blocks (gate, office …) with their kind. */
export async function locationHoursBlocks(db: Database, locationId: number): Promise<Array<{ id: number; type: string }>> {
  return db.select({ id: hoursBlocks.id, type: hoursBlocks.type }).from(hoursBlocks).where(eq(hoursBlocks.locationId, locationId)).orderBy(asc(hoursBlocks.id));
}

/** A location's unit types as the console lists them (the names and sizes the software gives). */
export async function locationUnitTypes(db: Database, locationId: number) {
  return db
    .select({ id: unitTypes.id, name: unitTypes.name, width: unitTypes.width, length: unitTypes.length, category: unitTypes.category })
    .from(unitTypes)
    .where(eq(unitTypes.locationId, locationId))
    .orderBy(asc(unitTypes.width), asc(unitTypes.length), asc(unitTypes.id));
}

/** A unit type's name, size and location (for its page's heading), or null. */
export async function unitTypeHeading(db: Database, unitTypeId: number) {
  const [row] = await db
    .select({ id: unitTypes.id, name: unitTypes.name, width: unitTypes.width, length: unitTypes.length, locationId: unitTypes.locationId, locationName: locations.name })
    .from(unitTypes)
    .innerJoin(locations, eq(locations.id, unitTypes.locationId))
    .where(eq(unitTypes.id, unitTypeId));
  return row ?? null;
}

/** The account's website id (account-wide records hang under it). */
export async function accountWebsiteId(db: Database, accountId: number): Promise<number | null> {
  const [row] = await db.select({ id: websites.id }).from(websites).where(eq(websites.accountId, accountId)).orderBy(asc(websites.id)).limit(1);
  return row?.id ?? null;
}

/** The website's menus (header, footer …) with their names. */
export async function websiteMenus(db: Database, websiteId: number) {
  return db.select({ id: menus.id, name: menus.name }).from(menus).where(and(eq(menus.websiteId, websiteId))).orderBy(asc(menus.id));
}

/**
 * A group of values inside one of the website's JSON fields (the announcement bar, decision 304; the
 * navigation bar, the footer and the global styles, decision 362): the group's values are saved into
 * the draft's JSON, the rest of it as it is now (someone's other change to it is kept). A value
 * changed by someone else since the form was loaded is a conflict, with both values, like any field.
 * `menus`: the website's menu names, the only values a menu field may take.
 */
export async function saveJsonGroup(
  db: Database,
  staff: SignedInStaff,
  input: { websiteId: number; group: WebsiteJsonGroupName; menus: readonly string[] },
  formData: FormData,
  now: Date,
): Promise<ContentFormOutcome> {
  const { websiteId, group } = input;
  const def = WEBSITE_JSON_GROUPS[group];
  const labels = def.fields as Record<string, { label: string }>;
  const formId = String(formData.get("formId") ?? "").slice(0, 100);
  const fields = Object.keys(def.fields);
  const submission = parseWithZod(formData, { schema: formSchemaFor(group, fields), disableAutoCoercion: true, error: formErrorMap });
  const limit = await hitRateLimit(db, { key: `content-edit:staff:${staff.staffId}`, limit: CONTENT_EDITS_PER_WINDOW, windowMs: CONTENT_EDITS_WINDOW_MS, now });
  if (!limit.allowed) {
    return { ok: false, status: 429, formId, conflict: false, base: null, result: submission.reply({ formErrors: [`Too many changes in a short time. Please wait ${limit.retryAfterMinutes} minutes and try again.`] }) };
  }
  if (submission.status !== "success") return { ok: false, status: 400, formId, conflict: false, base: null, result: submission.reply() };
  const values = submission.value as Record<string, unknown>;
  const unknownMenus = Object.fromEntries(fields.filter((f) => MENU_FIELDS.includes(f) && !input.menus.includes(String(values[f]))).map((f) => [f, ["Choose one of the site's menus."]]));
  if (Object.keys(unknownMenus).length) return { ok: false, status: 400, formId, conflict: false, base: null, result: submission.reply({ fieldErrors: unknownMenus }) };
  const website = await readEffectiveRecord(db, staff, "website", websiteId);
  if (!website) return NOT_FOUND;
  const json = website.values[def.column];
  const current = jsonGroupValues(group, json);
  const base = parseBase(formData.get("base"), fields);
  const fieldErrors: Record<string, string[]> = {};
  const newBase: Row = { ...base };
  for (const f of fields) {
    if (f in base && !sameValue(base[f], current[f]) && !sameValue(values[f], current[f])) {
      fieldErrors[f] = [conflictMessage(labels[f]!.label, current[f], values[f])];
      newBase[f] = current[f];
    }
  }
  if (Object.keys(fieldErrors).length) {
    return { ok: false, status: 409, formId, conflict: true, base: JSON.stringify(newBase), result: submission.reply({ fieldErrors, formErrors: ["Not saved: someone else changed this since you opened the page. Choose which values to keep."] }) };
  }
  const result = await saveDraftEdit(db, staff, {
    op: "update",
    entity: "website",
    recordId: websiteId,
    values: { [def.column]: withJsonGroup(group, json, values) },
    base: { [def.column]: json },
  });
  if (result.ok) return { ok: true, done: "saved" };
  if (result.reason === "not-found") return NOT_FOUND;
  const message = result.reason === "conflict" ? `Someone else saved the ${def.legend.toLowerCase()} at the same moment. Reload the page and try again.` : Object.values(result.errors).join(" ");
  return { ok: false, status: result.reason === "conflict" ? 409 : 400, formId, conflict: false, base: null, result: submission.reply({ formErrors: [message] }) };
}
