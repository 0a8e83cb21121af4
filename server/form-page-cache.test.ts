import { describe, expect, it } from "vitest";
import { csrfFieldValue, fillFormPage, FormPageCache, formPageKey } from "./form-page-cache";

const page = { status: 200, headers: [["content-type", "text/html"]] as Array<[string, string]>, html: '<script nonce="N0nce-old-0123456789">1</script><input type="hidden" name="csrf" value="TOKENold_TOKENold_TOKENold"/><p>TOKENold_TOKENold_TOKENold</p>', token: "TOKENold_TOKENold_TOKENold", nonce: "N0nce-old-0123456789" };

describe("the kept rental form (decision 330)", () => {
  it("is only for a GET of /rent/{id} exactly, without any cookie", () => {
    const req = (method: string, originalUrl: string, cookie?: string) => ({ method, originalUrl, headers: { host: "example.com", ...(cookie !== undefined ? { cookie } : {}) } });
    expect(formPageKey(req("GET", "/rent/12"))).toBe("example.com /rent/12");
    expect(formPageKey(req("GET", "/rent/12", "csrf=x"))).toBeNull();
    expect(formPageKey(req("GET", "/rent/12", ""))).toBeNull();
    expect(formPageKey(req("POST", "/rent/12"))).toBeNull();
    expect(formPageKey(req("HEAD", "/rent/12"))).toBeNull();
    expect(formPageKey(req("GET", "/rent/12?step=details"))).toBeNull();
    expect(formPageKey(req("GET", "/rent/12/confirmation"))).toBeNull();
    expect(formPageKey(req("GET", "/rent/12.data"))).toBeNull();
  });

  it("puts this answer's token and nonce wherever the kept copy had its own", () => {
    const html = fillFormPage({ ...page, validUntil: 0 }, "TOKENnew_TOKENnew_TOKENnew", "N0nce-new-0123456789");
    expect(html).not.toContain("old");
    expect(html.match(/TOKENnew_TOKENnew_TOKENnew/g)).toHaveLength(2);
    expect(csrfFieldValue(html, "csrf")).toBe("TOKENnew_TOKENnew_TOKENnew");
    expect(csrfFieldValue("<p>no form</p>", "csrf")).toBeNull();
  });

  it("keeps a copy at most 5 s, to the next minute and to the next availability change; a change drops it; a render from before a change is not kept", () => {
    let now = Date.UTC(2026, 10, 27, 4, 0, 10);
    const cache = new FormPageCache(() => now);
    cache.set("k", cache.generation, page, null);
    expect(cache.get("k")?.html).toBe(page.html);
    now += 5_000;
    expect(cache.get("k")).toBeUndefined();

    cache.set("k", cache.generation, page, now + 1_000);
    now += 1_000;
    expect(cache.get("k")).toBeUndefined();

    now = Date.UTC(2026, 10, 27, 4, 0, 58);
    cache.set("k", cache.generation, page, null);
    now = Date.UTC(2026, 10, 27, 4, 1, 0);
    expect(cache.get("k")).toBeUndefined();

    cache.set("k", cache.generation, page, null);
    cache.invalidate();
    expect(cache.get("k")).toBeUndefined();
    const before = cache.generation;
    cache.invalidate();
    cache.set("k", before, page, null);
    expect(cache.get("k")).toBeUndefined();
  });
});
