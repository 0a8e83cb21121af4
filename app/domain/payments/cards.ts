/** The card brands we accept at all (each location narrows them, spec §3 accepted cards); stored as text in the ledger and saved cards. */
export const cardBrands = ["visa", "mastercard", "discover"] as const;
export type CardBrand = (typeof cardBrands)[number];

/** Card brand from the number's prefix (IIN ranges); null for brands we do not take. */
export function cardBrand(number: string): CardBrand | null {
  const n = number.replace(/\D/g, "");
  if (/^4/.test(n)) return "visa";
  if (/^5[1-5]/.test(n)) return "mastercard";
  const first6 = Number(n.slice(0, 6));
  if (n.length >= 6 && first6 >= 222100 && first6 <= 272099) return "mastercard";
  if (/^(6011|65|64[4-9])/.test(n)) return "discover";
  if (n.length >= 6 && first6 >= 622126 && first6 <= 622925) return "discover";
  return null;
}

export const CARD_BRAND_LABELS: Record<CardBrand, string> = {
  visa: "Visa",
  mastercard: "Master Card",
  discover: "Discover",
};

/** The Luhn checksum. */
export function luhnValid(number: string): boolean {
  const n = number.replace(/\D/g, "");
  if (n.length < 12 || n.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < n.length; i++) {
    let d = Number(n[n.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** True when the card's expiry month (MM, YYYY) has not ended by `today` (local year and month). */
export function expiryInFuture(month: number, year: number, today: { year: number; month: number }): boolean {
  if (!Number.isInteger(month) || month < 1 || month > 12) return false;
  const fullYear = year < 100 ? 2000 + year : year;
  return fullYear > today.year || (fullYear === today.year && month >= today.month);
}

/** "•••• 4242" */
export function maskedCard(last4: string): string {
  return `•••• ${last4}`;
}
