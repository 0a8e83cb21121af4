import type { Route } from "./+types/not-found";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { notFound } from "~/services/web/responses.server";

/** Any other path under /admin, for a signed-in member: 404 in the console's layout. */
export function loader() {
  throw notFound();
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;

export default function ConsoleNotFound() {
  return null;
}
