import { describe, expect, it } from "vitest";
import { analyticsSnippets, parseAnalyticsId } from "./analytics";

describe("parseAnalyticsId", () => {
  it.each([
    ["G-ABC123XYZ", { provider: "gtag", id: "G-ABC123XYZ" }],
    [" g-abc123 ", { provider: "gtag", id: "G-ABC123" }],
    ["UA-12345-1", { provider: "gtag", id: "UA-12345-1" }],
    ["AW-987654", { provider: "gtag", id: "AW-987654" }],
    ["GTM-K9ABCD", { provider: "gtm", id: "GTM-K9ABCD" }],
    ["", null],
    [null, null],
    [undefined, null],
    ["12345", null],
    ["G-ABC');alert(1);//", null],
    ['GTM-X"><script>', null],
  ])("%j → %j", (value, expected) => {
    expect(parseAnalyticsId(value)).toEqual(expected);
  });
});

describe("analyticsSnippets", () => {
  it("writes nothing without a tag", () => {
    expect(analyticsSnippets(null, "n0nce")).toEqual({ head: "", body: "" });
  });

  it("loads the Google tag with the CSP nonce on both scripts", () => {
    const { head, body } = analyticsSnippets({ provider: "gtag", id: "G-ABC123" }, "n0nce");
    expect(head).toContain('<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123" nonce="n0nce"></script>');
    expect(head).toContain("gtag('config','G-ABC123');");
    expect(head.match(/<script\b/g)).toHaveLength(2);
    expect(head.match(/<script nonce="n0nce">|<script async [^>]*nonce="n0nce">/g)).toHaveLength(2);
    expect(body).toBe("");
  });

  it("loads Tag Manager in the head, and its no-script frame for the body", () => {
    const { head, body } = analyticsSnippets({ provider: "gtm", id: "GTM-K9ABCD" }, "n0nce");
    expect(head.startsWith('<script nonce="n0nce">')).toBe(true);
    expect(head).toContain("'dataLayer','GTM-K9ABCD'");
    expect(body).toBe(
      '<noscript><iframe src="https://www.googletagmanager.com/ns.html?id=GTM-K9ABCD" height="0" width="0" hidden title="Google Tag Manager"></iframe></noscript>',
    );
  });

  it("leaves the nonce attribute out when there is none", () => {
    expect(analyticsSnippets({ provider: "gtag", id: "G-1" }, "").head).not.toContain("nonce");
  });
});
