/**
 * Decision 197: every per-address limit keys the visitor's address through `addressKey`
 * (app/services/web/rate-limit.server.ts), which counts an IPv6 address by its /64. A limit that built
 * its own `…:ip:${ip}` key would treat each address of one /64 as a new visitor again.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP, appSources } from "./app-sources";

describe("per-address limit keys are built in one place", () => {
  it("no module but rate-limit.server.ts builds an `:ip:` key, and every module that counts a limit by address uses addressKey", () => {
    const home = path.join("services", "web", "rate-limit.server.ts");
    const offenders = appSources()
      .filter((f) => !f.endsWith(home))
      .filter((f) => /:ip:\$\{|["'`]\s*\+\s*ip\b|ip:\s*\$\{/.test(readFileSync(f, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "")))
      .map((f) => path.relative(APP, f));
    expect(offenders).toEqual([]);
    const users = appSources().filter((f) => /\baddressKey\(/.test(readFileSync(f, "utf8")));
    expect(users.map((f) => path.relative(APP, f)).sort()).toEqual(
      [
        "services/web/anonymous-limits.server.ts",
        "services/portal/sign-in-limits.server.ts",
        "services/payments/card-attempts.server.ts",
        "services/portal/office-sign-in.server.ts",
        "services/payments/pay-links.server.ts",
        "services/payments/authentication.server.ts",
        "services/staff/auth.server.ts",
        "services/staff/passkeys.server.ts",
        "services/staff/password-reset.server.ts",
      ].sort(),
    );
  });
});
