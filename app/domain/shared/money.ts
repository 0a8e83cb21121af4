/**
 * Money is an integer number of cents. The one rounding rule (docs/decisions/004-money.md):
 * a percentage is applied to one line's amount and rounded once, half up, to the cent.
 */

/** `cents × percent / 100`, rounded half up to a whole cent (e.g. 700 × 6.75 % = 47.25 → 47). */
export function percentOf(cents: number, percent: number): number {
  if (!Number.isInteger(cents)) throw new Error(`Amount must be whole cents: ${cents}`);
  // Work in hundred-thousandths of a percent to keep rates like 6.75 exact.
  const scaledRate = Math.round(percent * 100_000);
  const numerator = cents * scaledRate; // cents × percent × 100000
  const denominator = 100 * 100_000;
  const sign = numerator < 0 ? -1 : 1;
  return sign * Math.floor((Math.abs(numerator) + denominator / 2) / denominator);
}

/** Dollars as stored by the software (e.g. 7 or "8.95") to cents, exactly. */
export function dollarsToCents(dollars: number | string): number {
  const text = typeof dollars === "number" ? dollars.toFixed(2) : dollars.trim();
  const m = /^(-)?(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new Error(`Not an amount of dollars: ${dollars}`);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? "0").padEnd(2, "0"));
  return m[1] ? -cents : cents;
}

/** "$1,234.56" */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100).toLocaleString("en-US");
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, "0")}`;
}

/** "$1,000" for whole dollars, "$8.95" otherwise (coverage amounts and the like). */
export function formatWholeDollars(cents: number): string {
  return cents % 100 === 0 ? formatCents(cents).slice(0, -3) : formatCents(cents);
}

/** A charge line with its taxes (tax_1 and tax_2 each rounded once on this line). */
interface TaxedLine {
  description: string;
  amount: number;
  tax: number;
  total: number;
}

export function taxedLine(description: string, amount: number, tax1Rate = 0, tax2Rate = 0): TaxedLine {
  const tax = percentOf(amount, tax1Rate) + percentOf(amount, tax2Rate);
  return { description, amount, tax, total: amount + tax };
}

/**
 * An amount of dollars as a person types it, in cents (decision 670): "25", "25.5", "25.50", "$25.00",
 * "$ 1,234.50", ".50". Null when it is not one (letters, a minus sign, more than two decimals,
 * misplaced commas): the form says so beside the field and keeps what was typed.
 */
export function parseDollars(text: string): number | null {
  const m = /^\$?\s*(?:(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?|\.(\d{1,2}))$/.exec(text.trim());
  if (!m) return null;
  const whole = Number((m[1] ?? "0").replace(/,/g, ""));
  const cents = Number((m[2] ?? m[3] ?? "0").padEnd(2, "0"));
  const total = whole * 100 + cents;
  return Number.isSafeInteger(total) ? total : null;
}

/** Cents as a money field shows them for editing: "25.00", "1234.50" (no sign, no commas). */
export function centsForInput(cents: number): string {
  return `${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, "0")}`;
}
