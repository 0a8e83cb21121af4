/**
 * The places where we rely on React Router's internals (docs/decisions/230-react-router-edges.md),
 * each checked against the INSTALLED package: a React Router upgrade that changes what we rely on
 * fails here, not as a silent slowdown, a missing guard or a 500 in production.
 */
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { createElement, Fragment } from "react";
import { parseAst } from "vite";
import { describe, expect, it } from "vitest";
import { renderToString } from "react-dom/server";
import {
  createRequestHandler,
  Link as RouterLink,
  MemoryRouter,
  NavLink as RouterNavLink,
  Outlet,
  RouterContextProvider,
  UNSAFE_NavigationContext,
  type LinkProps,
  type NavLinkProps,
  type ServerBuild,
} from "react-router";
import { Link, NavLink } from "~/components/ui/link";
import { matchPage, routeTree } from "../../server/route-match";
import * as entryServer from "~/entry.server";
import { documentHtml } from "~/platform/document-html.server";
import { definesHandoffStream, definesStrippedRequest, keepRequestWithoutRouterParamsPatch, lazyHandoffStreamPatch, reactRouterProduction } from "../../vite.config";

const ROOT = path.resolve(import.meta.dirname, "../..");
const packageJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as { version: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const REACT_ROUTER_PACKAGES = ["react-router", "@react-router/node", "@react-router/dev"];
/** The version every edge below was written for. */
const PINNED = "7.18.4";

describe("edge 0: React Router is pinned exactly, and the installed copy is the pinned one", () => {
  const own = packageJson(path.join(ROOT, "package.json"));
  it.each(REACT_ROUTER_PACKAGES)("%s", (name) => {
    const declared = own.dependencies?.[name] ?? own.devDependencies?.[name];
    expect(declared, `${name} must be pinned to ${PINNED} exactly (no ^ or ~): see decision 230 before changing it`).toBe(PINNED);
    expect(packageJson(path.join(ROOT, "node_modules", name, "package.json")).version).toBe(PINNED);
  });
});

describe("edge 1: the production build of React Router, by file path (vite.config.ts alias)", () => {
  it("dist/production/index.mjs and dom-export.mjs exist, with the development build's exports", async () => {
    for (const file of ["index.mjs", "dom-export.mjs"]) {
      const production = path.join(reactRouterProduction, file);
      expect(existsSync(production), production).toBe(true);
      const [prod, dev] = await Promise.all([import(production), import(path.join(ROOT, "node_modules/react-router/dist/development", file))]);
      expect(Object.keys(prod).sort()).toEqual(Object.keys(dev).sort());
    }
  });
});

describe("edge 2: the build-time rewrite of the handoff stream (vite.config.ts lazyHandoffStream)", () => {
  const modules = readdirSync(reactRouterProduction)
    .filter((f) => f.endsWith(".mjs"))
    .map((f) => ({ file: f, code: readFileSync(path.join(reactRouterProduction, f), "utf8") }));

  it("exactly one production module defines encodeViaTurboStream, with exactly two handoff-stream sites", () => {
    const targets = modules.filter((m) => definesHandoffStream(m.code));
    expect(targets.map((m) => m.file)).toHaveLength(1);
    const patched = lazyHandoffStreamPatch(targets[0]!.code);
    expect(patched.sites).toBe(2);
    expect(patched.code).not.toContain("serverHandoffStream: encodeViaTurboStream(");
    expect(patched.code.match(/get serverHandoffStream\(\) \{ return this\.__gatehouseHandoff[12] \?\?= encodeViaTurboStream\(/g)).toHaveLength(2);
    // Still a valid module after the rewrite.
    expect(() => parseAst(patched.code)).not.toThrow();
  });

  it("counts what it rewrites (a changed site is found 0 times, and the build fails)", () => {
    expect(lazyHandoffStreamPatch("x = { serverHandoffStream: encodeViaTurboStream(state, signal) }").sites).toBe(1);
    expect(lazyHandoffStreamPatch("x = { serverHandoffStream: encodeViaTurboStream(state, f(signal)) }").sites).toBe(0);
  });
});

describe("edge 3: app/components/ui/link.tsx — UNSAFE_NavigationContext, and React Router's <a> for a plain path", () => {
  it("UNSAFE_NavigationContext is exported, as a React context", () => {
    expect(UNSAFE_NavigationContext).toBeDefined();
    expect((UNSAFE_NavigationContext as unknown as { $$typeof: symbol }).$$typeof).toBe(Symbol.for("react.context"));
  });

  const at = (location: string, element: ReturnType<typeof createElement>) =>
    renderToString(createElement(MemoryRouter, { initialEntries: [location] }, element));
  it.each<[string, string, Partial<LinkProps>]>([
    ["/units", "/faqs", {}],
    ["/units", "/units", { className: "menu", target: "_blank", id: "x" }],
    ["/", "/locations/lumberton-nc-28358/", { "aria-label": "Lumberton" }],
  ])("on %s, a link to %s renders as React Router's own", (location, to, props) => {
    expect(at(location, createElement(Link, { to, ...props }, "text"))).toBe(at(location, createElement(RouterLink, { to, ...props }, "text")));
  });
  it.each<[string, string, Partial<NavLinkProps>]>([
    ["/units", "/units", {}],
    ["/units/small", "/units", { className: "nav" }],
    ["/units/small", "/units", { end: true }],
    ["/UNITS", "/units", { "aria-current": "location" }],
    ["/faqs", "/units", {}],
    ["/", "/", {}],
  ])("on %s, a NavLink to %s renders as React Router's own (active class, aria-current)", (location, to, props) => {
    expect(at(location, createElement(NavLink, { to, ...props }, "text"))).toBe(at(location, createElement(RouterNavLink, { to, ...props }, "text")));
  });
});

// Edges 4–7 through React Router's own request handler, with our entry.server.tsx and a build of
// three routes in the shape `react-router build` writes (server/route-match.test.ts and the browser
// tests use the real one).
const OPERATOR_CODE = "<!--operator-body-code-->";
const html = (...children: ReturnType<typeof createElement>[]) =>
  createElement("html", { lang: "en" }, createElement("head"), createElement("body", null, ...children));
const rootModule = {
  default: () => html(createElement(Outlet)),
  loader: () => ({ site: { website: { customHeaderCode: "", customBodyCode: OPERATOR_CODE, analyticsId: null } } }),
};
const page = (text: string, handle?: object) => ({ default: () => createElement(Fragment, null, createElement("main", null, text)), handle });
const modules = {
  root: rootModule,
  "routes/plain": page("plain page"),
  "routes/hydrating": page("hydrating page", { hydrate: true }),
  "routes/payments/pay": page("payment page", { paymentPage: true }),
};
const paths: Record<string, string> = { root: "", "routes/plain": "plain", "routes/hydrating": "hydrating", "routes/payments/pay": "pay" };
const build = {
  entry: { module: entryServer },
  routes: Object.fromEntries(
    Object.entries(modules).map(([id, module]) => [id, { id, parentId: id === "root" ? undefined : "root", path: paths[id], module }]),
  ),
  assets: {
    entry: { module: "/assets/entry.client.js", imports: [] },
    routes: Object.fromEntries(
      Object.keys(modules).map((id) => [
        id,
        { id, parentId: id === "root" ? undefined : "root", path: paths[id], module: `/assets/${id}.js`, hasLoader: id === "root", hasAction: false, hasClientAction: false, hasClientLoader: false, hasClientMiddleware: false, hasErrorBoundary: false },
      ]),
    ),
    url: "/assets/manifest.js",
    version: "test",
  },
  publicPath: "/",
  assetsBuildDirectory: "build/client",
  basename: "/",
  future: { v8_middleware: true },
  ssr: true,
  isSpaMode: false,
  prerender: [],
  routeDiscovery: { mode: "lazy", manifestPath: "/__manifest" },
} as unknown as ServerBuild;

async function get(pathname: string) {
  const handler = createRequestHandler(build, "production");
  const context = Object.assign(new RouterContextProvider(), { cspNonce: "test-nonce" });
  const response = await handler(new Request(`http://localhost${pathname}`), context);
  return { response, html: documentHtml.get(response) };
}

describe("edges 4–7: what entry.server.tsx and server/app.ts take from React Router's document handler", () => {
  it("edge 4: the Response entry.server.tsx returns is the one React Router returns (server/app.ts sends its HTML string)", async () => {
    const { response, html } = await get("/plain");
    expect(response.status).toBe(200);
    // Not in documentHtml: React Router wrapped or copied our Response, and every page is streamed back.
    expect(html).toBeDefined();
    expect(html).toContain("<main>plain page</main>");
  });

  it("edge 5: EntryContext.serverHandoffStream — a page that does not hydrate renders no StreamTransfer, one that does still does", async () => {
    const plain = (await get("/plain")).html!;
    const hydrating = (await get("/hydrating")).html!;
    // StreamTransfer is ServerRouter's Suspense boundary after the app (decision 150).
    expect(hydrating).toContain("<!--$-->");
    expect(plain).not.toContain("<!--$-->");
    expect(plain.replace("plain page", "")).toBe(hydrating.replace("hydrating page", "").replace(/<!--\$-->.*?<!--\/\$-->/s, ""));
  });

  it("edge 6: EntryContext.staticHandlerContext (matches, loaderData) and routeModules[id].handle — the payment page by its route gets no operator code", async () => {
    expect((await get("/plain")).html).toContain(OPERATOR_CODE);
    const payment = (await get("/pay")).html!;
    expect(payment).toContain("<main>payment page</main>");
    expect(payment).not.toContain(OPERATOR_CODE);
  });

  it("edge 7: the build's route manifest and single-fetch data URLs, as server/route-match.ts reads them", async () => {
    // The route entries `react-router build` writes into the server build (virtual:react-router/server-build).
    const template = readFileSync(path.join(ROOT, "node_modules/@react-router/dev/dist/vite.js"), "utf8");
    for (const field of ["id", "parentId", "path", "index", "caseSensitive"]) expect(template).toContain(`${field}: ${"${JSON.stringify(route." + field + ")}"},`);
    expect(template).toContain("module: route${index}");
    const tree = routeTree(build.routes);
    expect(matchPage(tree, "/PAY/")).toEqual({ paymentPage: true, canonicalPath: "/pay" });
    // A page's data is at "<path>.data", the root's at "/_root.data" (route-match.ts strips both).
    const handler = createRequestHandler(build, "production");
    for (const target of ["/pay.data", "/_root.data"]) {
      const response = await handler(new Request(`http://localhost${target}`), Object.assign(new RouterContextProvider(), { cspNonce: "n" }));
      expect(response.headers.get("Content-Type"), target).toMatch(/^text\/x-script/);
    }
    expect(matchPage(tree, "/pay.data").paymentPage).toBe(true);
  });
});

describe("edge 2b: the build-time rewrite of the loaders' and actions' request copies (vite.config.ts, decision 422)", () => {
  const modules = readdirSync(reactRouterProduction)
    .filter((f) => f.endsWith(".mjs"))
    .map((f) => ({ file: f, code: readFileSync(path.join(reactRouterProduction, f), "utf8") }));

  it("exactly one production module copies the request for every loader and action, at exactly one site", () => {
    const targets = modules.filter((m) => definesStrippedRequest(m.code));
    expect(targets.map((m) => m.file)).toHaveLength(1);
    const patched = keepRequestWithoutRouterParamsPatch(targets[0]!.code);
    expect(patched.sites).toBe(1);
    expect(() => parseAst(patched.code)).not.toThrow();
  });

  it("hands on the request itself only when its URL has no index or _routes parameter (and no % where one could hide)", () => {
    const { code } = keepRequestWithoutRouterParamsPatch("f = (args) => stripRoutesParam(stripIndexParam(args.request))");
    const copy = { copied: true };
    const f = new Function("stripRoutesParam", "stripIndexParam", `let f; ${code}; return f;`)(() => copy, (r: unknown) => r) as (args: { request: { url: string } }) => unknown;
    const kept = (url: string) => {
      const request = { url };
      return f({ request }) === request;
    };
    expect(kept("http://localhost/rent/12?step=details")).toBe(true);
    expect(kept("http://localhost/rent/12")).toBe(true);
    expect(kept("http://localhost/units?indexes=1&routes=2")).toBe(true);
    expect(kept("http://localhost/?index")).toBe(false);
    expect(kept("http://localhost/?a=1&index=&b=2")).toBe(false);
    expect(kept("http://localhost/rent/12.data?_routes=routes%2Frent")).toBe(false);
    expect(kept("http://localhost/x?%69ndex")).toBe(false);
  });
});
