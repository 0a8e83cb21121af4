import { describe, expect, it } from "vitest";
import { busySignInKey, csrfFieldValue, escapeAttribute, fillFormPage, FormPageCache, formPageKey, occursOnce, soldOutAnswerKey } from "./form-page-cache";

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

describe("the kept sold-out answer (decision 426)", () => {
  const FORM = "application/x-www-form-urlencoded";
  const req = (originalUrl: string, cookie?: string, contentType = FORM, method = "POST") => ({
    method,
    originalUrl,
    headers: { host: "example.com", "content-type": contentType, ...(cookie !== undefined ? { cookie } : {}) },
  });

  it("is only for a form POSTed to /rent/{id}?step=details by a visitor whose one cookie is the CSRF cookie", () => {
    expect(soldOutAnswerKey(req("/rent/12?step=details", "csrf=abc"), "csrf")).toBe("POST example.com /rent/12?step=details");
    expect(soldOutAnswerKey(req("/rent/12?step=details", " csrf=abc "), "csrf")).not.toBeNull();
    expect(soldOutAnswerKey(req("/rent/12?step=details", "csrf=abc; checkout=1"), "csrf")).toBeNull();
    expect(soldOutAnswerKey(req("/rent/12?step=details", "session=1"), "csrf")).toBeNull();
    expect(soldOutAnswerKey(req("/rent/12?step=details", "__Host-csrf=abc"), "csrf")).toBeNull();
    expect(soldOutAnswerKey(req("/rent/12?step=details"), "csrf")).toBeNull();
    expect(soldOutAnswerKey(req("/rent/12?step=details", "csrf=abc", "multipart/form-data; boundary=x"), "csrf")).toBeNull();
    expect(soldOutAnswerKey(req("/rent/12?step=details", "csrf=abc", FORM, "GET"), "csrf")).toBeNull();
    expect(soldOutAnswerKey(req("/rent/12?step=pay", "csrf=abc"), "csrf")).toBeNull();
    expect(soldOutAnswerKey(req("/rent/12", "csrf=abc"), "csrf")).toBeNull();
    expect(soldOutAnswerKey(req("/rent/12.data?step=details", "csrf=abc"), "csrf")).toBeNull();
  });

  it("fills in the nonce of a page without a form, and the token where it has one", () => {
    const noForm = { ...page, html: '<script nonce="N0nce-old-0123456789">1</script><p>Sold out</p>', token: null, validUntil: 0 };
    expect(fillFormPage(noForm, "TOKENnew_TOKENnew_TOKENnew", "N0nce-new-0123456789")).toBe('<script nonce="N0nce-new-0123456789">1</script><p>Sold out</p>');
  });
});

describe("the kept busy sign-in page (decision 428)", () => {
  const req = (originalUrl: string, cookie?: string, contentType = "application/x-www-form-urlencoded") => ({
    method: "POST",
    originalUrl,
    headers: { host: "example.com", "content-type": contentType, ...(cookie !== undefined ? { cookie } : {}) },
  });

  it("is only for a form POSTed to /customer-portal/login exactly by a visitor whose one cookie is the CSRF cookie", () => {
    expect(busySignInKey(req("/customer-portal/login", "csrf=abc"), "csrf")).toBe("POST example.com /customer-portal/login");
    expect(busySignInKey(req("/customer-portal/login?redirectTo=%2Fcustomer-portal%2Fpay", "csrf=abc"), "csrf")).toBeNull();
    expect(busySignInKey(req("/customer-portal/login", "csrf=abc; session=1"), "csrf")).toBeNull();
    expect(busySignInKey(req("/customer-portal/login"), "csrf")).toBeNull();
    expect(busySignInKey(req("/admin/sign-in", "csrf=abc"), "csrf")).toBeNull();
    expect(busySignInKey(req("/customer-portal/login", "csrf=abc", "multipart/form-data; boundary=x"), "csrf")).toBeNull();
  });

  it("fills in the visitor's e-mail where the kept page had the first one's, escaped as React writes attributes", () => {
    expect(escapeAttribute(`o'brien&"<x>"@example.com`)).toBe("o&#x27;brien&amp;&quot;&lt;x&gt;&quot;@example.com");
    const busy = {
      ...page,
      html: '<script nonce="N0nce-old-0123456789">1</script><input type="hidden" name="csrf" value="TOKENold_TOKENold_TOKENold"/><input name="email" value="first@example.com"/><p>first@example.com is not shown twice</p>',
      typed: 'value="first@example.com"',
      validUntil: 0,
    };
    const html = fillFormPage(busy, "TOKENnew_TOKENnew_TOKENnew", "N0nce-new-0123456789", `value="${escapeAttribute("o'brien@example.com")}"`);
    expect(html).toContain('<input name="email" value="o&#x27;brien@example.com"/>');
    expect(html).toContain("<p>first@example.com is not shown twice</p>");
    expect(html).not.toContain("old");
    expect(occursOnce(busy.html, 'value="first@example.com"')).toBe(true);
    expect(occursOnce(busy.html, "first@example.com")).toBe(false);
    expect(occursOnce(busy.html, "")).toBe(false);
  });
});
