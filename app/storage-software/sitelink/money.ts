/**
 * SiteLink money and numbers. SiteLink sends decimals as strings ("117.6500", sometimes "95"; study
 * §2, S8) and expects 2 dp back. Cents are computed with string arithmetic, never parseFloat * 100.
 */

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?$/;

/**
 * "117.6500" -> 11765, "95" -> 9500, "-3.5" -> -350. Past the cent it rounds half up (away from zero),
 * once. Throws on anything that is not a plain decimal (an empty value is the caller's decision).
 */
export function decimalToCents(value: string): number {
  const s = value.trim();
  const m = DECIMAL.exec(s);
  if (!m || (!m[2] && !m[3])) throw new Error(`Not a decimal amount: ${JSON.stringify(value)}`);
  const negative = m[1] === "-";
  const whole = m[2] || "0";
  const frac = (m[3] ?? "").padEnd(3, "0");
  let cents = Number(whole) * 100 + Number(frac.slice(0, 2));
  if (Number(frac[2]) >= 5) cents += 1;
  if (!Number.isSafeInteger(cents)) throw new Error(`Amount out of range: ${JSON.stringify(value)}`);
  return negative && cents !== 0 ? -cents : cents;
}

/** Like decimalToCents, but a missing or empty value is `fallback` (SiteLink omits null columns). */
export function optionalCents(value: string | undefined | null, fallback = 0): number {
  if (value === undefined || value === null || value.trim() === "") return fallback;
  return decimalToCents(value);
}

/** 11765 -> "117.65", -350 -> "-3.50": the 2 dp SiteLink expects. */
export function centsToDecimal(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new Error(`Cents must be an integer: ${cents}`);
  // A wire value for SiteLink, not a price for people (those are formatted by ~/domain/money).
  const digits = String(Math.abs(cents)).padStart(3, "0");
  return `${cents < 0 ? "-" : ""}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** A size or a rate ("10.0000" -> 10, "6.7500" -> 6.75); NaN-free: throws on non-numbers. */
export function decimalToNumber(value: string | undefined | null, fallback?: number): number {
  if (value === undefined || value === null || value.trim() === "") {
    if (fallback === undefined) throw new Error("Missing number");
    return fallback;
  }
  const s = value.trim();
  if (!DECIMAL.test(s) || s === "." || s === "") throw new Error(`Not a number: ${JSON.stringify(value)}`);
  return Number(s);
}

/** SiteLink booleans are "true"/"false" (and sometimes "1"/"0"). */
export function isTrue(value: string | undefined | null): boolean {
  const s = (value ?? "").trim().toLowerCase();
  return s === "true" || s === "1";
}

/** An integer column ("12", " 12 "); null when absent or not an integer. */
export function intOrNull(value: string | undefined | null): number | null {
  const s = (value ?? "").trim();
  return /^-?\d+$/.test(s) ? Number(s) : null;
}
