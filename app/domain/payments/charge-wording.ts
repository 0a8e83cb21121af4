/**
 * How a rent or protection-plan line is worded, wherever a visitor or tenant reads it: the move-in
 * quote (review step, lease, receipt), the monthly charges of the billing run, and SiteLink's move-in
 * lines, which say "Rent" / "Second Monthly Rent Fee" / "Insurance" on the wire (decision 202). One
 * place, so both adapters' receipts read the same; `charge-wording.test.ts` fails if the wording
 * appears anywhere else.
 */
import { formatDate } from "../shared/calendar";
import { formatWholeDollars } from "../shared/money";

/** "First month's rent (Nov 22, 2026 to Dec 21, 2026)" */
export function firstMonthRentWording(start: string, end: string): string {
  return `First month's rent (${formatDate(start)} to ${formatDate(end)})`;
}

/** "Protection plan, $1,000 coverage (first month)"; without a known coverage "Protection plan (first month)". */
export function firstMonthProtectionWording(coverage: number | null): string {
  return coverage ? `Protection plan, ${formatWholeDollars(coverage)} coverage (first month)` : "Protection plan (first month)";
}

/** A later month's charge: "Rent Dec 22, 2026 – Jan 21, 2027", "Protection plan Dec 22, 2026 – Jan 21, 2027", "Lock fee …". */
export function periodChargeWording(name: string, start: string, end: string): string {
  return `${name} ${formatDate(start)} – ${formatDate(end)}`;
}

export const RENT_NAME = "Rent";
export const PROTECTION_NAME = "Protection plan";
