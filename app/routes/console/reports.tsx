import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/reports";
import { adminMeta, CsrfInput, FormMessage } from "~/components/console/shell";
import { hourLabel, REPORT_WEEKDAYS, reportPreferenceSchema } from "~/domain/console/reports";
import { now as clockNow } from "~/platform/clock.server";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getReportPreference, limitReportChange, mayHaveReports, reportLocations, saveReportPreference } from "~/services/console/reports.server";
import { FORBIDDEN_MESSAGE, signedInStaff } from "~/services/staff/context.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";

/**
 * "Your reports by e-mail" (issue 40, decision 610): an owner or manager chooses a daily or weekly
 * report of their locations' numbers, sent at an hour in the locations' time zone, or none. A plain
 * form (works without JavaScript); CSRF, a limit per member, and the change in the audit trail.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  const csrf = await getCsrfToken(request);
  const allowed = mayHaveReports(staff.role);
  const pref = allowed ? await getReportPreference(context.db, staff.staffId) : null;
  const locs = allowed ? await reportLocations(context.db, staff) : [];
  const saved = new URL(request.url).searchParams.get("saved");
  return data(
    {
      csrfToken: csrf.token,
      allowed,
      email: staff.email,
      choice: pref ? { frequency: pref.frequency as string, hour: pref.hour, weekday: pref.weekday } : { frequency: "none", hour: 7, weekday: 1 },
      locations: locs.map((l) => `${l.name} (${l.timeZone})`),
      saved: saved === "1" ? "Saved. Your report will come at the next time you chose." : saved === "none" ? "Saved. You will get no report." : null,
    },
    { headers: consoleHeaders(csrf.setCookie) },
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const staff = signedInStaff(context);
  const now = clockNow();
  if (!mayHaveReports(staff.role)) throw data({ message: FORBIDDEN_MESSAGE }, { status: 403, headers: consoleHeaders() });
  const limited = await limitReportChange(context.db, staff, now);
  if (limited) return data({ message: limited, errors: {} as Record<string, string | undefined>, values: Object.fromEntries(form) as Record<string, unknown> }, { status: 429, headers: consoleHeaders() });
  const submission = parseWithZod(form, { schema: reportPreferenceSchema });
  if (submission.status !== "success") {
    const errors = Object.fromEntries(Object.entries(submission.error ?? {}).map(([k, v]) => [k, v?.[0]])) as Record<string, string | undefined>;
    return data({ message: "Please check the highlighted choices.", errors, values: Object.fromEntries(form) as Record<string, unknown> }, { status: 400, headers: consoleHeaders() });
  }
  await saveReportPreference(context.db, staff, submission.value, now);
  throw redirect(`/admin/reports?saved=${submission.value.frequency === "none" ? "none" : "1"}`, { status: 303, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Your reports by e-mail");

const HOURS = Array.from({ length: 24 }, (_, h) => h);

export default function Reports({ loaderData: d, actionData }: Route.ComponentProps) {
  if (!d.allowed) {
    return (
      <>
        <h1>Your reports by e-mail</h1>
        <p>Reports by e-mail are for owners and managers. Ask an owner if you need one.</p>
      </>
    );
  }
  const values = actionData?.values;
  const errors = actionData?.errors ?? {};
  const frequency = typeof values?.frequency === "string" ? values.frequency : d.choice.frequency;
  const hour = typeof values?.hour === "string" ? values.hour : String(d.choice.hour);
  const weekday = typeof values?.weekday === "string" ? values.weekday : String(d.choice.weekday);
  const describedBy = (name: string) => (errors[name] ? `report-${name}-error` : undefined);
  return (
    <>
      <h1>Your reports by e-mail</h1>
      <FormMessage tone="success" message={actionData ? null : d.saved} />
      <FormMessage message={actionData?.message} />
      <p>
        A report of your locations&apos; numbers, sent to {d.email}: new rentals, reservations, move-ins and move-outs, occupancy, payments (net) and declines, leads and
        recovered rentals, each with the week before beside it. A daily report covers the day before; a weekly one the seven days before.
      </p>
      <p>Your locations: {d.locations.length ? d.locations.join(", ") : "none"}. The report is sent at the hour you choose in each location&apos;s time zone.</p>
      <Form method="post" reloadDocument className="console-form">
        <CsrfInput token={d.csrfToken} />
        <fieldset aria-describedby={describedBy("frequency")}>
          <legend>Report</legend>
          {[
            ["none", "No report"],
            ["daily", "Daily"],
            ["weekly", "Weekly"],
          ].map(([value, label]) => (
            <div key={value} className="console-choice">
              <input type="radio" id={`report-frequency-${value}`} name="frequency" value={value} defaultChecked={frequency === value} aria-invalid={errors.frequency ? true : undefined} />
              <label htmlFor={`report-frequency-${value}`}>{label}</label>
            </div>
          ))}
          {errors.frequency ? (
            <p id="report-frequency-error" className="console-error">
              {errors.frequency}
            </p>
          ) : null}
        </fieldset>
        <div className={errors.hour ? "console-field console-field--invalid" : "console-field"}>
          <label htmlFor="report-hour">Sent at</label>
          <select id="report-hour" name="hour" defaultValue={hour} aria-invalid={errors.hour ? true : undefined} aria-describedby={describedBy("hour")}>
            {HOURS.map((h) => (
              <option key={h} value={String(h)}>
                {hourLabel(h)}
              </option>
            ))}
          </select>
          {errors.hour ? (
            <p id="report-hour-error" className="console-error">
              {errors.hour}
            </p>
          ) : null}
        </div>
        <div className={errors.weekday ? "console-field console-field--invalid" : "console-field"}>
          <label htmlFor="report-weekday">Weekly reports on</label>
          <select id="report-weekday" name="weekday" defaultValue={weekday} aria-invalid={errors.weekday ? true : undefined} aria-describedby={describedBy("weekday")}>
            {REPORT_WEEKDAYS.map((name, i) => (
              <option key={name} value={String(i + 1)}>
                {name}
              </option>
            ))}
          </select>
          {errors.weekday ? (
            <p id="report-weekday-error" className="console-error">
              {errors.weekday}
            </p>
          ) : null}
        </div>
        <button type="submit" className="console-button">
          Save
        </button>
      </Form>
    </>
  );
}
