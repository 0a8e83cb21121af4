import { describe, expect, it } from "vitest";
import { buildSitemap, PUBLIC_PATHS } from "./sitemap";

describe("PUBLIC_PATHS", () => {
  it("lists every public page of spec §2", () => {
    expect([...PUBLIC_PATHS].sort()).toEqual(
      [
        "/",
        "/view-locations",
        "/about",
        "/portable-storage",
        "/contact",
        "/faqs",
        "/storage-tips",
        "/size-guide",
        "/privacy-policy",
        "/customer-portal/login",
        "/units",
      ].sort(),
    );
  });
});

describe("buildSitemap", () => {
  const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);

  it("lists each path once on the origin, in order", () => {
    const xml = buildSitemap("https://www.example.com", ["/", "/faqs", "/locations/lumberton-nc-28358", "/faqs"]);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')).toBe(true);
    expect(xml.trimEnd().endsWith("</urlset>")).toBe(true);
    expect(locs(xml)).toEqual([
      "https://www.example.com/",
      "https://www.example.com/faqs",
      "https://www.example.com/locations/lumberton-nc-28358",
    ]);
  });

  it("escapes XML special characters", () => {
    expect(locs(buildSitemap("https://x.example", ["/a?b=1&c='2'"]))).toEqual(["https://x.example/a?b=1&amp;c=&apos;2&apos;"]);
  });

  it("is a valid empty set with no paths", () => {
    expect(locs(buildSitemap("https://x.example", []))).toEqual([]);
  });
});
