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
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <ConsoleHeader />
      <ConsoleMain narrow>
        <ConsoleError {...consoleErrorProps(error)} />
      </ConsoleMain>
    </>
  );
}

/** What a console error's data may carry: the message, and (a held action not done, decision 660) a heading and the page to go back to. */
export function consoleErrorProps(error: unknown): { status: number; message?: string; heading?: string; back?: string } {
  if (!isRouteErrorResponse(error)) return { status: 500 };
  const d = (error.data ?? null) as { message?: unknown; heading?: unknown; back?: unknown } | null;
  const text = (v: unknown) => (typeof v === "string" && v ? v : undefined);
  const back = text(d?.back);
  return { status: error.status, message: text(d?.message), heading: text(d?.heading), back: back && /^\/admin(\/[\w./-]*)?$/.test(back) ? back : undefined };
}

export function ConsoleError({ status, message, heading, back }: { status: number; message?: string; heading?: string; back?: string }) {
  const links = (
    <>
      {back ? (
        <p>
          <a href={back}>Back to the page</a>
        </p>
      ) : null}
      <p>
        <a href="/admin">Back to the back office home</a>
      </p>
    </>
  );
  if (status === 403) {
    return (
      <>
        <h1>{heading ?? "Not allowed"}</h1>
        <p>{message && !/^Not found$/.test(message) ? message : "Your role does not allow this. Ask an owner if you need it."}</p>
        {links}
      </>
    );
  }
  if (status === 404) {
    return (
      <>
        <h1>Page not found</h1>
        <p>There is nothing here, or it is not within your locations.</p>
        {links}
      </>
    );
  }
  return (
    <>
      <h1>{heading ?? "Something went wrong"}</h1>
      <p>{status < 500 && message ? message : "Sorry, this page could not be shown. Please try again in a moment."}</p>
      {links}
    </>
  );
}
