import { redirect } from "react-router";
import type { Route } from "./+types/sign-out";
import { consoleHeaders } from "~/services/console/headers.server";
import { validateCsrf } from "~/services/web/csrf.server";
import { destroyStaffSession } from "~/services/staff/session.server";
import { now as clockNow } from "~/platform/clock.server";

/** Sign out of the back office (POST with the CSRF token): the session row is deleted (audited), the cookie cleared. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const cookie = await destroyStaffSession(context.db, request, { ip: context.clientIp, now: clockNow() });
  throw redirect("/admin/sign-in?signedout=1", { status: 303, headers: consoleHeaders(cookie) });
}

/** A GET (a bookmarked or typed link) signs nobody out: back to the console. */
export function loader() {
  throw redirect("/admin", { headers: consoleHeaders() });
}
