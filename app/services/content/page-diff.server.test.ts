import { describe, expect, it } from "vitest";
import { lineDiff, pageText, sitemapPaths } from "./page-diff.server";
import { isPreviewablePath, previewReturnPath } from "~/domain/content/preview";

describe("pageText", () => {
  it("keeps the title, the description and the visible text of the body (menus and footer too, the preview banner left out), one line per block or table row", () => {
    const html = `<!doctype html><html><head><title>Lumberton | Storage</title><meta name="description" content="Drive-up units"><script>var x = 1</script></head>
      <body><header><nav>Menu</nav></header><section class="preview-banner" aria-label="Preview"><p>Banner</p></section>
      <main><h1>Lumberton  &amp; more</h1><p>Open <strong>late</strong></p><div hidden>secret</div><span aria-hidden="true">icon</span>
      <table><tr><th scope="row">Sat</th><td>9:00 AM – 2:00 PM</td></tr></table><img src="/a.webp" alt="The gate"><script type="application/ld+json">{}</script>
      <style>.x{}</style></main><footer>Footer</footer></body></html>`;
    expect(pageText(html).split("\n")).toEqual([
      "Title: Lumberton | Storage",
      "Description: Drive-up units",
      "Menu",
      "Lumberton & more",
      "Open late",
      "Sat · 9:00 AM – 2:00 PM",
      "The gate",
      "Footer",
    ]);
  });
});

describe("lineDiff", () => {
  it("marks added and removed lines and cuts long unchanged runs to two lines around a change", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h"].join("\n");
    const after = ["a", "b", "c", "d", "e", "F", "g", "h"].join("\n");
    expect(lineDiff(before, after)).toEqual([
      { kind: "skipped", text: "3 unchanged lines" },
      { kind: "same", text: "d" },
      { kind: "same", text: "e" },
      { kind: "removed", text: "f" },
      { kind: "added", text: "F" },
      { kind: "same", text: "g" },
      { kind: "same", text: "h" },
    ]);
  });

  it("shows two long texts that share almost nothing as the old lines removed and the new ones added, without searching every alignment", () => {
    const before = Array.from({ length: 1_500 }, (_, i) => `old line ${i}`).join("\n");
    const after = Array.from({ length: 1_500 }, (_, i) => `new line ${i}`).join("\n");
    const lines = lineDiff(before, after);
    expect(lines).toHaveLength(3_000);
    expect(lines.slice(0, 1_500).every((l) => l.kind === "removed")).toBe(true);
    expect(lines.slice(1_500).every((l) => l.kind === "added")).toBe(true);
    expect(lines[0]).toEqual({ kind: "removed", text: "old line 0" });
    expect(lines[1_500]).toEqual({ kind: "added", text: "new line 0" });
  });

  it("keeps the two unchanged lines on each side of every change, and counts the rest", () => {
    const before = Array.from({ length: 12 }, (_, i) => `l${i}`);
    const after = before.map((l, i) => (i === 2 || i === 9 ? `${l}!` : l));
    expect(lineDiff(before.join("\n"), after.join("\n")).map((l) => `${l.kind}: ${l.text}`)).toEqual([
      "same: l0",
      "same: l1",
      "removed: l2",
      "added: l2!",
      "same: l3",
      "same: l4",
      "skipped: 2 unchanged lines",
      "same: l7",
      "same: l8",
      "removed: l9",
      "added: l9!",
      "same: l10",
      "same: l11",
    ]);
  });

  it("shows a new page as all added", () => {
    expect(lineDiff("", "x\ny")).toEqual([
      { kind: "added", text: "x" },
      { kind: "added", text: "y" },
    ]);
  });
});

describe("sitemapPaths", () => {
  it("gives each <loc>'s path and query, whatever its origin", () => {
    expect(sitemapPaths("<urlset><url><loc>https://a.example/</loc></url><url><loc>https://a.example/units?size=10x10&amp;t=1</loc></url></urlset>")).toEqual([
      "/",
      "/units?size=10x10&t=1",
    ]);
  });
});

describe("preview paths", () => {
  it.each([
    ["/", true],
    ["/locations/lumberton-nc-28358", true],
    ["/sitemap.xml", true],
    ["/rent/12", false],
    ["/reserve/12", false],
    ["/pay/abc", false],
    ["/customer-portal", false],
    ["/customer-portal/login", false],
    ["/admin/changes", false],
    ["/rentals", true],
  ])("%s previewable: %s", (path, expected) => {
    expect(isPreviewablePath(path)).toBe(expected);
  });

  it("goes back only to a safe local path", () => {
    expect(previewReturnPath("/faqs")).toBe("/faqs");
    expect(previewReturnPath("//evil.example")).toBe("/admin/changes");
    expect(previewReturnPath("https://evil.example/")).toBe("/admin/changes");
    expect(previewReturnPath(undefined, "/")).toBe("/");
  });
});
