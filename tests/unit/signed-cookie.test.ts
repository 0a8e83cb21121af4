/**
 * The signed cookie read with node:crypto (decision 333) reads exactly what React Router's
 * createCookie reads: its own cookies and React Router's, under every secret (rotation); a forged,
 * altered or foreign-secret value is refused; the Cookie header is read as the `cookie` package reads it.
 */
import { createCookie } from "react-router";
import { describe, expect, it } from "vitest";
import { cookieValue, signedCookie } from "~/platform/signed-cookie.server";

const options = { path: "/", httpOnly: true, sameSite: "lax" as const, secure: true };
const ours = (secrets: string[]) => signedCookie("__Host-test", { ...options, secrets });
const theirs = (secrets: string[]) => createCookie("__Host-test", { ...options, secrets });
const pair = (setCookie: string) => setCookie.split(";")[0]!;

const VALUES: unknown[] = ["abc", "x".repeat(300), "Zürich ☃ 😀", { id: 7, name: "Ann" }, 12, true, null, "", "a.b.c"];

describe("signedCookie (decision 333)", () => {
  it("writes and reads the same as React Router's createCookie, both ways", async () => {
    for (const value of VALUES) {
      const header = `other=1; ${pair(await theirs(["s1"]).serialize(value))}; last=2`;
      expect(await ours(["s1"]).parse(header)).toEqual(await theirs(["s1"]).parse(header));
      const mine = `${pair(await ours(["s1"]).serialize(value))}`;
      expect(await theirs(["s1"]).parse(mine)).toEqual(await ours(["s1"]).parse(mine));
      if (value !== "") expect(await ours(["s1"]).parse(mine)).toEqual(value);
    }
  });

  it("tries every secret in order (rotation) and refuses another secret's signature", async () => {
    const header = pair(await theirs(["old"]).serialize("session-id"));
    expect(await ours(["new", "old"]).parse(header)).toBe("session-id");
    expect(await ours(["new"]).parse(header)).toBeNull();
    expect(await theirs(["new"]).parse(header)).toBeNull();
  });

  it("refuses a value altered or a signature forged, as React Router does", async () => {
    const header = pair(await theirs(["s1"]).serialize("token-a"));
    const [name, signed] = [header.slice(0, header.indexOf("=")), decodeURIComponent(header.slice(header.indexOf("=") + 1))];
    const [value, mac] = [signed.slice(0, signed.lastIndexOf(".")), signed.slice(signed.lastIndexOf(".") + 1)];
    const forged = [
      `${Buffer.from(JSON.stringify("token-b")).toString("base64")}.${mac}`,
      `${value}.${mac.slice(0, -1)}A`,
      `${value}.`,
      value,
      `${value}.${mac}x`,
      "not base64 at all",
    ];
    for (const bad of forged) {
      const h = `${name}=${encodeURIComponent(bad)}`;
      expect(await ours(["s1"]).parse(h)).toBeNull();
      expect(await theirs(["s1"]).parse(h)).toBeNull();
    }
  });

  it("reads the Cookie header as React Router's cookie package does: absent, empty, quoted, spaces, first wins, bad escapes", async () => {
    const headers = [
      null,
      "",
      "a",
      "__Host-test=",
      '__Host-test=""',
      "  __Host-test  =  x ; y=1",
      "y=1;__Host-test=first; __Host-test=second",
      "__Host-test=%E0%A4%A",
      "a=b=c; __Host-test=%41",
      "noequals; __Host-test=v",
      "=x; __Host-test=v",
      "__Host-test",
    ];
    // And with a valid signed value placed in each of those ways.
    const good = pair(await theirs(["s1"]).serialize("tok")).slice("__Host-test=".length);
    headers.push(`  __Host-test  =  ${good} ; y=1`, `y=1;__Host-test=${good}; __Host-test=bad`, `__Host-test=bad; __Host-test=${good}`, `__Host-test="${good}"`, `__Host-test=${decodeURIComponent(good)}`, `a=b=c; __Host-test=${good}`);
    for (const h of headers) {
      expect(await ours(["s1"]).parse(h)).toEqual(await theirs(["s1"]).parse(h));
    }
    expect(await ours(["s1"]).parse(`  __Host-test  =  ${good} ; y=1`)).toBe("tok");
    expect(cookieValue("  __Host-test  =  x ; y=1", "__Host-test")).toBe("x");
    expect(cookieValue('k="quoted"', "k")).toBe('"quoted"');
    expect(cookieValue("k=%41%42", "k")).toBe("AB");
    expect(cookieValue("k=%E0%A4%A", "k")).toBe("%E0%A4%A");
    expect(cookieValue("j=1", "k")).toBeUndefined();
  });

  it("keeps the name, the attributes and the expiry of React Router's cookie", async () => {
    const c = signedCookie("__Host-x", { ...options, secrets: ["s"], maxAge: 60 });
    expect(c.name).toBe("__Host-x");
    expect(c.isSigned).toBe(true);
    expect(c.expires!.getTime()).toBeGreaterThan(Date.now());
    const set = await c.serialize("v");
    expect(set).toMatch(/^__Host-x=[^;]+; Max-Age=60; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });
});
