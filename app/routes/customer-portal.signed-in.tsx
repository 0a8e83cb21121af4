import type { Route } from "./+types/customer-portal.signed-in";
import { signedInMiddleware } from "~/services/portal-access.server";

/**
 * The portal's pages for a signed-in tenant (dashboard, profile, receipts, the unit pages): the
 * session is checked here, once, before any of their loaders or actions (decision 160). No UI of its
 * own: the page renders in its place.
 */
export const middleware: Route.MiddlewareFunction[] = [signedInMiddleware];
