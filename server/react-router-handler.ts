/**
 * React Router in this server: the build, the request handler, the request context it gives every
 * loader, action and middleware, which route renders a request (`res.locals.page`), and a public page
 * rendered without HTTP (the console's draft diff).
 */
import "react-router";
import { createRequestHandler, RouterContextProvider, type RouteObject, type ServerBuild } from "react-router";
import type { NextFunction, Request, Response } from "express";
import crypto from "node:crypto";
import type { Database } from "~/db/client.server";
import { readWebsite } from "~/db/queries/cached-reads.server";
import type { Website } from "~/db/queries/site.server";
import type { SiteCache } from "~/db/site-cache.server";
import { documentHtml } from "~/platform/document-html.server";
import type { RenderPublicPage } from "~/services/content/page-diff.server";
import { publicOrigin } from "~/services/site/origin.server";
import { matchPage, routeTree } from "./route-match";

// What the server gives every loader, action and middleware, as fields of React Router's request
// context (its documented migration from AppLoadContext; typed values of our own middleware use
// createContext, e.g. app/services/portal/access.server.ts).
declare module "react-router" {
  interface RouterContextProvider {
    db: Database;
    /** Per-request CSP nonce for the few inline scripts and styles we render. */
    cspNonce: string;
    /** The client's IP address (behind the configured proxies). */
    clientIp: string;
    /** The website row the server read for this request (undefined: not read yet). */
    website?: Website | null;
    /** The per-process cache of layout, settings and redirects (absent: every read goes to the database). */
    siteCache?: SiteCache;
    /** Set when a read fell back to a value kept from before a database outage: the page is not stored. */
    staleData?: boolean;
    /** The matched route is a payment page's (`handle.paymentPage`, decision 190): no operator code. */
    paymentPage?: boolean;
    /** The matched route is a console page's (`handle.consolePage`, issue 23): no operator code, no site chrome. */
    consolePage?: boolean;
    /** The matched route takes a password or carries a token (`handle.passwordPage`, decision 464): no operator code. */
    passwordPage?: boolean;
    /**
     * Set only while a page is rendered in preview (issue 24, decision 315): what the banner's "Leave
     * preview" form needs. The root layout draws the banner when it is there.
     */
    preview?: { csrfToken: string; returnTo: string };
    /** Console pages only: renders a public path through this app on a given database, without HTTP (the draft's diff, decision 318). */
    renderPublicPage?: RenderPublicPage;
    /**
     * Set only for the draft's diff's renders (decision 661): one object per side of the diff (its site
     * cache: the live side, or one preview transaction), so that a location's availability is read
     * once for all the pages that side renders, not once per page.
     */
    readScope?: object;
  }
}

/** React Router's request handler: given the request and its context, the answer. */
export type HandleRequest = ReturnType<typeof createRequestHandler>;

// Given the build as a function, React Router derives its routes and static handler again on every
// request (so the dev server's edits show); given the object, once. The build of a production process
// never changes: there the handler is made once, on the first request (decision 164).
const loadBuild = () => import("virtual:react-router/server-build");

export function reactRouterOf(nodeEnv: string) {
  let builtHandler: HandleRequest | undefined;
  const handleRequest: HandleRequest = import.meta.env.DEV
    ? createRequestHandler(loadBuild, nodeEnv)
    : async (request, context) => {
        builtHandler ??= createRequestHandler(await loadBuild(), nodeEnv);
        return builtHandler(request, context);
      };

  // Which route renders this request (decision 190): a payment route gets the payment headers whatever
  // the spelling of its path, and React Router's context says so to the root loader.
  let builtRoutes: RouteObject[] | undefined;
  async function routesOfBuild(): Promise<RouteObject[]> {
    if (builtRoutes) return builtRoutes;
    const tree = routeTree(((await loadBuild()) as ServerBuild).routes);
    if (!import.meta.env.DEV) builtRoutes = tree;
    return tree;
  }
  /** The route that renders this request, in `res.locals.page`. */
  const matchRoute = async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.page = matchPage(await routesOfBuild(), req.originalUrl);
      next();
    } catch (error) {
      next(error);
    }
  };

  /**
   * Renders a public path through React Router on the database given (live, or a preview transaction),
   * without HTTP: the draft's diff (decision 318). Never the server's site cache: what the database says
   * now, through the diff's own cache of one side when given (decision 631).
   */
  const renderPublicPage: RenderPublicPage = async (path, renderDb, cache) => {
    const website = await readWebsite({ db: renderDb, siteCache: cache });
    const url = new URL(path, website ? publicOrigin(website) : "http://localhost");
    const page = matchPage(await routesOfBuild(), `${url.pathname}${url.search}`);
    const context = Object.assign(new RouterContextProvider(), {
      db: renderDb,
      cspNonce: crypto.randomBytes(16).toString("base64"),
      clientIp: "127.0.0.1",
      website,
      // The diff's own cache of this side (live or one preview transaction), never the server's.
      siteCache: cache,
      ...(cache ? { readScope: cache } : {}),
      staleData: false,
      paymentPage: page.paymentPage === true,
      consolePage: page.consolePage === true,
    });
    const response = await handleRequest(new globalThis.Request(url.href), context);
    const html = documentHtml.get(response);
    return { status: response.status, body: html ?? (await response.text()) };
  };

  return { handleRequest, matchRoute, renderPublicPage };
}
