import { Outlet } from "react-router";
import type { Route } from "./+types/admin.layout";
import { notFound } from "~/services/http.server";
import { signedInStaffContext } from "~/services/staff-context.server";

/**
 * PLACEHOLDER (desk b, issue 23) so the build has the console's layout: h23-auth's
 * routes/admin.layout.tsx replaces this file at merge (its middleware checks the staff session and
 * sets signedInStaffContext). Until then it fails closed: without a signed-in member every console
 * page is a 404.
 */
export const middleware: Route.MiddlewareFunction[] = [
  ({ context }) => {
    if (!context.get(signedInStaffContext)) throw notFound();
  },
];

export default function AdminLayout() {
  return <Outlet />;
}
