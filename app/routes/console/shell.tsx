import { isRouteErrorResponse, Outlet, useRouteError } from "react-router";
import type { Route } from "./+types/shell";
import { ConsoleHeader, ConsoleMain } from "~/components/console/shell";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import adminCss from "~/styles/admin.css?url";

/**
 * Every page of the back office (issue 23), signed in or not (sign-in, the code page, invitation
 * links): the console's own stylesheet, `handle.consolePage` (no site chrome, no operator code, the
 * strict CSP, noindex: app/domain/console/pages.ts), and `no-store` answers.
 */
export const handle = { consolePage: true };

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: adminCss }];

export const headers: Route.HeadersFunction = consoleRouteHeaders;

export default function ConsoleShell() {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <Outlet />
    </>
  );
}

/** An error outside the signed-in pages (e.g. an expired form): said plainly, nothing else shown. */
export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <ConsoleHeader />
      <ConsoleMain narrow>
        <ConsoleError status={status} message={isRouteErrorResponse(error) ? (error.data as { message?: string } | null)?.message : undefined} />
      </ConsoleMain>
    </>
  );
}

export function ConsoleError({ status, message }: { status: number; message?: string }) {
  if (status === 403) {
    return (
      <>
        <h1>Not allowed</h1>
        <p>{message && !/^Not found$/.test(message) ? message : "Your role does not allow this. Ask an owner if you need it."}</p>
        <p>
          <a href="/admin">Back to the back office home</a>
        </p>
      </>
    );
  }
  if (status === 404) {
    return (
      <>
        <h1>Page not found</h1>
        <p>There is nothing here, or it is not within your locations.</p>
        <p>
          <a href="/admin">Back to the back office home</a>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Something went wrong</h1>
      <p>{status < 500 && message ? message : "Sorry, this page could not be shown. Please try again in a moment."}</p>
      <p>
        <a href="/admin">Back to the back office home</a>
      </p>
    </>
  );
}
