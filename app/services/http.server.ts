import { data } from "react-router";
import { NO_STORE } from "~/domain/cache";

/**
 * The one 404 of the routes: `throw notFound()` (or `if (!x) throw notFound()`). The response is
 * never stored (the path may become a page later); the root or route ErrorBoundary renders the
 * friendly page. Pass headers to add to or replace Cache-Control (e.g. the portal's).
 */
export function notFound(headers?: HeadersInit, message = "Not found") {
  return data({ message }, { status: 404, headers: headers ?? { "Cache-Control": NO_STORE } });
}
