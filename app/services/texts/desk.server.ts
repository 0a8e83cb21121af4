import type { Database } from "~/db/client.server";
import { formatCents } from "~/domain/shared/money";
import { formatPhone } from "~/domain/shared/phone";
import { recordAudit } from "../audit/events.server";
import { tenantLeaseInScope, type DeskActionOutcome } from "../desk/tenants.server";
import { withDeskPayLink } from "../payments/pay-links.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";
import { checkText, deliverText, logTextToSend } from "./send.server";

/**
 * Text-to-pay from the desk (issue 40, decision 494): a fresh pay link for the lease, sent by text from
 * the lease's location's number to the tenant's mobile, if the tenant agreed to texts and it is within
 * the texting hours there (else the desk is told why, and nothing is made). The link, the logged text
 * (with its consent) and the audit row are one transaction; the provider is called after it.
 * Null: not within the member's locations (404).
 */
export async function textTenantPayLink(db: Database, staff: SignedInStaff, input: { tenantId: number; leaseId: number; now: Date }): Promise<DeskActionOutcome | null> {
  const row = await tenantLeaseInScope(db, staff, input);
  if (!row) return null;
  const { tenant } = row;
  if (row.lease.status !== "active") return { ok: false, message: "This lease has ended: there is nothing to pay through a link.", field: "leaseId" };
  const check = await checkText(db, { location: row.location, to: tenant.cellPhone, now: input.now });
  if (!check.ok) return { ok: false, message: check.message };
  const made = await withDeskPayLink(db, { tenantId: tenant.id, leaseId: row.lease.id, staffId: staff.staffId, now: input.now }, async (tx, link, about) => {
    const body = `${row.location.name}: ${formatCents(about.due)} due for unit ${about.unitName}. Pay by card here (works once, until ${about.until}): ${link.url} Reply STOP to stop texts.`;
    const origin = new URL(link.url).origin;
    const messageId = await logTextToSend(tx, { location: row.location, to: tenant.cellPhone, body, purpose: "pay_link", tenantId: tenant.id, staffId: staff.staffId, origin, now: input.now }, check);
    await recordAudit(tx, {
      ...auditActor(staff),
      action: "pay_link.texted",
      entity: "lease",
      entityId: row.lease.id,
      locationId: row.lease.locationId,
      detail: { tenantId: tenant.id, payLinkId: link.id, textMessageId: messageId, consentId: check.consentId, expiresAt: link.expiresAt.toISOString() },
      at: input.now,
    });
    return { ok: true as const, messageId, origin };
  });
  if (!made.ok) return { ok: false, message: made.message };
  const sent = await deliverText(db, made.messageId, made.origin);
  if (!sent.ok) return { ok: false, message: sent.message };
  return { ok: true, message: `A pay link for unit ${row.unitName} is on its way by text to ${formatPhone(tenant.cellPhone)}.` };
}
