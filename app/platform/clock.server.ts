import { env, testSwitchesAllowed } from "~/platform/env.server";

/** Set by the browser tests' setClock hook (app/testing/hooks.server.ts); honoured only where the test switches are allowed (decision 432). */
let pinned: Date | null = null;

/**
 * The current time. Tests and demos may pin it with FAKE_NOW (an ISO date-time) outside production (in
 * production only under the test runner),
 * so time-dependent pages (open now, billing) can be checked at a known moment; the browser tests
 * pin the running server's clock with `pinClockForTests` (it wins over FAKE_NOW while set).
 */
export function now(): Date {
  const e = env();
  if (pinned && testSwitchesAllowed(e)) return new Date(pinned);
  const fake = e.FAKE_NOW;
  // Tests and demos; in production only the test runner's (GATEHOUSE_TEST_RUNNER=1, decision 432).
  if (fake && (e.NODE_ENV !== "production" || testSwitchesAllowed(e))) {
    const d = new Date(fake);
    if (!Number.isNaN(d.getTime())) return d;
  }
  return new Date();
}

/** Pins the clock at `at` (it stands still there) or lets it run again with null; tests only (decision 432). Returns the previous pin. */
export function pinClockForTests(at: Date | null): Date | null {
  if (!testSwitchesAllowed(env())) throw new Error("The clock can be pinned only under NODE_ENV=test or by the test runner (GATEHOUSE_TEST_RUNNER=1)");
  const previous = pinned;
  pinned = at;
  return previous;
}
