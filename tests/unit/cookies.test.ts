import { afterEach, describe, expect, it, vi } from "vitest";

/**
 * Session, CSRF and rental cookies: `__Host-` names under HTTPS (Secure, Path=/, no Domain), plain
 * names over HTTP in development and tests (docs/decisions/076-host-prefixed-cookies.md).
 */
const saved = { NODE_ENV: process.env.NODE_ENV, HTTPS: process.env.HTTPS, SESSION_SECRET: process.env.SESSION_SECRET };

async function cookiesUnder(nodeEnv: string, https: string | undefined) {
  vi.resetModules();
  process.env.NODE_ENV = nodeEnv;
  if (https === undefined) delete process.env.HTTPS;
  else process.env.HTTPS = https;
  process.env.SESSION_SECRET = "unit-test-secret";
  const session = await import("~/services/web/session.server");
  const csrf = await import("~/services/web/csrf.server");
  const rental = await import("~/services/rental/record.server");
  return { session: session.sessionCookie(), csrf: csrf.csrfCookie(), rental: rental.rentalCookie() };
}

afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  vi.resetModules();
});

describe("cookie names and attributes", () => {
  it("under HTTPS (production): __Host- prefix, Secure, Path=/, HttpOnly, SameSite=Lax, no Domain", async () => {
    const cookies = await cookiesUnder("production", undefined);
    for (const [base, cookie] of [
      ["gh_portal", cookies.session],
      ["csrf", cookies.csrf],
      ["checkout", cookies.rental],
    ] as const) {
      expect(cookie.name).toBe(`__Host-${base}`);
      const header = await cookie.serialize("value");
      expect(header).toMatch(new RegExp(`^__Host-${base}=`));
      expect(header).toMatch(/; Secure/);
      expect(header).toMatch(/; Path=\//);
      expect(header).toMatch(/; HttpOnly/);
      expect(header).toMatch(/; SameSite=Lax/);
      expect(header).not.toMatch(/Domain=/i);
      // The browser sends it back under the same name, and we read it.
      expect(await cookie.parse(header.split(";")[0]!)).toBe("value");
    }
  });

  it.each([
    ["test", undefined],
    ["development", undefined],
    ["production", "false"],
  ])("over plain HTTP (NODE_ENV=%s, HTTPS=%s): plain names, not Secure", async (nodeEnv, https) => {
    const cookies = await cookiesUnder(nodeEnv, https);
    for (const [base, cookie] of [
      ["gh_portal", cookies.session],
      ["csrf", cookies.csrf],
      ["checkout", cookies.rental],
    ] as const) {
      expect(cookie.name).toBe(base);
      const header = await cookie.serialize("value");
      expect(header).toMatch(new RegExp(`^${base}=`));
      expect(header).not.toMatch(/Secure/);
      expect(header).toMatch(/; Path=\//);
      expect(header).toMatch(/; HttpOnly/);
    }
  });
});
