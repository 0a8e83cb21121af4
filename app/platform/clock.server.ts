import { env } from "~/env.server";

/** Set by the browser tests' setClock hook (services/test-hooks.server.ts); honoured only under NODE_ENV=test. */
let pinned: Date | null = null;

/**
 * The current time. Tests and demos may pin it with FAKE_NOW (an ISO date-time) outside production,
 * so time-dependent pages (open now, billing) can be checked at a known moment; the browser tests
 * pin the running server's clock with `pinClockForTests` (it wins over FAKE_NOW while set).
 */
export function now(): Date {
  const e = env();
  if (pinned && e.NODE_ENV === "test") return new Date(pinned);
  const fake = e.FAKE_NOW;
  if (fake && e.NODE_ENV !== "production") {
    const d = new Date(fake);
    if (!Number.isNaN(d.getTime())) return d;
  }
  return new Date();
}

/** Pins the clock at `at` (it stands still there) or lets it run again with null; NODE_ENV=test only. Returns the previous pin. */
export function pinClockForTests(at: Date | null): Date | null {
  if (env().NODE_ENV !== "test") throw new Error("The clock can be pinned only under NODE_ENV=test");
  const previous = pinned;
  pinned = at;
  return previous;
}
