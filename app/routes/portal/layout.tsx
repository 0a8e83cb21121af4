import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { usePortalPage } from "~/components/portal/parts";
import portalCss from "~/styles/portal.css?url";

/**
 * Every customer-portal page with a UI (sign-in, create sign-in, forgot and reset password, and the
 * signed-in layout's pages): the portal's stylesheet is linked here, once, and the page's container
 * is drawn here (decision 225). A page says through its handle when it is wide (the dashboard).
 */
export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: portalCss }];

export default function PortalLayout() {
  const { wide } = usePortalPage();
  return (
    <div className={wide ? "container page portal" : "container page page--narrow portal"}>
      <Outlet />
    </div>
  );
}
