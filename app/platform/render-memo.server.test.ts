/**
 * The render memo's key (decisions 330, 421): the same data with another CSRF token and nonce is the
 * same key; the root's site data stands in it by identity (one shared object per layout).
 */
import { describe, expect, it } from "vitest";
import type { EntryContext } from "react-router";
import { rememberedRender, rememberRender, renderMemoKey } from "./render-memo.server";

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
