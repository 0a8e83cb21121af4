import { describe, expect, it } from "vitest";
import { sanitizeOperatorHtml } from "./sanitize.server";

describe("sanitizeOperatorHtml (content items, policies, success messages)", () => {
  it.each([
    ["keeps formatting, lists and links", '<p>Press <strong>#</strong></p><ul><li><a href="/faqs">FAQs</a></li></ul>', '<p>Press <strong>#</strong></p><ul><li><a href="/faqs">FAQs</a></li></ul>'],
    ["removes scripts", "<p>Hi</p><script>alert(1)</script>", "<p>Hi</p>"],
    ["removes event handlers", '<p onclick="alert(1)">Hi</p>', "<p>Hi</p>"],
    ["removes javascript: links", '<a href="javascript:alert(1)">x</a>', "<a>x</a>"],
    ["removes styles and iframes", '<style>body{}</style><iframe src="https://x"></iframe><p style="color:red">x</p>', "<p>x</p>"],
    ["keeps tel: and mailto: links", '<a href="tel:+19105550134">Call</a> <a href="mailto:a@b.example">Mail</a>', '<a href="tel:+19105550134">Call</a> <a href="mailto:a@b.example">Mail</a>'],
    ["adds rel to links that open a new tab", '<a href="https://x.example" target="_blank">x</a>', '<a href="https://x.example" target="_blank" rel="noopener noreferrer">x</a>'],
    ["demotes h1 under the page's own h1", "<h1>Title</h1>", "<h2>Title</h2>"],
    ["lazy-loads images", '<img src="/images/a.png" alt="A">', '<img loading="lazy" src="/images/a.png" alt="A" />'],
    ["refuses protocol-relative URLs", '<img src="//evil.example/a.png" alt="">', '<img loading="lazy" alt="" />'],
  ])("%s", (_name, html, expected) => {
    expect(sanitizeOperatorHtml(html)).toBe(expected);
  });
});
