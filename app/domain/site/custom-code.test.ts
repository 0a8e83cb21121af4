import { describe, expect, it } from "vitest";
import { addNonceToScripts, injectCustomCode } from "./custom-code";

const page =
  '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>T</title></head><body><a class="skip-link">Skip</a><main></main></body></html>';

describe("addNonceToScripts", () => {
  it.each([
    ["<script>a()</script>", '<script nonce="N">a()</script>'],
    ['<SCRIPT src="x.js"></SCRIPT>', '<script nonce="N" src="x.js"></SCRIPT>'],
    ['<script nonce="other">a()</script>', '<script nonce="other">a()</script>'],
    ["<scripts>not a script</scripts>", "<scripts>not a script</scripts>"],
    ["<p>no script</p>", "<p>no script</p>"],
    ["<script>a()</script><script>b()</script>", '<script nonce="N">a()</script><script nonce="N">b()</script>'],
  ])("%s → %s", (code, expected) => {
    expect(addNonceToScripts(code, "N")).toBe(expected);
  });

  it("leaves the code alone without a nonce", () => {
    expect(addNonceToScripts("<script>a()</script>", "")).toBe("<script>a()</script>");
  });
});

describe("injectCustomCode: where a site builder puts the website's code", () => {
  it("puts header code at the end of <head> and body code at the start of <body>, with the nonce", () => {
    const html = injectCustomCode(page, {
      head: '<meta name="verify" content="1"><script>h()</script>',
      body: "<script>b()</script>",
      nonce: "N",
    });
    expect(html).toBe(
      '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>T</title><meta name="verify" content="1"><script nonce="N">h()</script></head>' +
        '<body><script nonce="N">b()</script><a class="skip-link">Skip</a><main></main></body></html>',
    );
  });

  it("puts the analytics tag right after the charset and its no-script part first in <body>", () => {
    const html = injectCustomCode(page, {
      head: "<!--head-->",
      body: "<!--body-->",
      analyticsHead: '<script nonce="N">ga()</script>',
      analyticsBody: "<noscript>gtm</noscript>",
      nonce: "N",
    });
    expect(html).toBe(
      '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><script nonce="N">ga()</script><title>T</title><!--head--></head>' +
        '<body><noscript>gtm</noscript><!--body--><a class="skip-link">Skip</a><main></main></body></html>',
    );
  });

  it("copies the operator's code exactly, even with $ replacement patterns", () => {
    const html = injectCustomCode(page, { head: "<style>a{content:'$&'}</style>", body: "<p>$1 $' $`</p>", nonce: "" });
    expect(html).toContain("<style>a{content:'$&'}</style></head>");
    expect(html).toContain("<body><p>$1 $' $`</p><a");
  });

  it("changes nothing when there is no code", () => {
    expect(injectCustomCode(page, { head: "  ", body: "", nonce: "N" })).toBe(page);
  });

  it("inserts each piece once, into the first <head> and <body> only", () => {
    const html = injectCustomCode(page.replace("<main></main>", "<main><pre>&lt;/head&gt; <body></pre></main>"), {
      head: "<!--H-->",
      body: "<!--B-->",
      nonce: "",
    });
    expect(html.match(/<!--H-->/g)).toHaveLength(1);
    expect(html.match(/<!--B-->/g)).toHaveLength(1);
    expect(html.indexOf("<!--H-->")).toBeLessThan(html.indexOf("</head>"));
  });
});
