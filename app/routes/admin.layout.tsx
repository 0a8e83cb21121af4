/**
 * PLACEHOLDER (branch h23-desk-a only): the console's layout is built on branch h23-auth, whose
 * middleware checks the staff session and sets `signedInStaffContext` before any loader or action
 * under /admin runs. The lead takes h23-auth's version of this file at merge. Until then this
 * placeholder refuses every request (no staff session exists yet), so nothing under /admin is open.
 */
import { Outlet } from "react-router";
import { notFound } from "~/services/http.server";
import type { Route } from "./+types/admin.layout";
import { signedInStaffContext } from "~/services/staff-context.server";

export const middleware: Route.MiddlewareFunction[] = [
  ({ context }) => {
    if (!context.get(signedInStaffContext)) throw notFound();
  },
];

export default function AdminLayoutPlaceholder() {
  return <Outlet />;
}
