import path from "node:path";
import { matchRoutes, RouterContextProvider, type RouteObject } from "react-router";
import type { Database } from "~/db/client.server";
import routes from "~/routes";
import * as root from "~/root";

/** The request context the server gives every loader, action and middleware (server/app.ts). */
export function loadContext(db: Database, clientIp = "127.0.0.1"): RouterContextProvider {
  return Object.assign(new RouterContextProvider(), { db, cspNonce: "test-nonce", clientIp });
}

interface DataWithInit {
  type: "DataWithResponseInit";
  data: unknown;
  init: ResponseInit | null;
}
function isDataWithInit(value: unknown): value is DataWithInit {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === "DataWithResponseInit";
}

/** What a loader or action returned (or threw): its data, its status and its headers. */
interface RouteResult<T = unknown> {
  data: T;
  status: number;
  headers: Headers;
  response: Response | null;
}

function toResult<T>(value: unknown): RouteResult<T> {
  if (value instanceof Response) return { data: undefined as T, status: value.status, headers: value.headers, response: value };
  if (isDataWithInit(value)) {
    return { data: value.data as T, status: value.init?.status ?? 200, headers: new Headers(value.init?.headers), response: null };
  }
  return { data: value as T, status: 200, headers: new Headers(), response: null };
}

type Middleware = (args: never, next: () => Promise<unknown>) => unknown;
type RouteModule = { loader?: unknown; action?: unknown; middleware?: Middleware[] };

const appDirectory = path.resolve(import.meta.dirname, "../../../app");

/** The route modules `url` reaches in app/routes.ts, outermost first (layouts, then the page), and the URL's params. */
async function routeModulesFor(url: URL): Promise<{ modules: RouteModule[]; params: Record<string, string> }> {
  const matches = matchRoutes(routes as unknown as RouteObject[], url.pathname) ?? [];
  const modules = await Promise.all(
    matches.map((m) => import(/* @vite-ignore */ path.join(appDirectory, (m.route as { file: string }).file)) as Promise<RouteModule>),
  );
  return { modules, params: (matches.at(-1)?.params ?? {}) as Record<string, string> };
}

/** Runs the middleware chain (React Router's order: outermost first; one that returns nothing without calling next() is followed by the rest). */
async function runMiddleware(middleware: Middleware[], args: unknown, handler: () => Promise<unknown>): Promise<unknown> {
  const [first, ...rest] = middleware;
  if (!first) return handler();
  let nextResult: { value: unknown } | null = null;
  const next = async () => (nextResult = { value: await runMiddleware(rest, args, handler) }).value;
  const returned = await first(args as never, next);
  if (returned != null) return returned;
  return nextResult ? (nextResult as { value: unknown }).value : next();
}

/**
 * Calls a route module's loader or action the way React Router does: the middleware of the layouts
 * above it in app/routes.ts first (the portal's session and unit checks), then the function with the
 * request, params and context; returns what it answered, including thrown responses (404s, redirects).
 */
export async function callRoute<T = unknown>(
  fn: (args: never) => unknown,
  db: Database,
  url: string,
  options: { params?: Record<string, string>; init?: RequestInit; clientIp?: string } = {},
): Promise<RouteResult<T>> {
  const request = new Request(new URL(url, "http://localhost"), options.init);
  const { modules, params } = fn === root.loader ? { modules: [], params: {} } : await routeModulesFor(new URL(request.url));
  // A test cannot call a page's function under another page's layouts (or none).
  const page = modules.at(-1);
  if (fn !== root.loader && (!page || (page.loader !== fn && page.action !== fn))) throw new Error(`callRoute: ${url} is not the page of this loader or action`);
  const args = { request, params: { ...params, ...options.params }, context: loadContext(db, options.clientIp) };
  try {
    return toResult<T>(await runMiddleware(modules.flatMap((m) => m.middleware ?? []), args, async () => fn(args as never)));
  } catch (thrown) {
    if (thrown instanceof Response || isDataWithInit(thrown)) return toResult<T>(thrown);
    throw thrown;
  }
}

/**
 * Runs only the middleware of the routes `url` reaches (the layouts'), with a stand-in for the page's
 * loader or action: what the layouts answered, whether the page would have run, and the request
 * context they left for it.
 */
export async function callLayouts(
  db: Database,
  url: string,
  options: { init?: RequestInit } = {},
): Promise<{ pageRan: boolean; result: RouteResult | null; context: RouterContextProvider }> {
  const request = new Request(new URL(url, "http://localhost"), options.init);
  const { modules, params } = await routeModulesFor(new URL(request.url));
  const context = loadContext(db);
  let pageRan = false;
  try {
    await runMiddleware(modules.flatMap((m) => m.middleware ?? []), { request, params, context }, async () => {
      pageRan = true;
      return null;
    });
    return { pageRan, result: null, context };
  } catch (thrown) {
    if (thrown instanceof Response || isDataWithInit(thrown)) return { pageRan, result: toResult(thrown), context };
    throw thrown;
  }
}
