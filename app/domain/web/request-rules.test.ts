import { describe, expect, it } from "vitest";
import { bodyLimitFor, collapseSlashes, hostnameOf, isAllowedHost, isFormContentType, siteOrigin } from "./request-rules";

describe("siteOrigin", () => {
  it.each([
    [{ domain: "www.gatehousestorage.example" }, "https://www.gatehousestorage.example"],
    [{ domain: "WWW.Example.com." }, "https://www.example.com"],
    [{ domain: "www.example.com", publicUrl: "http://localhost:3221/" }, "http://localhost:3221"],
    [{ domain: "www.example.com", publicUrl: "https://staging.example.com/some/path?q" }, "https://staging.example.com"],
  ])("%j → %s", (input, expected) => {
    expect(siteOrigin(input)).toBe(expected);
  });
});

describe("isAllowedHost", () => {
  const rules = { domain: "www.example.com", stagingDomain: "staging.example.com", publicUrl: "https://public.example.com", allowedHosts: ["internal.example.net"], production: true };
  it.each([
    ["www.example.com", true],
    ["WWW.EXAMPLE.COM:443", true],
    ["www.example.com.", true],
    ["staging.example.com", true],
    ["public.example.com", true],
    ["internal.example.net:8080", true],
    ["example.com", false],
    ["evil.example", false],
    ["www.example.com.evil.example", false],
    ["www.example.com@evil.example", false],
    ["evil.example/www.example.com", false],
    ["", false],
    ["localhost:3000", false],
    ["127.0.0.1", false],
  ])("production: %s → %s", (host, expected) => {
    expect(isAllowedHost(host, rules)).toBe(expected);
  });
  it.each([["localhost:3221"], ["127.0.0.1:80"], ["[::1]:3000"], ["localhost"]])("outside production: %s is allowed", (host) => {
    expect(isAllowedHost(host, { ...rules, production: false })).toBe(true);
  });
  it("hostnameOf strips the port and refuses junk", () => {
    expect(hostnameOf("Example.com:8080")).toBe("example.com");
    expect(hostnameOf("[::1]:3000")).toBe("[::1]");
    expect(hostnameOf("a b")).toBe("");
  });
});

describe("paths, limits and types", () => {
  it("collapses doubled slashes", () => {
    expect(collapseSlashes("//faq")).toBe("/faq");
    expect(collapseSlashes("/a///b//")).toBe("/a/b/");
    expect(collapseSlashes("/faqs")).toBeNull();
  });
  it("gives the message forms a bigger body limit", () => {
    expect(bodyLimitFor("/customer-portal/login")).toBe(16 * 1024);
    expect(bodyLimitFor("/contact")).toBe(64 * 1024);
    expect(bodyLimitFor("/contact.data")).toBe(64 * 1024);
    expect(bodyLimitFor("/locations/kinston-nc-28501")).toBe(64 * 1024);
    expect(bodyLimitFor("/locations/x/units/y")).toBe(16 * 1024);
  });
  it("accepts only form encodings", () => {
    expect(isFormContentType("application/x-www-form-urlencoded;charset=UTF-8")).toBe(true);
    expect(isFormContentType("multipart/form-data; boundary=x")).toBe(true);
    expect(isFormContentType("application/json")).toBe(false);
    expect(isFormContentType(undefined)).toBe(false);
  });
});
