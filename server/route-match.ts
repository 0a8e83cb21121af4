/**
 * Which route renders a request, decided before React Router runs (issue 19): the security headers
 * of a payment page are chosen here, and a page asked for with another spelling of its path is sent
 * to its canonical one. The routes are the build's own (`build.routes`), matched with React Router's
 * own `matchRoutes`, so the server agrees with the router on every spelling the router accepts
 * (any letter case, a trailing slash, percent-encoded letters, dot segments): docs/decisions/190.
 */
import { matchRoutes, type RouteObject } from "react-router";
import type { ServerBuild } from "react-router";
import { isPasswordRoute, isPaymentRoute } from "~/domain/payments/pages";
import { isConsoleRoute } from "~/domain/console/pages";

interface Node {
  id: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  handle?: unknown;
  children: Node[];
}

export interface MatchedPage {
  /** A route of the match has `handle.paymentPage` (docs/decisions/075, 190). */
  paymentPage: boolean;
  /** A route of the match has `handle.consolePage` (the back office, issue 23). */
  consolePage?: boolean;
  /** A route of the match has `handle.passwordPage` (issue 36, decision 464): first-party code only. */
  passwordPage?: boolean;
  /**
   * The path as the route table spells it (static segments as declared, dynamic ones as sent, no
   * trailing slash), when it differs from the path sent; null when the path is already canonical or
   * only the catch-all route matched.
   */
  canonicalPath: string | null;
}

/** The route tree of a build, for `matchRoutes` (parents before children, as in the manifest). */
export function routeTree(routes: ServerBuild["routes"]): RouteObject[] {
  const nodes = new Map<string, Node>();
  for (const route of Object.values(routes)) {
    if (!route) continue;
    nodes.set(route.id, { id: route.id, path: route.path, index: route.index, caseSensitive: route.caseSensitive, handle: route.module?.handle, children: [] });
  }
  const roots: Node[] = [];
  for (const route of Object.values(routes)) {
    if (!route) continue;
    const node = nodes.get(route.id)!;
    const parent = route.parentId ? nodes.get(route.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const toObject = (node: Node): RouteObject =>
    node.index
      ? { id: node.id, index: true, handle: node.handle, caseSensitive: node.caseSensitive }
      : { id: node.id, path: node.path, handle: node.handle, caseSensitive: node.caseSensitive, children: node.children.map(toObject) };
  return roots.map(toObject);
}

/** The path part of an origin-form request target as sent ("/Rent/12/?step=pay" → "/Rent/12/"). */
function sentPath(target: string): string {
  const q = target.indexOf("?");
  return q === -1 ? target : target.slice(0, q);
}

/**
 * The page a request target (origin-form, as sent: `req.originalUrl`) renders. React Router is given
 * the WHATWG-parsed URL (`fetchRequest`, server/fetch-request.ts), so the same parse is matched here.
 */
export function matchPage(tree: RouteObject[], target: string): MatchedPage {
  // The answer depends only on the path as sent (issue 22: React Router's matchRoutes flattens and
  // ranks the whole route table on every call, ~1 ms of CPU per request in a rush), so it is kept per
  // path, a bounded number of paths per tree.
  const key = sentPath(target);
  let memo = matched.get(tree);
  if (!memo) matched.set(tree, (memo = new Map()));
  const known = memo.get(key);
  if (known) return known;
  const page = Object.freeze(matchPageUncached(tree, target));
  if (memo.size >= MATCHED_PATHS) memo.clear();
  memo.set(key, page);
  return page;
}

/** How many paths' matches are kept per route tree (past it, the memo starts again). */
const MATCHED_PATHS = 5_000;
const matched = new WeakMap<RouteObject[], Map<string, MatchedPage>>();

function matchPageUncached(tree: RouteObject[], target: string): MatchedPage {
  let pathname: string;
  try {
    pathname = new URL(target, "http://target.invalid").pathname;
  } catch {
    return { paymentPage: false, canonicalPath: null };
  }
  // A data request (client navigation) is for the page without its ".data" suffix.
  const data = /\.data$/.test(pathname);
  const pagePath = data ? pathname.replace(/(?:\/?_root)?\.data$/, "") || "/" : pathname;
  const matches = matchRoutes(tree, pagePath) ?? [];
  const paymentPage = isPaymentRoute(matches.map((m) => m.route.handle));
  // Said only when true (the payment pages' answers are unchanged).
  const console = {
    ...(isConsoleRoute(matches.map((m) => m.route.handle)) ? { consolePage: true } : {}),
    ...(isPasswordRoute(matches.map((m) => m.route.handle)) ? { passwordPage: true } : {}),
  };
  const leaf = matches.at(-1);
  if (!leaf || data) return { paymentPage, ...console, canonicalPath: null };
  // The catch-all (404) route has no canonical spelling.
  const pattern = matches
    .map((m) => m.route.path)
    .filter((p): p is string => typeof p === "string" && p.length > 0)
    .join("/")
    .split("/")
    .filter(Boolean);
  if (pattern.some((s) => s === "*" || s.endsWith("?"))) return { paymentPage, ...console, canonicalPath: null };
  const sent = pagePath.split("/").filter(Boolean);
  if (sent.length !== pattern.length) return { paymentPage, ...console, canonicalPath: null };
  const canonical = "/" + pattern.map((segment, i) => (segment.startsWith(":") ? sent[i] : segment)).join("/");
  return { paymentPage, ...console, canonicalPath: canonical === sentPath(target) ? null : canonical };
}
