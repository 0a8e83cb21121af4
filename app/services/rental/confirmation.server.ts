/**
 * The move-in confirmation read model: what the confirmation page shows after a rental, read from
 * the storage port's getMoveIn (docs/decisions/078: shown for CONFIRMATION_HOURS, to the rental's
 * browser only).
 */
import type { StorageSoftware } from "~/storage-software/port";
import { leaseDocumentPath } from "./lease-links.server";

/** How long after the move-in the confirmation page is shown (to the rental's browser only). */
export const CONFIRMATION_HOURS = 24;

/** Whether the confirmation page of this lease's move-in is still shown (CONFIRMATION_HOURS after it). */
export async function isConfirmationViewable(storage: StorageSoftware, leaseId: number | string, now: Date): Promise<boolean> {
  const m = await storage.getMoveIn(String(leaseId));
  if (!m) return false;
  return now.getTime() - m.createdAt.getTime() < CONFIRMATION_HOURS * 60 * 60 * 1000;
}

/** The portal's autopay page of a lease (sign-in first). */
export const autopaySetupPath = (leaseId: string | number) => `/customer-portal/units/${leaseId}/autopay`;

/** What the confirmation and the email say when autopay was chosen but could not be turned on. */
export const AUTOPAY_NOT_SET_UP =
  "Autopay is not on yet. You chose autopay, but the facility's system took a while to confirm your rental, so your card could not be saved for it. Your rental and today's payment are not affected. To turn autopay on, sign in to the customer portal and set it up.";

interface RentalConfirmation {
  leaseId: number;
  unitName: string;
  gateCode: string;
  firstName: string;
  email: string;
  moveInDate: string;
  paidThroughDate: string;
  nextDueDate: string;
  monthlyRate: number;
  autopayEnabled: boolean;
  /** Autopay was chosen but is not on: what the page says (it links to the portal's autopay page), else null. */
  autopayNotSetUp: string | null;
  autopayPath: string;
  lines: Array<{ description: string; kind: string; amount: number; tax: number }>;
  totalCharged: number;
  payment: { amount: number; cardBrand: string; cardLast4: string; authReference: string | null } | null;
  leasePath: string;
}

export async function getRentalConfirmation(storage: StorageSoftware, leaseId: number | string): Promise<RentalConfirmation | null> {
  const m = await storage.getMoveIn(String(leaseId));
  if (!m) return null;
  return {
    leaseId: Number(m.leaseId),
    unitName: m.unitName,
    gateCode: m.gateCode,
    firstName: m.firstName,
    email: m.email,
    moveInDate: m.moveInDate,
    paidThroughDate: m.paidThroughDate,
    nextDueDate: m.nextDueDate,
    monthlyRate: m.monthlyRate,
    autopayEnabled: m.autopayEnabled,
    autopayNotSetUp: m.autopayNotSetUp ? AUTOPAY_NOT_SET_UP : null,
    autopayPath: autopaySetupPath(m.leaseId),
    lines: m.lines,
    totalCharged: m.lines.reduce((s, l) => s + l.amount + (l.kind === "credit" ? 0 : l.tax), 0),
    payment: m.payment ? { amount: m.payment.amount, cardBrand: m.payment.cardBrand, cardLast4: m.payment.cardLast4, authReference: m.payment.authReference } : null,
    leasePath: leaseDocumentPath(m.leaseId),
  };
}
