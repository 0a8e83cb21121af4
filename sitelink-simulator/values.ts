/**
 * Money, tax, dates and .NET ticks as SiteLink writes them. Money is integer cents inside the
 * simulator; on the wire decimals look like SiteLink's: "117.6500" (4 places), and whole-dollar
 * rates of the unit and price-list tables like "95" (S8 shows both in one row).
 */

/** "139.81" / "139.8100" / "95" -> cents; null when the value has fractions of a cent. */
export function decimalToCents(text: string): number | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m) return null;
  const frac = (m[3] ?? "").replace(/0+$/, "");
  if (frac.length > 2) return null;
  const cents = Number(m[2] || "0") * 100 + Number(frac.padEnd(2, "0") || "0");
  return m[1] === "-" ? -cents : cents;
}

/** Cents -> "117.6500". */
export function money4(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}00`;
}

/** Cents -> "95" when whole dollars, else "117.6500" (rates in unit rows). */
export function rateText(cents: number): string {
  return cents % 100 === 0 ? String(cents / 100) : money4(cents);
}

/** Cents -> "$139.81" (messages). */
export function dollars(cents: number): string {
  return `$${(cents / 100).toFixed(2)}`;
}

/** A percentage rate (6.75) -> "6.7500". */
export function rate4(percent: number): string {
  return percent.toFixed(4);
}

/** Rate in millionths of 1 (6.75 % -> 67500). */
function micro(percent: number): number {
  return Math.round(percent * 10_000);
}

/**
 * Tax on a line, rounded half up to the cent: rent, insurance and fees alike. Measured on SiteLink's
 * test site LSETUP (LK commit a28d40d: 10 move-in days, every boundary case rounds to the nearest
 * cent, none truncates; evidence §4.4). The earlier "rent tax is truncated" claim was withdrawn.
 */
export function taxHalfUp(cents: number, percent: number): number {
  const exact = cents * micro(percent); // cents * 1e6
  const sign = exact < 0 ? -1 : 1;
  return sign * Math.floor((Math.abs(exact) + 500_000) / 1_000_000);
}

/** cents * num / den, half up. */
export function prorate(cents: number, num: number, den: number): number {
  return Math.floor((cents * num * 2 + den) / (2 * den));
}

// ------------------------------------------------------------------ dates (site wall clock)

interface LocalParts {
  date: string; // YYYY-MM-DD
  time: string; // HH:MM:SS
}

export function localParts(instant: Date, timeZone: string): LocalParts {
  const f = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  const p = Object.fromEntries(f.formatToParts(instant).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}:${p.second}` };
}

/** "-05:00" for the zone at that instant. */
export function offsetOf(instant: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(instant)
    .find((p) => p.type === "timeZoneName")?.value;
  const m = /GMT([+-]\d{2}:\d{2})?/.exec(name ?? "");
  return m?.[1] ?? "+00:00";
}

export function parseIsoDate(date: string): { y: number; m: number; d: number } {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  return { y, m, d };
}

export function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function isoDate(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

export function addDays(date: string, days: number): string {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + days);
  return t.toISOString().slice(0, 10);
}

/** Same day n months later, clamped to the month's end (Jan 31 + 1 = Feb 28). */
export function addMonths(date: string, months: number): string {
  const { y, m, d } = parseIsoDate(date);
  const index = y * 12 + (m - 1) + months;
  const ny = Math.floor(index / 12);
  const nm = (index % 12) + 1;
  return isoDate(ny, nm, Math.min(d, daysInMonth(ny, nm)));
}

export function endOfMonth(date: string): string {
  const { y, m } = parseIsoDate(date);
  return isoDate(y, m, daysInMonth(y, m));
}

// ------------------------------------------------------------------ .NET ticks

const EPOCH_TICKS = 621_355_968_000_000_000n;

/** .NET DateTime ticks (100 ns since 0001-01-01) of an instant (KV-CL dotNetTicks). */
export function ticksOf(instant: Date): bigint {
  return BigInt(instant.getTime()) * 10_000n + EPOCH_TICKS;
}

// ------------------------------------------------------------------ cards

export function luhnValid(number: string): boolean {
  if (!/^\d{12,19}$/.test(number)) return false;
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let n = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
  }
  return sum % 10 === 0;
}

export type CardBrand = "visa" | "mastercard" | "discover" | "amex";

export function brandOf(number: string): CardBrand | null {
  if (/^4/.test(number)) return "visa";
  if (/^(5[1-5]|2[2-7])/.test(number)) return "mastercard";
  if (/^(6011|65|64[4-9]|622)/.test(number)) return "discover";
  if (/^3[47]/.test(number)) return "amex";
  return null;
}
