import { data } from "react-router";
import type { Route } from "./+types/admin.not-found";
import { consoleRouteHeaders } from "~/services/console.server";

/** Any other path under /admin, for a signed-in member: 404 in the console's layout. */
export function loader() {
  throw data({ message: "Not found" }, { status: 404 });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;

export default function ConsoleNotFound() {
  return null;
}
