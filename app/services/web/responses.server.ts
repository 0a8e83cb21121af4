import { data } from "react-router";
import { NO_STORE } from "~/domain/web/cache";

/**
 * The one 404 of the routes: `throw notFound()` (or `if (!x) throw notFound()`). The response is
 * never stored (the path may become a page later); the root or route ErrorBoundary renders the
 * friendly page. Pass headers to add to or replace Cache-Control (e.g. the portal's).
 */
export function notFound(headers?: HeadersInit, message = "Not found") {
  return data({ message }, { status: 404, headers: headers ?? { "Cache-Control": NO_STORE } });
}

/**
 * The status of an outcome a service returns for a record that is gone or outside the member's
 * scope, when the page answers it beside a button rather than with the 404 page (the console's
 * publish, discard and revert forms).
 */
export const GONE_OR_OUT_OF_SCOPE = 404;
