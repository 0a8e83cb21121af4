import type { AppLoadContext } from "react-router";
import type { Database } from "~/db/client.server";

/** The load context the server gives every loader and action. */
export function loadContext(db: Database, clientIp = "127.0.0.1"): AppLoadContext {
  return { db, cspNonce: "test-nonce", clientIp } as AppLoadContext;
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
export interface RouteResult<T = unknown> {
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

/**
 * Calls a route module's loader or action the way React Router does (request, params, context) and
 * returns what it answered, including thrown responses (404s, redirects).
 */
export async function callRoute<T = unknown>(
  fn: (args: never) => unknown,
  db: Database,
  url: string,
  options: { params?: Record<string, string>; init?: RequestInit; clientIp?: string } = {},
): Promise<RouteResult<T>> {
  const request = new Request(new URL(url, "http://localhost"), options.init);
  const args = { request, params: options.params ?? {}, context: loadContext(db, options.clientIp) } as never;
  try {
    return toResult<T>(await fn(args));
  } catch (thrown) {
    if (thrown instanceof Response || isDataWithInit(thrown)) return toResult<T>(thrown);
    throw thrown;
  }
}
