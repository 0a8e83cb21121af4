import { redirect } from "react-router";
import type { Route } from "./+types/logout";
import { validateCsrf } from "~/services/web/csrf.server";
import { portalHeaders } from "~/services/portal/context.server";
import { destroyTenantSession } from "~/services/web/session.server";

/** Sign-out: POST only (a link could be followed by anything); ends the session row and the cookie. */
export async function action({ request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const cookie = await destroyTenantSession(context.db, request);
  throw redirect("/customer-portal/login?signedout=1", { status: 303, headers: portalHeaders(cookie) });
}

export function loader() {
  throw redirect("/customer-portal", { headers: portalHeaders() });
}
