import type { Route } from "./+types/unit";
import { tenantUnitMiddleware } from "~/services/portal/access.server";

/**
 * A unit's pages (pay, prepay, autopay, move-out at /customer-portal/units/:leaseId/…): the lease is
 * looked up here, once, among the signed-in tenant's, before any of their loaders or actions
 * (decision 160). No UI of its own.
 */
export const middleware: Route.MiddlewareFunction[] = [tenantUnitMiddleware];
