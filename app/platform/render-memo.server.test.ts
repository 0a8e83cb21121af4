/**
 * The render memo's key (decisions 330, 421): the same data with another CSRF token and nonce is the
 * same key; the root's site data stands in it by identity (one shared object per layout). Pages past
 * their time are not kept (decision 715: the soak's heap growth).
 */
import { describe, expect, it } from "vitest";
import type { EntryContext } from "react-router";
import { rememberedRender, rememberRender, renderMemoKey, renderMemoSize } from "./render-memo.server";

const TOKEN_A = "tokenAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
const TOKEN_B = "tokenBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB";
const NONCE_A = "nonceAAAAAAAAAAAAAAAAA==";
const NONCE_B = "nonceBBBBBBBBBBBBBBBBBB==";

function context(site: object | null, rent: Record<string, unknown>, actionData: unknown = null): EntryContext {
  return {
    staticHandlerContext: {
      matches: [{ route: { id: "root" } }, { route: { id: "routes/rental/rent" } }],
      loaderData: { root: { site, isStaging: false, globalCss: "" }, "routes/rental/rent": rent },
      actionData,
      errors: null,
    },
  } as unknown as EntryContext;
}

const request = () => new Request("http://localhost/rent/1?step=details", { method: "POST" });

describe("renderMemoKey", () => {
  it("is the same for the same data with another token and nonce, and remembers the page with this answer's", () => {
    const site = { website: { websiteName: "Tidy Storage" }, menus: [] };
    const a = renderMemoKey(request(), 409, context(site, { csrfToken: TOKEN_A, blocked: "Sold out" }, { formError: "Sold out" }), NONCE_A)!;
    const b = renderMemoKey(request(), 409, context(site, { csrfToken: TOKEN_B, blocked: "Sold out" }, { formError: "Sold out" }), NONCE_B)!;
    expect(a.key).toBe(b.key);
    rememberRender(a, `<p nonce="${NONCE_A}">Sold out</p><input value="${TOKEN_A}">`, NONCE_A);
    expect(rememberedRender(b, NONCE_B)).toBe(`<p nonce="${NONCE_B}">Sold out</p><input value="${TOKEN_B}">`);
  });

  it("differs for other data: the route's, the action's, the status, and another site object", () => {
    const site = { website: { websiteName: "Tidy Storage" } };
    const key = (s: object, rent: Record<string, unknown>, action: unknown = null, status = 409) => renderMemoKey(request(), status, context(s, rent, action), NONCE_A)!.key;
    const base = key(site, { csrfToken: TOKEN_A, blocked: "Sold out" });
    expect(key(site, { csrfToken: TOKEN_A, blocked: null })).not.toBe(base);
    expect(key(site, { csrfToken: TOKEN_A, blocked: "Sold out" }, { formError: "x" })).not.toBe(base);
    expect(key(site, { csrfToken: TOKEN_A, blocked: "Sold out" }, null, 200)).not.toBe(base);
    // Another layout (the site cache dropped and read it again): another object, another key.
    expect(key({ website: { websiteName: "Tidy Storage" } }, { csrfToken: TOKEN_A, blocked: "Sold out" })).not.toBe(base);
    expect(key(site, { csrfToken: TOKEN_A, blocked: "Sold out" })).toBe(base);
  });
});

describe("the memo's memory (decision 715)", () => {
  it("keeps no page past its time: renders of many visitors' data are dropped 5 s later, not when 200 have piled up", () => {
    const site = { website: { websiteName: "Tidy Storage" } };
    // (Later than what the tests above kept, at the real clock.)
    const t0 = Date.now() + 60_000;
    const keyFor = (n: number, now: number) => renderMemoKey(request(), 200, context(site, { csrfToken: TOKEN_A, rental: n }), NONCE_A, now)!;
    // A visitor's rental form a minute, as in the soak: each one's own data, rendered once and never again.
    for (let n = 0; n < 50; n++) {
      const now = t0 + n * 60_000;
      rememberRender(keyFor(n, now), `<form>${"x".repeat(40_000)}${n}</form>`, NONCE_A, now);
      // Only this minute's page is kept (before: every one of them, until 200 were kept).
      expect(renderMemoSize()).toBe(1);
    }
    // A render of another page, 5 s after the last rental form, empties it too.
    const later = t0 + 49 * 60_000 + 5_000;
    expect(renderMemoKey(new Request("http://localhost/"), 200, { staticHandlerContext: { matches: [{ route: { id: "routes/site/home" } }], loaderData: {}, errors: null } } as unknown as EntryContext, NONCE_A, later)).toBeNull();
    expect(renderMemoSize()).toBe(0);
  });

  it("still answers a page remembered within its 5 s, and one set again lives 5 s from then", () => {
    const site = { website: { websiteName: "Tidy Storage" } };
    const t0 = Date.now() + 3_600_000 * 10;
    const k = renderMemoKey(request(), 200, context(site, { csrfToken: TOKEN_A, blocked: "Sold out" }), NONCE_A, t0)!;
    const other = renderMemoKey(request(), 200, context(site, { csrfToken: TOKEN_A, blocked: "Other" }), NONCE_A, t0)!;
    rememberRender(k, `<p>${TOKEN_A}</p>`, NONCE_A, t0);
    rememberRender(other, "<p>other</p>", NONCE_A, t0 + 1_000);
    rememberRender(k, `<p>${TOKEN_A}</p>`, NONCE_A, t0 + 3_000);
    // k was set again at +3 s: still there at +6 s, after `other` (set at +1 s) has gone.
    expect(rememberedRender(other, NONCE_A, t0 + 6_000)).toBeUndefined();
    expect(rememberedRender(k, NONCE_B, t0 + 6_000)).toBe(`<p>${TOKEN_A}</p>`.replace(TOKEN_A, k.token));
    expect(rememberedRender(k, NONCE_B, t0 + 8_000)).toBeUndefined();
    expect(renderMemoSize()).toBe(0);
  });
});
