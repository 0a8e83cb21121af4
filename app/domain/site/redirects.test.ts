import { describe, expect, it } from "vitest";
import {
  MAX_REDIRECT_HOPS,
  redirectChainProblem,
  bareHostname,
  externalRedirectHost,
  isSafeRedirectTarget,
  findRedirectLoop,
  matchRedirect,
  normalizePath,
  parseRedirectsText,
  redirectTarget,
  validateRedirectRule,
  type RedirectRule,
} from "./redirects";

const rule = (fromPath: string, toPath: string): RedirectRule => ({ fromPath, toPath, statusCode: 301 });

// Spec §2's permanent redirects, as the seed stores them.
const specRules = [
  rule("/contact-us", "/contact"),
  rule("/faq", "/faqs"),
  rule("/payonline", "/customer-portal/login"),
  rule("/privacy", "/privacy-policy"),
  rule("/terms", "/privacy-policy"),
  rule("/self-storage", "/view-locations"),
  rule("/4350-fayetteville-rd", "/view-locations"),
];

describe("normalizePath", () => {
  it.each([
    ["/Contact-Us", "/contact-us"],
    ["/contact-us/", "/contact-us"],
    ["/contact-us///", "/contact-us"],
    ["contact-us", "/contact-us"],
    ["//faq", "/faq"],
    ["/a//b", "/a/b"],
    ["/faq?x=1#top", "/faq"],
    ["/caf%C3%A9", "/café"],
    ["/bad%E0%A4%A", "/bad%e0%a4%a"],
    ["/", "/"],
    ["", "/"],
  ])("%j → %j", (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });
});

describe("matchRedirect: case-insensitive, with or without a trailing slash", () => {
  it.each([
    ["/contact-us", "/contact"],
    ["/CONTACT-US", "/contact"],
    ["/Contact-Us/", "/contact"],
    ["/faq", "/faqs"],
    ["/FAQ/", "/faqs"],
    ["/payonline", "/customer-portal/login"],
    ["/PayOnline", "/customer-portal/login"],
    ["/privacy", "/privacy-policy"],
    ["/terms/", "/privacy-policy"],
    ["/Self-Storage", "/view-locations"],
    ["/4350-Fayetteville-Rd/", "/view-locations"],
    ["/faqs", undefined],
    ["/contact-us/more", undefined],
    ["/", undefined],
  ])("%s → %s", (path, target) => {
    expect(matchRedirect(specRules, path)?.toPath).toBe(target);
  });
});

describe("redirectTarget keeps the query string", () => {
  it.each([
    ["/contact", "", "/contact"],
    ["/contact", "?", "/contact"],
    ["/contact", "?utm_source=mail&x=1", "/contact?utm_source=mail&x=1"],
    ["/faqs", "?q=a%20b", "/faqs?q=a+b"],
    // The target's own query wins on clashes and is kept otherwise.
    ["/units?location=lumberton-nc-28358", "?location=other&size=10x10", "/units?location=lumberton-nc-28358&size=10x10"],
    ["/units?location=lumberton-nc-28358", "", "/units?location=lumberton-nc-28358"],
    ["https://www.example.com/locations/x", "?utm=1", "https://www.example.com/locations/x?utm=1"],
  ])("%s + %j → %s", (to, search, expected) => {
    expect(redirectTarget(to, search)).toBe(expected);
  });
});

describe("findRedirectLoop", () => {
  it.each([
    ["a new rule to a page", specRules, rule("/old-about", "/about"), null],
    ["a rule to itself", [], rule("/a", "/a"), "This redirect would make a loop: /a → /a"],
    ["a rule to itself, other case and slash", [], rule("/a", "/A/"), "This redirect would make a loop: /a → /A/"],
    ["a two-step loop", [rule("/b", "/a")], rule("/a", "/b"), "This redirect would make a loop: /a → /b → /a"],
    [
      "a three-step loop",
      [rule("/b", "/c"), rule("/c", "/a")],
      rule("/a", "/b"),
      "This redirect would make a loop: /a → /b → /c → /a",
    ],
    ["a chain that ends", [rule("/b", "/c")], rule("/a", "/b"), null],
    ["replacing the rule that made the chain", [rule("/a", "/b"), rule("/b", "/c")], rule("/a", "/c"), null],
    ["a loop on a spec path", specRules, rule("/contact", "/contact-us"), "This redirect would make a loop: /contact → /contact-us → /contact"],
    ["a loop further down the chain", [rule("/b", "/c"), rule("/c", "/b")], rule("/a", "/b"), "This redirect would make a loop: /a → /b → /c → /b"],
    ["an external target never loops", [rule("/b", "/a")], rule("/a", "https://elsewhere.example/b"), null],
  ])("%s", (_name, existing, candidate, expected) => {
    expect(findRedirectLoop(existing, candidate)).toBe(expected);
  });

  it("follows absolute URLs on the primary domain, with or without www", () => {
    const existing = [rule("/b", "https://gatehousestorage.example/a")];
    expect(findRedirectLoop(existing, rule("/a", "/b"), { primaryHost: "www.gatehousestorage.example" })).toBe(
      "This redirect would make a loop: /a → /b → https://gatehousestorage.example/a",
    );
    expect(
      findRedirectLoop([], rule("/a", "https://WWW.gatehousestorage.example/A/"), { primaryHost: "www.gatehousestorage.example" }),
    ).toMatch(/loop/);
    expect(findRedirectLoop(existing, rule("/a", "/b"))).toBeNull();
  });
});

const BACKSLASH = "The new path cannot contain a backslash (\\): browsers read it as /, which can lead to another site.";
const SPACES = "The new path cannot contain spaces, tabs or line breaks.";
const NOT_A_PATH = "The new path must be a path like /contact or a full http(s) address.";

describe("validateRedirectRule", () => {
  it.each([
    ["/contact-us", "/contact", null],
    ["/payonline", "https://pay.example.com/x?y=1", null],
    ["contact-us", "/contact", "The old path must start with a single /, like /contact-us."],
    ["//evil.example", "/contact", "The old path must start with a single /, like /contact-us."],
    ["/a?b=1", "/contact", "The old path cannot contain spaces, ? or #."],
    ["/", "/contact", "The home page cannot be redirected."],
    ["/a", "", "Enter where the old path should go."],
    ["/a", "//evil.example/x", "The new path must be a path like /contact or a full http(s) address."],
    ["/a", "javascript:alert(1)", "The new path must be a path like /contact or a full http(s) address."],
    ["/a", "contact", "The new path must be a path like /contact or a full http(s) address."],
    // Issue 36: every form a browser reads as another host (the review's "/\\evil.example" first).
    ["/a", "/\\evil.example", BACKSLASH],
    ["/a", "\\\\evil.example", BACKSLASH],
    ["/a", "/\\/evil.example", BACKSLASH],
    ["/a", "https://ok.example\\@evil.example", BACKSLASH],
    ["/a", "/%5Cevil.example", BACKSLASH],
    ["/a", "/%5cevil.example", BACKSLASH],
    ["/a", "/\t/evil.example", SPACES],
    ["/a", "/\n/evil.example", SPACES],
    ["/a", "/\r\n/evil.example", SPACES],
    ["/a", "/%09/evil.example", SPACES],
    ["/a", "/%0a/evil.example", SPACES],
    ["/a", "/%2F/evil.example", NOT_A_PATH],
    ["/a", "/%2fevil.example", NOT_A_PATH],
    ["/a", "/\u0000/evil.example", SPACES],
    ["/a", "https://www.example.com@evil.example/", NOT_A_PATH],
    ["/a", "http:/evil.example", NOT_A_PATH],
    ["/a", "https:evil.example", NOT_A_PATH],
    ["/a", "https://evil.example/path", null],
  ])("%s → %s: %s", (fromPath, toPath, expected) => {
    expect(validateRedirectRule({ fromPath, toPath })).toBe(expected);
  });
});

describe("bareHostname: old domains match with and without www, any case and port", () => {
  it.each([
    ["lumbertonselfstorage.example", "lumbertonselfstorage.example"],
    ["www.lumbertonselfstorage.example", "lumbertonselfstorage.example"],
    ["WWW.LumbertonSelfStorage.example", "lumbertonselfstorage.example"],
    ["www.lumbertonselfstorage.example:443", "lumbertonselfstorage.example"],
    ["lumbertonselfstorage.example.", "lumbertonselfstorage.example"],
    ["wwwx.example", "wwwx.example"],
    ["", ""],
    [undefined, ""],
  ])("%j → %j", (host, expected) => {
    expect(bareHostname(host)).toBe(expected);
  });
});

describe("parseRedirectsText", () => {
  it("reads one pair a line, skipping blanks, comments and lines that are not paths", () => {
    expect(
      parseRedirectsText("/contact-us /contact\r\n\n# old pages\n  /faq   /faqs  \nnot-a-path /x\n/only-from\n"),
    ).toEqual([
      { fromPath: "/contact-us", toPath: "/contact" },
      { fromPath: "/faq", toPath: "/faqs" },
    ]);
  });
});

describe("redirectChainProblem (the console, over the live rules with the draft over them)", () => {
  it.each([
    ["no chain", [], { fromPath: "/a", toPath: "/b" }, null],
    ["a chain that ends", [{ fromPath: "/b", toPath: "/c" }], { fromPath: "/a", toPath: "/b" }, null],
    ["a loop back to its source", [{ fromPath: "/b", toPath: "/a" }], { fromPath: "/A/", toPath: "/b" }, "This redirect would make a loop: /a → /b → /a"],
    ["into a loop of other rules", [{ fromPath: "/b", toPath: "/c" }, { fromPath: "/c", toPath: "/b" }], { fromPath: "/a", toPath: "/b" }, "This redirect would lead into a chain that never ends: /a → /b → /c → /b → …"],
    ["a loop through the primary domain", [{ fromPath: "/b", toPath: "https://www.example.com/a" }], { fromPath: "/a", toPath: "/b" }, "This redirect would make a loop: /a → /b → https://www.example.com/a"],
    ["leaving the site ends it", [{ fromPath: "/b", toPath: "https://other.example/a" }], { fromPath: "/a", toPath: "/b" }, null],
  ] as const)("%s", (_n, rules, candidate, message) => {
    expect(redirectChainProblem(rules, candidate, { primaryHost: "example.com" })).toBe(message);
  });

  it("refuses a chain longer than MAX_REDIRECT_HOPS", () => {
    const rules = Array.from({ length: MAX_REDIRECT_HOPS }, (_, i) => ({ fromPath: `/p${i}`, toPath: `/p${i + 1}` }));
    expect(redirectChainProblem(rules, { fromPath: "/start", toPath: "/p0" })).toMatch(/^This redirect would start a chain of more than 10 redirects/);
    expect(redirectChainProblem(rules.slice(0, MAX_REDIRECT_HOPS - 1), { fromPath: "/start", toPath: "/p0" })).toBeNull();
  });
});

describe("isSafeRedirectTarget and externalRedirectHost (issue 36)", () => {
  it.each(["/\\evil.example", "\\\\evil.example", "//evil.example", "/\t/evil.example", "/%5Cevil.example", "/%2F/evil.example", "/ /x", "java\nscript:alert(1)", "https://a@evil.example/"])(
    "%j is not followed",
    (target) => {
      expect(isSafeRedirectTarget(target)).toBe(false);
      if (!/\s/.test(target)) expect(parseRedirectsText(`/old ${target}`)).toEqual([]);
    },
  );
  it.each(["/contact", "/a/b?c=1#d", "https://pay.example.com/x?y=1"])("%j is followed", (target) => {
    expect(isSafeRedirectTarget(target)).toBe(true);
  });
  it("names the host of a target off the site, not one on the primary host", () => {
    expect(externalRedirectHost("https://Pay.Example.com/x", "gatehouse.example")).toBe("pay.example.com");
    expect(externalRedirectHost("https://www.gatehouse.example/x", "gatehouse.example")).toBeNull();
    expect(externalRedirectHost("/contact", "gatehouse.example")).toBeNull();
  });
});
