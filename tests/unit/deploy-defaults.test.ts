/**
 * Issue 19: the shipped deployment files default to HTTPS on (Secure cookies, HSTS); plain HTTP is
 * an explicit choice. The Docker image's default mode (production) never seeds the demo tenant
 * (tests/integration/db/demo-tenant-seed.test.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const read = (f: string) => readFileSync(path.join(ROOT, f), "utf8");

describe("deployment defaults", () => {
  it("docker-compose.yml defaults HTTPS to true", () => {
    expect(read("docker-compose.yml")).toMatch(/^\s+HTTPS: \$\{HTTPS:-true\}$/m);
  });
  it(".env.example sets HTTPS=true and says how to run behind a TLS proxy", () => {
    const text = read(".env.example");
    expect(text).toMatch(/^HTTPS=true$/m);
    expect(text).not.toMatch(/^HTTPS=false$/m);
    expect(text).toMatch(/TLS-terminating proxy/);
  });
  it("the Dockerfile neither turns HTTPS off nor asks for the demo tenant", () => {
    const text = read("Dockerfile");
    expect(text).not.toMatch(/HTTPS=false/);
    expect(text).not.toMatch(/SEED_DEMO_TENANT=true/);
  });
});
