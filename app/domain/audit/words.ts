/**
 * The audit trail in the operator's words (issue 39, decision 644): an action as a sentence's verb
 * ("Sent a pay link", not `pay_link.sent`), a record by its name ("Dana Carter", "Unit A12 at
 * Lumberton", not `tenant 7`), and each change as a sentence ("Locations changed from every
 * location to Lumberton", not `locations: null → [1]`). Pure: the caller passes the names it looked up.
 */

/** Known actions, as the trail shows them. Anything else is read from its code ("pay_link.sent" → "Pay link sent"). */
const ACTIONS: Record<string, string> = {
  "staff.sign_in": "Signed in",
  "staff.sign_in_failed": "Sign-in failed",
  "staff.sign_out": "Signed out",
  "staff.reauthenticated": "Confirmed it's them",
  "staff.reauthentication_failed": "Could not confirm it's them",
  "staff.invited": "Invited a staff member",
  "staff.access_changed": "Changed a staff member's access",
  "staff.disabled": "Disabled a staff member",
  "staff.enabled": "Enabled a staff member",
  "staff.sessions_ended": "Ended a staff member's sessions",
  "staff.sign_in_reset": "Reset a staff member's sign-in",
  "staff.lockout_lifted": "Lifted a staff member's lockout",
  "tenant.lockout_lifted": "Lifted a tenant's portal lockout",
  "tenant.contact_changed": "Changed a tenant's contact details",
  "tenant.note_added": "Added a note on a tenant",
  "tenants.exported": "Exported tenants",
  "lease.email_resent": "Resent the lease e-mail",
  "lease.gate_code_shown": "Was shown a gate code",
  "lease.cancelled": "Cancelled a rental",
  "lease.moved_out": "Recorded a move-out",
  "lead.contacted": "Marked a lead contacted",
  "pay_link.sent": "Sent a pay link",
  "pay_link.copied": "Copied a pay link",
  "pay_link.texted": "Texted a pay link",
  "payment.refunded": "Refunded a payment",
  "payment.refunded_in_part": "Refunded part of a payment",
  "payment.receipt_resent": "Resent a receipt",
  "payment_difference.resolved": "Resolved a payment difference",
  "sitelink_write.resolved": "Marked a SiteLink write resolved",
  "sitelink_write.retried": "Checked a SiteLink write again",
  "sitelink_write.retry_started": "Started checking a SiteLink write again",
  "staff.invite_accepted": "Accepted an invitation",
  "staff.passkey_added": "Added a passkey",
  "staff.passkey_add_failed": "Could not add a passkey",
  "staff.passkey_removed": "Removed a passkey",
  "staff.password_reset": "Reset their password",
  "staff.password_reset_refused": "Password reset refused",
  "staff.password_reset_requested": "Asked to reset their password",
  "lead.texted": "Texted a lead",
  "media.upload": "Uploaded an image",
  "location.created": "Added a location",
  "sitelink.go_live_checked": "Ran the SiteLink go-live check",
  "sitelink.settings_changed": "Changed the SiteLink settings",
  "content.discarded": "Discarded draft changes",
  "content.draft_delete": "Deleted a record in the draft",
  "content.draft_update": "Edited the website (draft)",
  "content.preview_off": "Turned preview off",
  "content.preview_on": "Turned preview on",
  "content.publish_failed": "Publishing failed",
  "content.published": "Published changes",
  "content.scheduled": "Scheduled changes",
  "content.unscheduled": "Unscheduled changes",
};

/** "pay_link.sent" → "Pay link sent"; a known action → its sentence. */
export function actionWords(action: string): string {
  const known = ACTIONS[action];
  if (known) return known;
  const words = action.replace(/[._]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2").trim().toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : action;
}

/** A field's code as words: "contacted_by_staff_id" → "Contacted by", "leaseBalance" → "Lease balance". */
export function fieldWords(field: string): string {
  const words = field
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/_/g, " ")
    .replace(/\b(staff id|id)$/i, "")
    .trim()
    .toLowerCase();
  const named: Record<string, string> = { email: "E-mail", "cell phone": "Phone", addr1: "Address", addr2: "Address line 2", "postal code": "ZIP code", region: "State" };
  const w = named[words] ?? words;
  return w ? w[0]!.toUpperCase() + w.slice(1) : field;
}

/** The names a row's values may point at. */
interface AuditNames {
  locations: ReadonlyMap<number, string>;
  staff: ReadonlyMap<number, string>;
}

/** Fields that hold cents. */
const MONEY = /^(amount|balance|leaseBalance|refunded|due|writtenOff|processorAmount|monthlyRate)$/;

/** A value as a person reads it: names for ids, dollars for cents, yes/no, "none". */
export function valueWords(field: string, value: unknown, names: AuditNames, formatCents: (cents: number) => string): string {
  if (value === null || value === undefined || value === "") {
    return /^locations?(Ids)?$/i.test(field) ? "every location" : "none";
  }
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (/^locations?(Ids)?$/i.test(field) && Array.isArray(value)) {
    return value.length ? value.map((id) => names.locations.get(Number(id)) ?? `a location no longer listed`).join(", ") : "no location";
  }
  if (/staff(Id)?$|_staff_id$|StaffId$/.test(field) && (typeof value === "number" || typeof value === "string")) return names.staff.get(Number(value)) ?? "a former staff member";
  if (typeof value === "number" && MONEY.test(field)) return formatCents(value);
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}T/.test(value)) return value; // the caller formats instants
  if (typeof value === "string") return `“${value.length > 120 ? `${value.slice(0, 117)}…` : value}”`;
  if (Array.isArray(value)) return value.map((v) => String(v)).join(", ");
  if (typeof value === "object") return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${fieldWords(k).toLowerCase()} ${String(v)}`).join(", ");
  return String(value);
}

/**
 * Each change as a sentence: "Locations changed from every location to Lumberton." `instant` formats
 * a date-time value (ISO) in the trail's zone, the zone named.
 */
export function changeSentences(
  changes: Record<string, { before: unknown; after: unknown }> | null,
  names: AuditNames,
  formatCents: (cents: number) => string,
  instant: (iso: string) => string,
): string[] {
  if (!changes) return [];
  const show = (field: string, v: unknown) => (typeof v === "string" && /^\d{4}-\d{2}-\d{2}T/.test(v) ? instant(v) : valueWords(field, v, names, formatCents));
  return Object.entries(changes).map(([field, { before, after }]) => {
    const label = fieldWords(field);
    // "Set to" when there was nothing before; but no locations means every location, a value of its own.
    if ((before === null || before === undefined || before === "") && !/^locations?(Ids)?$/i.test(field)) return `${label} set to ${show(field, after)}.`;
    return `${label} changed from ${show(field, before)} to ${show(field, after)}.`;
  });
}

/** A record as the operator knows it: its name when known, else its kind in words ("Staff member", "Payment 12"). */
export function recordWords(entity: string | null, entityId: string | null, name: string | null): string {
  if (!entity) return "";
  if (name) return name;
  const kind = fieldWords(entity);
  return entityId ? `${kind} ${entityId}` : kind;
}
