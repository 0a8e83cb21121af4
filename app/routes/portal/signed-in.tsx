import { Outlet } from "react-router";
import type { Route } from "./+types/signed-in";
import { PortalNav, usePortalPage } from "~/components/portal/parts";
import { portalNavData } from "~/services/portal/context.server";
import { signedInMiddleware, signedInTenant } from "~/services/portal/access.server";

/**
 * The portal's pages for a signed-in tenant (dashboard, profile, receipts, the unit pages): the
 * session is checked here, once, before any of their loaders or actions (decision 160), and the
 * portal's navigation (who is signed in, the links, sign-out) is drawn here, above the page
 * (decision 225). A page says through its handle which link is current.
 */
export const middleware: Route.MiddlewareFunction[] = [signedInMiddleware];

export async function loader({ request, context }: Route.LoaderArgs) {
  return portalNavData(request, signedInTenant(context));
}

export default function SignedInLayout({ loaderData }: Route.ComponentProps) {
  const { current } = usePortalPage();
  return (
    <>
      <PortalNav name={loaderData.name} csrfToken={loaderData.csrfToken} current={current} />
      <Outlet />
    </>
  );
}
