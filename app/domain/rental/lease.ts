/**
 * The rental agreement's text, generated from the tenant, the unit, the rates and the location's
 * autopay terms. The exact text shown is the text signed: its SHA-256 is stored with the lease.
 * DEMO wording: an operator's lawyer would supply the real clauses; the structure is what matters.
 */
import { formatCents } from "../shared/money";
import { formatPhone } from "../shared/phone";
import type { MoveInQuote } from "./move-in-quote";

export interface LeaseParties {
  operatorName: string;
  location: { name: string; address: string; phone: string };
  tenant: {
    firstName: string;
    lastName: string;
    email: string;
    cellPhone: string;
    addr1: string;
    addr2: string | null;
    city: string;
    region: string;
    postalCode: string;
    altContactFirstName?: string | null;
    altContactLastName?: string | null;
    altContactPhone?: string | null;
  };
  unit: { description: string; width: number; length: number };
  insurance: { coverage: number; premium: number } | null;
  autopayTerms: string;
}

export function leaseText(p: LeaseParties, quote: MoveInQuote): string {
  const t = p.tenant;
  const alt =
    t.altContactFirstName || t.altContactLastName || t.altContactPhone
      ? `Alternate contact: ${[t.altContactFirstName, t.altContactLastName].filter(Boolean).join(" ")}${t.altContactPhone ? `, ${formatPhone(t.altContactPhone)}` : ""}`
      : "Alternate contact: none given";
  const charges = quote.lines.map((l) => `  - ${l.description}: ${formatCents(l.amount)}${l.tax ? ` + tax ${formatCents(l.tax)}` : ""}`).join("\n");
  return [
    "SELF-STORAGE RENTAL AGREEMENT",
    "",
    `Owner: ${p.operatorName}, ${p.location.name}, ${p.location.address}. Office phone ${p.location.phone}.`,
    `Tenant: ${t.firstName} ${t.lastName}, ${t.addr1}${t.addr2 ? `, ${t.addr2}` : ""}, ${t.city}, ${t.region} ${t.postalCode}. Cell phone ${formatPhone(t.cellPhone)}. Email ${t.email}.`,
    alt,
    "",
    "1. THE SPACE",
    `The Owner rents to the Tenant one ${p.unit.width}' x ${p.unit.length}' ${p.unit.description} unit at the facility above. The unit's number is given on the move-in receipt. The unit is for storing personal or business property only; no one may live in it, and no hazardous, perishable or illegal items may be stored.`,
    "",
    "2. TERM AND RENT",
    `The rental starts on ${quote.moveInDate} and runs month to month. Monthly rent is ${formatCents(quote.monthlyRate)}, due in advance on the same day of each month as the start date. The first month, ${quote.moveInDate} to ${quote.paidThroughDate}, is paid in full today; the next payment is due on ${quote.nextDueDate}. Each later month costs ${formatCents(quote.monthlyTotal)} including the protection plan and recurring charges below. The Owner may change the rent with 30 days' written notice.`,
    "",
    "3. CHARGES TODAY",
    charges,
    `  Total paid at move-in: ${formatCents(quote.total)} (of which tax ${formatCents(quote.tax)}).`,
    // What the promotion still gives the later months (decision 672): said only when it does.
    ...(quote.promotion?.later ? [`  ${quote.promotion.later}`] : []),
    "",
    "4. PROTECTION",
    p.insurance
      ? `The Tenant chose the protection plan with ${formatCents(p.insurance.coverage)} of coverage at ${formatCents(p.insurance.premium)} a month (theft covered at 50%). The premium is billed with the rent.`
      : "The Tenant declined a protection plan. The Owner does not insure the Tenant's property; the Tenant stores it at their own risk and is encouraged to insure it.",
    "",
    "5. ACCESS",
    "The Tenant receives a gate code at move-in and may enter during posted gate hours. The gate code is personal; the Tenant is responsible for everyone they give it to. The Tenant supplies their own lock.",
    "",
    "6. LATE PAYMENT AND DEFAULT",
    "Rent not paid by its due date is late. If rent stays unpaid, the Owner may deny access to the unit and, after the notices required by state law, may enforce its lien on the stored property.",
    "",
    "7. MOVING OUT",
    "The Tenant may end this agreement by giving notice in the customer portal or at the office, removing all property and their lock, and leaving the unit clean. Rent already paid for the current month is not refunded.",
    "",
    "8. AUTOPAY TERMS",
    p.autopayTerms.trim() || "Autopay is optional.",
    "",
    "9. ELECTRONIC SIGNATURE",
    "By typing their full name and ticking the consent box, the Tenant signs this agreement electronically and agrees that the electronic signature has the same effect as a handwritten one. The time of signing, the Tenant's IP address and a fingerprint (SHA-256) of this text are kept with the agreement.",
  ].join("\n");
}

/**
 * The signature name of a lease that was not signed online (decision 203: is_sitelink_esign_enabled
 * off, the tenant signs at the office). The lease record keeps the text as it stood at payment.
 */
export const LEASE_SIGNED_AT_OFFICE = "";

/** Whether a lease record carries an online signature. */
export function isSignedOnline(lease: { signedName: string }): boolean {
  return lease.signedName !== LEASE_SIGNED_AT_OFFICE;
}
