/**
 * The move-in confirmation read model: what the confirmation page shows after a rental, read from
 * the storage port's getMoveIn (docs/decisions/078: shown for CONFIRMATION_HOURS, to the checkout's
 * browser only).
 */
import type { StorageSoftware } from "~/storage-software/port";
import { leaseDocumentPath } from "./lease-links.server";

/** How long after the move-in the confirmation page is shown (to the checkout's browser only). */
export const CONFIRMATION_HOURS = 24;

/** Whether the confirmation page of this lease's move-in is still shown (CONFIRMATION_HOURS after it). */
export async function isConfirmationViewable(storage: StorageSoftware, leaseId: number | string, now: Date): Promise<boolean> {
  const m = await storage.getMoveIn(String(leaseId));
  if (!m) return false;
  return now.getTime() - m.createdAt.getTime() < CONFIRMATION_HOURS * 60 * 60 * 1000;
}

export interface MoveInConfirmation {
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
  lines: Array<{ description: string; kind: string; amount: number; tax: number }>;
  totalCharged: number;
  payment: { amount: number; cardBrand: string; cardLast4: string; authReference: string | null } | null;
  leasePath: string;
}

export async function getMoveInConfirmation(storage: StorageSoftware, leaseId: number | string): Promise<MoveInConfirmation | null> {
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
    lines: m.lines,
    totalCharged: m.lines.reduce((s, l) => s + l.amount + (l.kind === "credit" ? 0 : l.tax), 0),
    payment: m.payment ? { amount: m.payment.amount, cardBrand: m.payment.cardBrand, cardLast4: m.payment.cardLast4, authReference: m.payment.authReference } : null,
    leasePath: leaseDocumentPath(m.leaseId),
  };
}
