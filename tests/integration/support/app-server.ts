import http from "node:http";
import path from "node:path";
import { createRequestHandler, UNSAFE_withComponentProps, UNSAFE_withErrorBoundaryProps, type ServerBuild } from "react-router";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import type { Database } from "~/db/client.server";
import routes from "~/routes";
import * as root from "~/root";
import * as entryServer from "~/entry.server";
import { documentHtml } from "~/platform/document-html.server";
import type { RenderPublicPage } from "~/services/content/page-diff.server";
import { matchPage, routeTree } from "../../../server/route-match";
import { loadContext } from "./route-helpers";

/**
 * The app over real HTTP, in the test's process: React Router's own request handler over a build of
 * every route in app/routes.ts (the route modules themselves, with their middleware, loaders, actions,
 * headers, components and error boundaries; entry.server.tsx renders the documents), behind a plain
 * Node HTTP server on a loopback port. The request context is the one server/app.ts gives (the test's
 * database, a nonce, the client's address, whether the page is a console or payment page). What
 * server/app.ts adds around React Router (security headers, host and body guards, redirects, the page
 * cache) is not here: the browser and fault tests run the built server with it.
 */
export interface AppServer {
  origin: string;
  /** Every route of app/routes.ts: its id (the file without extension), its full path and its file. */
  routes: Array<{ id: string; path: string; file: string; parents: string[] }>;
  /** A public page rendered without HTTP, as console pages get it (the draft's diff, decision 318). */
  renderPublicPage: RenderPublicPage;
  close(): Promise<void>;
}

const appDirectory = path.resolve(import.meta.dirname, "../../../app");
const routeId = (file: string) => file.replace(/\.[jt]sx?$/, "");

interface FlatRoute {
  id: string;
  parentId: string;
  path?: string;
  index?: boolean;
  file: string;
  fullPath: string;
  parents: string[];
}

function flatten(entries: RouteConfigEntry[], parentId: string, parentPath: string, parents: string[], out: FlatRoute[]): FlatRoute[] {
  for (const e of entries) {
    const id = e.id ?? routeId(e.file);
    const fullPath = e.path ? `${parentPath.replace(/\/$/, "")}/${e.path}` : parentPath;
    out.push({ id, parentId, path: e.path, index: e.index, file: e.file, fullPath: fullPath || "/", parents });
    if (e.children) flatten(e.children, id, fullPath, [...parents, id], out);
  }
  return out;
}

type Module = Record<string, unknown>;
type Links = () => Array<{ href?: string }>;

/**
 * A route module as `react-router build` turns it: the page's component and error boundary get their
 * props (loaderData, actionData, params, error) through React Router's wrappers. Stylesheet URLs
 * (`?url` imports) are empty under Vitest, which builds no assets: those links are left out.
 */
function asBuilt(module: Module): Module {
  const out: Module = { ...module };
  if (typeof module.default === "function") out.default = UNSAFE_withComponentProps(module.default as never);
  if (typeof module.ErrorBoundary === "function") out.ErrorBoundary = UNSAFE_withErrorBoundaryProps(module.ErrorBoundary as never);
  if (typeof module.links === "function") out.links = () => (module.links as Links)().filter((l) => l.href !== "");
  return out;
}

async function buildOf(): Promise<{ build: ServerBuild; flat: FlatRoute[] }> {
  const flat = flatten(routes as RouteConfigEntry[], "root", "", [], []);
  const modules = await Promise.all(flat.map((r) => import(/* @vite-ignore */ path.join(appDirectory, r.file)) as Promise<Record<string, unknown>>));
  const serverRoutes: Record<string, unknown> = { root: { id: "root", path: "", module: asBuilt(root) } };
  const manifestRoutes: Record<string, unknown> = {
    root: { id: "root", path: "", module: "/assets/root.js", hasLoader: true, hasAction: false, hasClientAction: false, hasClientLoader: false, hasClientMiddleware: false, hasErrorBoundary: true },
  };
  flat.forEach((r, i) => {
    const module = modules[i]!;
    serverRoutes[r.id] = { id: r.id, parentId: r.parentId, path: r.path, index: r.index, module: asBuilt(module) };
    manifestRoutes[r.id] = {
      id: r.id,
      parentId: r.parentId,
      path: r.path,
      index: r.index,
      module: `/assets/${r.id}.js`,
      hasLoader: typeof module.loader === "function",
      hasAction: typeof module.action === "function",
      hasClientAction: false,
      hasClientLoader: false,
      hasClientMiddleware: false,
      hasErrorBoundary: typeof module.ErrorBoundary === "function",
    };
  });
  const build = {
    entry: { module: entryServer },
    routes: serverRoutes,
    assets: { entry: { module: "/assets/entry.client.js", imports: [] }, routes: manifestRoutes, url: "/assets/manifest.js", version: "test" },
    publicPath: "/",
    assetsBuildDirectory: "build/client",
    basename: "/",
    future: { v8_middleware: true },
    ssr: true,
    isSpaMode: false,
    prerender: [],
    routeDiscovery: { mode: "lazy", manifestPath: "/__manifest" },
  } as unknown as ServerBuild;
  return { build, flat };
}

export async function startAppServer(db: Database, options: { clientIp?: string } = {}): Promise<AppServer> {
  const { build, flat } = await buildOf();
  const handler = createRequestHandler(build, "production");
  const tree = routeTree(build.routes);
  const renderPublicPage: RenderPublicPage = async (path, renderDb, cache) => {
    const page = matchPage(tree, path);
    const response = await handler(
      new Request(new URL(path, "http://localhost")),
      Object.assign(loadContext(renderDb, "127.0.0.1"), { siteCache: cache, paymentPage: page.paymentPage, passwordPage: page.passwordPage === true, consolePage: page.consolePage === true }),
    );
    return { status: response.status, body: documentHtml.get(response) ?? (await response.text()) };
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        try {
          const headers = new Headers();
          for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
          const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
          const hasBody = req.method !== "GET" && req.method !== "HEAD";
          const request = new Request(url, { method: req.method, headers, ...(hasBody ? { body: Buffer.concat(chunks) } : {}) });
          const page = matchPage(tree, req.url ?? "/");
          const context = Object.assign(loadContext(db, options.clientIp ?? "127.0.0.1"), {
            paymentPage: page.paymentPage,
            passwordPage: page.passwordPage === true,
            consolePage: page.consolePage === true,
            // As server/app.ts gives console pages (the draft's diff, decision 318): a public page rendered without HTTP.
            ...(page.consolePage ? { renderPublicPage } : {}),
          });
          const response = await handler(request, context);
          res.statusCode = response.status;
          for (const [k, v] of response.headers) if (k.toLowerCase() !== "set-cookie") res.setHeader(k, v);
          const cookies = response.headers.getSetCookie();
          if (cookies.length) res.setHeader("Set-Cookie", cookies);
          const html = documentHtml.get(response);
          res.end(html ?? Buffer.from(await response.arrayBuffer()));
        } catch (error) {
          res.statusCode = 500;
          res.end(`test server: ${error instanceof Error ? error.stack : String(error)}`);
        }
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    routes: flat.map((r) => ({ id: r.id, path: r.fullPath, file: r.file, parents: r.parents })),
    renderPublicPage,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
