/**
 * Issue 37 point 7: `npm run sitelink:configure -- --help` prints the usage and exits 0, and wrong
 * usage (an unknown option, a missing value) is a clear message with the usage and exit 2, never a
 * stack trace. The real script, run as the operator runs it.
 */
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";

const run = (...args: string[]) => spawnSync("npx", ["tsx", "scripts/sitelink-configure.ts", ...args], { encoding: "utf8", timeout: 60_000 });

it("--help prints the usage (exit 0); an unknown option or a missing value is wrong usage (exit 2); no stack trace", () => {
  for (const flag of ["--help", "-h"]) {
    const help = run(flag);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage: npm run sitelink:configure -- --location <url_slug> --endpoint");
    expect(help.stdout).toContain("--pay-method card=1,cash=2,check=3");
    expect(help.stderr).not.toMatch(/\n\s+at /);
  }
  const unknown = run("--location", "lumberton-nc-28358", "--nope");
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toContain("Unknown option '--nope'");
  expect(unknown.stderr).toContain("Usage: npm run sitelink:configure");
  expect(unknown.stderr).not.toMatch(/\n\s+at /);
  const missing = run("--location");
  expect(missing.status).toBe(2);
  expect(missing.stderr).toContain("--location");
  expect(missing.stderr).not.toMatch(/\n\s+at /);
});
