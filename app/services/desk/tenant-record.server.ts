/**
 * The desk's own work on a tenant's page (issue 39): the contact details changed through the
 * storage-software port (decision 641), notes kept as an add-only history (decision 640) and the
 * gate code shown on request (decision 640). Each is refused (null: a 404) for a tenant outside the
 * member's locations; each is audited.
 */
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { leases, locations, staffMembers, tenantNotes, units } from "~/db/schema";
import { formatDeskTime } from "~/domain/desk/time";
import type { DESK_CONTACT_FIELDS } from "~/domain/desk/tenants";
import { formatPhone } from "~/domain/shared/phone";
import { pickTenantContact } from "~/domain/shared/tenant-form";
import { storageFor } from "~/storage-software/index.server";
import type { ContactUpdate, LocationRef } from "~/storage-software/port";
import { recordAudit } from "../audit/events.server";
import { everywhere } from "../portal/profile.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";
import { tenantInScope } from "./tenants.server";

interface DeskContactInput {
  email: string;
  /** "(###) ###-####" (the form's parse); the port is given its ten digits. */
  cell_phone: string;
  addr_1: string;
  addr_2: string | null;
  city: string;
  region: string;
  postal_code: string;
}

type ContactChangeOutcome =
  | { ok: true; message: string; done: "contact" | "contactoffice" | "contactsame" }
  | { ok: false; message: string; fieldErrors: Record<string, string> };

/** Our tenant row's fields, as the audit names them (the operator's words: decision 644). */
const AUDITED = {
  email: "E-mail",
  cellPhone: "Phone",
  addr1: "Address",
  addr2: "Address line 2",
  city: "City",
  region: "State",
  postalCode: "ZIP code",
} as const;

/** Every location of the account: the tenant record is the account's, and each SiteLink location keeps its own copy. */
async function accountLocations(db: Database, accountId: number): Promise<LocationRef[]> {
  return db
    .select({ id: locations.id, name: locations.name, software: locations.software, status: locations.status })
    .from(locations)
    .where(eq(locations.accountId, accountId))
    .orderBy(asc(locations.id));
}

/**
 * Changes the tenant's e-mail, phone and address (decision 641), through each location's storage
 * software in turn, as the portal's profile does: a SiteLink location is told (TenantUpdate_v3, a
 * read-modify-write, journalled; an answer that never came is reconciled by reading the record back),
 * then ours is saved; if one location cannot take it, those done are put back and nothing is changed.
 * The audit row (each field before and after) is written once every location has it.
 */
export async function changeTenantContact(db: Database, staff: SignedInStaff, input: { tenantId: number; contact: DeskContactInput; now: Date }): Promise<ContactChangeOutcome | null> {
  const found = await tenantInScope(db, staff, input.tenantId);
  if (!found) return null;
  const { tenant } = found;
  const c = input.contact;
  const before = { email: tenant.email, cellPhone: tenant.cellPhone, addr1: tenant.addr1, addr2: tenant.addr2 ?? null, city: tenant.city, region: tenant.region, postalCode: tenant.postalCode };
  const after = { email: c.email.trim().toLowerCase(), cellPhone: c.cell_phone.replace(/\D/g, ""), addr1: c.addr_1, addr2: c.addr_2 ?? null, city: c.city, region: c.region, postalCode: c.postal_code };
  const same = (k: keyof typeof AUDITED) => (k === "cellPhone" ? before.cellPhone.replace(/\D/g, "") === after.cellPhone.replace(/\D/g, "") : (before[k] ?? "") === (after[k] ?? ""));
  const changed = (Object.keys(AUDITED) as Array<keyof typeof AUDITED>).filter((k) => !same(k));
  if (!changed.length) return { ok: true, done: "contactsame", message: "Nothing was different, so nothing was changed." };
  const tenantId = String(tenant.id);
  const ctx = { db, locations: await accountLocations(db, staff.accountId) };
  let byOffice = false;
  const contactChanged = changed.some((k) => k !== "cellPhone");
  if (contactChanged) {
    const was: ContactUpdate = pickTenantContact({ ...tenant, addr2: tenant.addr2 ?? null } as never);
    const next: ContactUpdate = { ...was, email: after.email, addr1: after.addr1, addr2: after.addr2, city: after.city, region: after.region, postalCode: after.postalCode };
    const saved = await everywhere(ctx, tenantId, (s) => s.updateTenantContact(tenantId, next), (s) => s.updateTenantContact(tenantId, was));
    if (!saved.ok) return refusal(saved);
    byOffice ||= Boolean(saved.byOffice);
  }
  if (changed.includes("cellPhone")) {
    const saved = await everywhere(ctx, tenantId, (s) => s.updateTenantPhone(tenantId, after.cellPhone), (s) => s.updateTenantPhone(tenantId, before.cellPhone));
    if (!saved.ok) return refusal(saved, "cell_phone");
    byOffice ||= Boolean(saved.byOffice);
  }
  const locationId = found.locations.length ? await firstLeaseLocation(db, tenant.id, found.locations.map((l) => l.id)) : null;
  await recordAudit(db, {
    ...auditActor(staff),
    action: "tenant.contact_changed",
    entity: "tenant",
    entityId: tenant.id,
    locationId,
    changes: Object.fromEntries(changed.map((k) => [k, { before: before[k], after: after[k] }])),
    detail: byOffice ? { leftForTheOffice: true } : undefined,
    at: input.now,
  });
  const what = changed.map((k) => AUDITED[k]).join(", ");
  return byOffice
    ? { ok: true, done: "contactoffice", message: `Saved here (${what}). One location's system was not sent the change: make it there too.` }
    : { ok: true, done: "contact", message: `The contact details are changed (${what}), here and in each location's system.` };
}

function refusal(saved: { fieldErrors: Record<string, string[]>; formErrors: string[]; unavailable?: true }, phoneField?: string): ContactChangeOutcome {
  const fieldErrors = Object.fromEntries(Object.entries(saved.fieldErrors).map(([k, v]) => [k === "cellPhone" && phoneField ? phoneField : k, v[0] ?? ""]));
  const message = saved.unavailable
    ? "The facility's system could not be reached or did not confirm the change, so nothing was changed. If it did take the change, it is found and settled when its record is read back; please try again in a moment."
    : (saved.formErrors[0] ?? Object.values(fieldErrors)[0] ?? "The change could not be saved.");
  return { ok: false, message, fieldErrors };
}

async function firstLeaseLocation(db: Database, tenantId: number, ids: number[]): Promise<number | null> {
  const [l] = await db.select({ id: leases.locationId }).from(leases).where(and(eq(leases.tenantId, tenantId), inArray(leases.locationId, ids))).orderBy(desc(leases.id)).limit(1);
  return l?.id ?? ids[0] ?? null;
}

/** The contact form's values as the tenant's record holds them (null: not within the member's locations). */
export async function tenantContactForm(db: Database, staff: SignedInStaff, tenantId: number): Promise<Record<(typeof DESK_CONTACT_FIELDS)[number], string> | null> {
  const found = await tenantInScope(db, staff, tenantId);
  if (!found) return null;
  const t = found.tenant;
  return { email: t.email, cell_phone: formatPhone(t.cellPhone), addr_1: t.addr1, addr_2: t.addr2 ?? "", city: t.city, region: t.region, postal_code: t.postalCode };
}

interface TenantNoteView {
  id: number;
  body: string;
  by: string;
  at: string;
  /** ISO, for <time dateTime>. */
  iso: string;
}

/** The tenant's notes, newest first (who, when, what). */
export async function listTenantNotes(db: Database, tenantId: number, timeZone: string): Promise<TenantNoteView[]> {
  const rows = await db
    .select({ id: tenantNotes.id, body: tenantNotes.body, at: tenantNotes.createdAt, name: staffMembers.name, email: staffMembers.email })
    .from(tenantNotes)
    .innerJoin(staffMembers, eq(staffMembers.id, tenantNotes.staffId))
    .where(eq(tenantNotes.tenantId, tenantId))
    .orderBy(desc(tenantNotes.createdAt), desc(tenantNotes.id));
  return rows.map((r) => ({ id: r.id, body: r.body, by: r.name || r.email, at: formatDeskTime(new Date(r.at), timeZone), iso: new Date(r.at).toISOString() }));
}

/** Adds a note to the tenant's history (never edited or deleted), with its audit row, in one transaction. */
export async function addTenantNote(db: Database, staff: SignedInStaff, input: { tenantId: number; note: string; now: Date }): Promise<{ ok: true; message: string } | null> {
  const found = await tenantInScope(db, staff, input.tenantId);
  if (!found) return null;
  const locationId = found.locations.length ? await firstLeaseLocation(db, found.tenant.id, found.locations.map((l) => l.id)) : null;
  await db.transaction(async (tx) => {
    const [note] = await tx.insert(tenantNotes).values({ accountId: staff.accountId, tenantId: found.tenant.id, staffId: staff.staffId, body: input.note, createdAt: input.now }).returning({ id: tenantNotes.id });
    await recordAudit(tx, { ...auditActor(staff), action: "tenant.note_added", entity: "tenant", entityId: found.tenant.id, locationId, detail: { noteId: note!.id, characters: input.note.length }, at: input.now });
  });
  return { ok: true, message: "The note is added." };
}

/**
 * "Show gate code" (decision 640): one active lease's code, read through the location's storage
 * software (SiteLink's own, where it keeps it), shown in this answer only; the audit row says who
 * asked and for which lease, never the code. Null: not within the member's locations (404).
 */
export async function showGateCode(
  db: Database,
  staff: SignedInStaff,
  input: { tenantId: number; leaseId: number; now: Date },
): Promise<{ ok: true; code: string; unitName: string } | { ok: false; message: string } | null> {
  const found = await tenantInScope(db, staff, input.tenantId);
  if (!found) return null;
  const [row] = await db
    .select({ lease: leases, unitName: units.name, location: { id: locations.id, name: locations.name, software: locations.software, status: locations.status } })
    .from(leases)
    .innerJoin(units, eq(units.id, leases.unitId))
    .innerJoin(locations, eq(locations.id, leases.locationId))
    .where(and(eq(leases.id, input.leaseId), eq(leases.tenantId, found.tenant.id), inArray(leases.locationId, found.locations.map((l) => l.id).concat(-1))));
  if (!row) return null;
  if (row.lease.status !== "active") return { ok: false, message: "This lease has ended: its gate code no longer opens the gate." };
  let code: string;
  try {
    const live = await storageFor(db, row.location).getTenantLease(String(found.tenant.id), String(row.lease.id));
    code = live?.gateCode || row.lease.gateCode;
  } catch {
    return { ok: false, message: "The facility's system could not be reached just now, so the gate code cannot be shown. Please try again in a moment." };
  }
  if (!code) return { ok: false, message: "No gate code is set for this lease in the facility's system." };
  await recordAudit(db, { ...auditActor(staff), action: "lease.gate_code_shown", entity: "lease", entityId: row.lease.id, locationId: row.location.id, detail: { tenantId: found.tenant.id, unit: row.unitName }, at: input.now });
  return { ok: true, code, unitName: row.unitName };
}
