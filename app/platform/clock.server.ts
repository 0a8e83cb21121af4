/**
 * The current time. Tests and demos may pin it with FAKE_NOW (an ISO date-time) outside production,
 * so time-dependent pages (open now, billing) can be checked at a known moment.
 */
export function now(): Date {
  const fake = process.env.FAKE_NOW;
  if (fake && process.env.NODE_ENV !== "production") {
    const d = new Date(fake);
    if (!Number.isNaN(d.getTime())) return d;
  }
  return new Date();
}
