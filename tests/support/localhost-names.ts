import dns from "node:dns";

/**
 * Node resolves `*.localhost` like the browsers do (RFC 6761 §6.3: every name under `localhost.` is
 * the loopback address), for the tests' own HTTP clients (fetch, Playwright's `request`): the console's
 * origin in development and tests is http://admin.localhost:PORT (docs/decisions/450), which Chromium
 * resolves by itself but Node asks the system's resolver for, and this machine's resolver does not
 * know. Only names ending in `.localhost` are changed (to `localhost`); everything else is untouched.
 * Imported once per test process (playwright.config.ts, the Vitest setup files).
 */
const local = (hostname: string) => (/\.localhost\.?$/i.test(hostname) ? "localhost" : hostname);
const marker = Symbol.for("gatehouse.localhost-names");
const patched = dns as typeof dns & { [marker]?: true };
if (!patched[marker]) {
  patched[marker] = true;
  const lookup = dns.lookup;
  dns.lookup = ((hostname: string, ...rest: unknown[]) => (lookup as (...a: unknown[]) => unknown)(local(hostname), ...rest)) as typeof dns.lookup;
  const promisesLookup = dns.promises.lookup;
  dns.promises.lookup = ((hostname: string, ...rest: unknown[]) => (promisesLookup as (...a: unknown[]) => unknown)(local(hostname), ...rest)) as typeof dns.promises.lookup;
}
