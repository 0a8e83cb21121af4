import { data, Outlet, useLocation, useRouteError, useRouteLoaderData } from "react-router";
import type { Route } from "./+types/layout";
import { ConsoleHeader, ConsoleMain, ConsoleNav } from "~/components/console/shell";
import { consoleNavFor } from "~/domain/console/nav";
import { STAFF_ROLE_LABELS } from "~/domain/staff/roles";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { signedInStaff } from "~/services/staff/context.server";
import { staffSessionMiddleware } from "~/services/staff/session.server";
import { ConsoleError, consoleErrorProps } from "./shell";

/**
 * The signed-in back office (issue 23): every page under /admin but sign-in, the code page and the
 * invitation links. The middleware checks the staff session before any loader or action under it
 * runs and puts the member in `signedInStaffContext` (read with `signedInStaff(context)`); not signed
 * in → /admin/sign-in?next=…. Draws the header, the navigation (only what the role may open), the
 * member's name and sign-out, and the main landmark; pages render only their content.
 *
 * A page under this layout: `export const meta = () => adminMeta("Title")`, a loader that starts with
 * `const staff = signedInStaff(context); requirePermission(staff, "…")`, and `headers = consoleRouteHeaders`.
 */
export const middleware: Route.MiddlewareFunction[] = [staffSessionMiddleware];

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  const csrf = await getCsrfToken(request);
  return data(
    { name: staff.name, roleLabel: STAFF_ROLE_LABELS[staff.role], nav: consoleNavFor(staff.role).map(({ href, label }) => ({ href, label })), csrfToken: csrf.token },
    { headers: consoleHeaders(csrf.setCookie) },
  );
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;

function Chrome({ children }: { children: React.ReactNode }) {
  const layout = useRouteLoaderData<typeof loader>("routes/console/layout");
  const { pathname } = useLocation();
  return (
    <>
      <ConsoleHeader>
        {layout ? <ConsoleNav items={layout.nav} current={pathname} name={layout.name} roleLabel={layout.roleLabel} csrfToken={layout.csrfToken} /> : null}
      </ConsoleHeader>
      <ConsoleMain>{children}</ConsoleMain>
    </>
  );
}

export default function ConsoleLayout() {
  return (
    <Chrome>
      <Outlet />
    </Chrome>
  );
}

/** A 403 names no record (the message is the role's, never the record's); a 404 says only "not found". */
export function ErrorBoundary() {
  const error = useRouteError();
  return (
    <Chrome>
      <ConsoleError {...consoleErrorProps(error)} />
    </Chrome>
  );
}
