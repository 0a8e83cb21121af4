import { expect } from "vitest";

/** The form token a page's form carries. */
const csrfTokenOf = (html: string) => /<input[^>]*name="csrf"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? null;

/**
 * A visitor over HTTP with a cookie jar of its own, as a browser without JavaScript: `get` follows no
 * redirect; `post` reads the page first (its form token and cookies) and sends the form as a browser would.
 */
export function visitor(origin: () => string) {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const keep = (h: Headers) => {
    for (const c of h.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair!.indexOf("=");
      jar.set(pair!.slice(0, i), pair!.slice(i + 1));
    }
  };
  return {
    async get(path: string) {
      const r = await fetch(origin() + path, { headers: { Cookie: cookie() }, redirect: "manual" });
      keep(r.headers);
      return { status: r.status, location: r.headers.get("location"), body: await r.text() };
    },
    async post(path: string, fields: Record<string, string>) {
      const page = await this.get(path);
      expect(page.status, page.body.slice(0, 300)).toBe(200);
      const r = await fetch(origin() + path, {
        method: "POST",
        redirect: "manual",
        headers: { Cookie: cookie(), "Content-Type": "application/x-www-form-urlencoded", Origin: origin() },
        body: new URLSearchParams({ csrf: csrfTokenOf(page.body)!, ...fields }).toString(),
      });
      keep(r.headers);
      return { status: r.status, location: r.headers.get("location"), body: await r.text(), page: page.body };
    },
  };
}
