import { env } from "~/env.server";

/**
 * The current time. Tests and demos may pin it with FAKE_NOW (an ISO date-time) outside production,
 * so time-dependent pages (open now, billing) can be checked at a known moment.
 */
export function now(): Date {
  const e = env();
  const fake = e.FAKE_NOW;
  if (fake && e.NODE_ENV !== "production") {
    const d = new Date(fake);
    if (!Number.isNaN(d.getTime())) return d;
  }
  return new Date();
}
