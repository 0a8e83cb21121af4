/**
 * Who may see a portal page, decided once per request by the portal's layout routes' middleware
 * (docs/decisions/160-portal-layout-middleware.md), before any loader or action of the pages under
 * them runs:
 *
 * - the signed-in layout (`routes/customer-portal.signed-in.tsx`): the dashboard, profile, receipts
 *   and the unit pages. Not signed in: the redirect to the sign-in page with the return path.
 * - the unit layout (`routes/customer-portal.unit.tsx`): pay, prepay, autopay and move-out of one
 *   unit (`:leaseId`). Someone else's or an unknown lease: not found.
 *
 * The redirect is thrown by the middleware itself: nothing of the page runs. A not-found or a
 * database outage during the check is kept in the context as the verdict and raised by the page's
 * first statement (`signedInTenant(context)`, `tenantUnit(context)`), still before anything else of
 * the loader or action runs. That way both render as they always did: the 404 page in the site's
 * layout (an error thrown by middleware renders without any loader data, so without the site's
 * header and footer), and an outage during a form's submission the 503 that keeps what was typed
 * (`keepFormThroughOutage` catches it in the action).
 */
import { createContext, type RouterContextProvider } from "react-router";
import { requirePortalTenant, requirePortalUnit, type PortalContext } from "./context.server";
import type { PortalSession } from "../web/session.server";

/** A signed-in tenant's portal context: the site's locations, settings and software, and the session. */
export type SignedInTenant = PortalContext & { session: PortalSession };
/** One unit (lease) of the signed-in tenant, with its location and that location's software. */
export type TenantUnit = Awaited<ReturnType<typeof requirePortalUnit>>;

/** What a layout found: the value, or what the page must raise (not found, an outage). */
type Verdict<T> = { ok: true; value: T } | { ok: false; error: unknown };

export const signedInTenantContext = createContext<Verdict<SignedInTenant>>();
export const tenantUnitContext = createContext<Verdict<TenantUnit>>();

type Context = Readonly<RouterContextProvider>;

function unwrap<T>(verdict: Verdict<T>): T {
  if (!verdict.ok) throw verdict.error;
  return verdict.value;
}

/** Whether the thrown value is React Router's redirect (a Response with a Location). */
function isRedirect(thrown: unknown): thrown is Response {
  return thrown instanceof Response && thrown.status >= 300 && thrown.status < 400 && thrown.headers.has("Location");
}

/** The signed-in layout's middleware: the session, or the redirect to sign in (with the return path for a GET). */
export async function signedInMiddleware({ request, context }: { request: Request; context: Context }): Promise<void> {
  try {
    context.set(signedInTenantContext, { ok: true, value: await requirePortalTenant(context, request) });
  } catch (error) {
    if (isRedirect(error)) throw error;
    context.set(signedInTenantContext, { ok: false, error });
  }
}

/** The unit layout's middleware (under the signed-in one): the tenant's lease `:leaseId`, or not found. */
export async function tenantUnitMiddleware({ context, params }: { context: Context; params: { leaseId?: string } }): Promise<void> {
  const tenant = context.get(signedInTenantContext);
  if (!tenant.ok) return context.set(tenantUnitContext, tenant);
  try {
    context.set(tenantUnitContext, { ok: true, value: await requirePortalUnit(tenant.value, tenant.value.session.tenantId, params.leaseId) });
  } catch (error) {
    context.set(tenantUnitContext, { ok: false, error });
  }
}

/** The signed-in tenant, as the signed-in layout found it (raises its not-found or outage). */
export function signedInTenant(context: Context): SignedInTenant {
  return unwrap(context.get(signedInTenantContext));
}

/** The tenant's unit of this page, as the unit layout found it (raises its not-found or outage). */
export function tenantUnit(context: Context): TenantUnit {
  return unwrap(context.get(tenantUnitContext));
}
