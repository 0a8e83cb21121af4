/**
 * Pages rendered once for many answers (issue 22, docs/decisions/330-rental-form-rendered-once.md):
 * in a rush, 999 visitors who lose the last unit get the same "sold out" page, and visitors opening
 * the same rental form the same form; rendering each took ~2–10 ms of CPU. A render is a function of
 * what React Router hands entry.server.tsx (the URL, the status, every route's loader and action
 * data, the errors) and the CSP nonce, so a page whose whole data is the same as a page rendered a
 * moment ago is that page, with this answer's own per-response pieces: the CSRF token (masked afresh
 * for each answer) and the nonce, which are taken out of the key and put back into the HTML.
 *
 * Only the routes listed (the rental form: its data has the token), only what rendered without an
 * error; an entry lives `RENDER_MEMO_TTL_MS` at most (nothing the page shows is missing from its
 * key, the limit only bounds a clock-dependent detail and the memory), at most `MAX_ENTRIES`.
 * An entry past its time is dropped at the next render of any page (decision 715): before, it stayed
 * until the memo was full, so each process kept up to 200 expired pages (~45 KB of HTML each, plus
 * their keys) — the soak's heap growing 6–9 MB an hour (docs/operations.md "The soak").
 * Visitor-specific data (a rental, typed values, a signed-in tenant) is part of the key, so it is
 * never shown to anyone else: a visitor with different data is rendered.
 */
import type { EntryContext } from "react-router";

const MEMO_ROUTES = new Set(["routes/rental/rent"]);
const RENDER_MEMO_TTL_MS = 5_000;
const MAX_ENTRIES = 200;

interface Rendered {
  html: string;
  token: string;
  nonce: string;
  until: number;
}

/** In order of expiry: every entry lives the same time, and one set again is moved to the end. */
const memo = new Map<string, Rendered>();

/** Drops the entries past their time (from the oldest; stops at the first one still good). */
function dropExpired(now: number): void {
  for (const [key, entry] of memo) {
    if (entry.until > now) return;
    memo.delete(key);
  }
}

/** How many renders are kept (tests). */
export const renderMemoSize = (): number => memo.size;

interface MemoKey {
  key: string;
  token: string;
}

/** The key of a render that may be reused, or null (another route, an error, no CSRF token in the data). */
export function renderMemoKey(request: Request, status: number, routerContext: EntryContext, nonce: string, now = Date.now()): MemoKey | null {
  // Every page's render passes here: the memo is emptied of old pages even when nobody rents.
  dropExpired(now);
  const ctx = routerContext.staticHandlerContext;
  const leaf = ctx.matches.at(-1)?.route.id;
  if (!leaf || !MEMO_ROUTES.has(leaf) || ctx.errors || nonce.length < 16) return null;
  const token = (ctx.loaderData[leaf] as { csrfToken?: unknown } | undefined)?.csrfToken;
  if (typeof token !== "string" || token.length < 22) return null;
  // The root's `site` (the layout: menus, locations, footer; most of the data) is one shared object per
  // layout, never changed (root.tsx, decision 421): it stands in the key by its identity, not its JSON.
  // The rest is this request's own.
  const { root, ...routes } = ctx.loaderData as Record<string, unknown>;
  const { site, ...rootRest } = (root ?? {}) as { site?: unknown };
  const own = JSON.stringify([request.method, request.url, status, rootRest, routes, ctx.actionData ?? null]);
  return { key: `${siteId(site)}\u0000${own.split(token).join("\u0000csrf\u0000").split(nonce).join("\u0000nonce\u0000")}`, token };
}

/** A number per site object (never reused while the object lives), or its JSON when it is not an object. */
const siteIds = new WeakMap<object, number>();
let lastSiteId = 0;
function siteId(site: unknown): string {
  if (typeof site !== "object" || site === null) return JSON.stringify(site ?? null);
  let id = siteIds.get(site);
  if (id === undefined) siteIds.set(site, (id = ++lastSiteId));
  return `#${id}`;
}

/** A page rendered for the same data a moment ago, with this answer's token and nonce; or undefined. */
export function rememberedRender(k: MemoKey, nonce: string, now = Date.now()): string | undefined {
  dropExpired(now);
  const hit = memo.get(k.key);
  // (Past its time but not dropped: only when the clock went back since it was set.)
  if (!hit || hit.until <= now) return undefined;
  return hit.html.split(hit.token).join(k.token).split(hit.nonce).join(nonce);
}

export function rememberRender(k: MemoKey, html: string, nonce: string, now = Date.now()): void {
  dropExpired(now);
  memo.delete(k.key);
  if (memo.size >= MAX_ENTRIES) memo.delete(memo.keys().next().value!);
  memo.set(k.key, { html, token: k.token, nonce, until: now + RENDER_MEMO_TTL_MS });
}
