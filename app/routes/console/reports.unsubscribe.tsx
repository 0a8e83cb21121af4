import { data, Form } from "react-router";
import type { Route } from "./+types/reports.unsubscribe";
import { adminMeta, ConsoleHeader, ConsoleMain, FormMessage } from "~/components/console/shell";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { reportUnsubscribeTarget, unsubscribeReport } from "~/services/console/reports.server";
import { isOneClickUnsubscribe } from "~/services/mail/unsubscribe-headers.server";
import { limitOneClickUnsubscribe } from "~/services/web/one-click-limits.server";
import { notFound } from "~/services/web/responses.server";

/**
 * The report e-mail's unsubscribe link (issue 40, decision 612), no session needed. A GET shows one
 * button (a mail scanner following the link changes nothing); the button, and a mail client's RFC 8058
 * one-click request, POST `List-Unsubscribe=One-Click` here. No CSRF token: the signed token in the
 * address is the authority (a forger would need it, and could only stop a report). Limited per link.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  const target = await reportUnsubscribeTarget(context.db, params.token);
  if (!target) throw notFound(consoleHeaders());
  return data({ email: target.email, hasReport: target.hasReport, done: false }, { headers: consoleHeaders() });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  if (!isOneClickUnsubscribe(form)) throw data({ message: "This address takes the one-click unsubscribe request only." }, { status: 400, headers: consoleHeaders() });
  const now = clockNow();
  if (await limitOneClickUnsubscribe(context.db, `staff-report:${params.token}`, now)) throw data({ message: "Too many requests for this link. Please try again later." }, { status: 429, headers: consoleHeaders() });
  const result = await unsubscribeReport(context.db, params.token, context.clientIp || null, now);
  if (!result) throw notFound(consoleHeaders());
  return data({ email: result.email, hasReport: false, done: true }, { headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Stop your report");

export default function ReportUnsubscribe({ loaderData, actionData }: Route.ComponentProps) {
  const d = actionData ?? loaderData;
  return (
    <>
      <ConsoleHeader />
      <ConsoleMain narrow>
        <h1>{d.done || !d.hasReport ? "No more reports" : "Stop your report"}</h1>
        {d.done || !d.hasReport ? (
          <FormMessage tone="success" message={`${d.email} gets no report by e-mail. You can choose one again under "Your reports" in the back office.`} />
        ) : (
          <>
            <p>Stop the report by e-mail that {d.email} gets?</p>
            <Form method="post" reloadDocument>
              <input type="hidden" name="List-Unsubscribe" value="One-Click" />
              <button type="submit" className="console-button">
                Stop my report
              </button>
            </Form>
          </>
        )}
        <p>
          <a href="/admin/reports">Your reports in the back office</a>
        </p>
      </ConsoleMain>
    </>
  );
}
