import { describe, expect, it } from "vitest";
import { consoleCookieSecure, consoleOriginOf, consoleRequestAllowed, isConsoleHostOf, isConsolePath } from "./origin";

describe("the console's origin (decision 450)", () => {
  it.each([
    [{ consoleUrl: "https://office.example.com/x", publicUrl: "https://www.example.com", domain: "www.example.com", production: true }, "https://office.example.com"],
    [{ publicUrl: "https://www.example.com/", domain: "ignored.example", production: true }, "https://admin.example.com"],
    [{ publicUrl: "http://localhost:3000", domain: "www.example.com", production: false }, "http://admin.localhost:3000"],
    // An address has no "admin." name: never the public site's own origin.
    [{ publicUrl: "http://127.0.0.1:8080", domain: "www.example.com", production: true }, "http://admin.localhost:8080"],
    [{ publicUrl: "http://[::1]:8080", domain: "www.example.com", production: true }, "http://admin.localhost:8080"],
    [{ domain: "www.gatehousestorage.example", production: true }, "https://admin.gatehousestorage.example"],
    [{ domain: "www.gatehousestorage.example", production: true, plainHttp: true }, "http://admin.gatehousestorage.example"],
    [{ domain: "www.gatehousestorage.example", production: false, port: 4810 }, "http://admin.localhost:4810"],
    [{ domain: "", production: false }, "http://admin.localhost:3000"],
  ])("%j → %s", (rules, origin) => {
    expect(consoleOriginOf(rules)).toBe(origin);
  });

  it("knows its host by name, whatever the port; never another host", () => {
    expect(isConsoleHostOf("admin.localhost:4810", "http://admin.localhost:3000")).toBe(true);
    expect(isConsoleHostOf("ADMIN.example.com", "https://admin.example.com")).toBe(true);
    expect(isConsoleHostOf("localhost:3000", "http://admin.localhost:3000")).toBe(false);
    expect(isConsoleHostOf("admin.localhost.evil.example", "http://admin.localhost:3000")).toBe(false);
    expect(isConsoleHostOf(undefined, "http://admin.localhost:3000")).toBe(false);
  });

  it("is a __Host- cookie's origin on https and on *.localhost only", () => {
    expect(consoleCookieSecure("https://admin.example.com")).toBe(true);
    expect(consoleCookieSecure("http://admin.localhost:3000")).toBe(true);
    expect(consoleCookieSecure("http://admin.intranet.example")).toBe(false);
  });

  it("has /admin and what is under it as its paths", () => {
    for (const p of ["/admin", "/admin/", "/admin/staff", "/admin.data", "/admin/staff.data"]) expect(isConsolePath(p)).toBe(true);
    for (const p of ["/", "/administration", "/contact", "/adminx/y"]) expect(isConsolePath(p)).toBe(false);
  });
});

describe("the console's fetch-metadata rule (decision 450)", () => {
  const consoleOrigin = "https://admin.example.com";
  const page = { secFetchMode: "navigate", secFetchDest: "document" };
  it.each([
    // Its own pages: anything.
    [{ method: "POST", secFetchSite: "same-origin", secFetchMode: "cors", secFetchDest: "empty" }, true],
    [{ method: "GET", secFetchSite: "same-origin", secFetchMode: "cors", secFetchDest: "empty" }, true],
    // A link, a bookmark, a typed address: a top-level navigation to a page.
    [{ method: "GET", secFetchSite: "cross-site", ...page }, true],
    [{ method: "GET", secFetchSite: "none", ...page }, true],
    [{ method: "GET", secFetchSite: "same-site", ...page }, true],
    // Anything else from elsewhere.
    [{ method: "GET", secFetchSite: "same-site", secFetchMode: "cors", secFetchDest: "empty" }, false],
    [{ method: "GET", secFetchSite: "same-site", secFetchMode: "no-cors", secFetchDest: "script" }, false],
    [{ method: "GET", secFetchSite: "cross-site", secFetchMode: "navigate", secFetchDest: "iframe" }, false],
    [{ method: "POST", secFetchSite: "same-site", ...page }, false],
    [{ method: "POST", secFetchSite: "none", ...page }, false],
    // An old browser: no metadata; a cross-origin Origin is refused, its own or none allowed.
    [{ method: "POST", origin: "https://www.example.com" }, false],
    [{ method: "GET", origin: "https://www.example.com" }, false],
    [{ method: "POST", origin: "https://admin.example.com" }, true],
    [{ method: "GET" }, true],
  ])("%j → %s", (input, allowed) => {
    expect(consoleRequestAllowed({ ...input, consoleOrigin })).toBe(allowed);
  });
});
