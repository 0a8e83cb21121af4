import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/forgot-password";
import { adminMeta, ConsoleHeader, ConsoleMain, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { STAFF_RESET_SENT_MESSAGE, staffForgotPasswordSchema } from "~/domain/staff/forms";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { requireSite } from "~/services/site/context.server";
import { consoleOriginFor } from "~/services/site/origin.server";
import { requestStaffPasswordReset } from "~/services/staff/password-reset.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * "Forgot your password?" of the back office (issue 39, decision 503): the e-mail address only; one
 * neutral answer whether or not it is a member's, and a link on the console's configured origin that
 * leads to a new password, never past the second factor.
 */
export async function loader({ request }: Route.LoaderArgs) {
  const csrf = await getCsrfToken(request);
  const sent = new URL(request.url).searchParams.get("sent") === "1";
  return data({ csrfToken: csrf.token, sent }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const email = typeof form.get("email") === "string" ? String(form.get("email")).slice(0, 254) : "";
  const submission = parseWithZod(form, { schema: staffForgotPasswordSchema });
  if (submission.status !== "success") {
    return data({ email, error: submission.error?.email?.[0] ?? null, message: null as string | null, result: submission.reply() }, { status: 400, headers: consoleHeaders() });
  }
  const { account } = await requireSite(context);
  const r = await requestStaffPasswordReset(context.db, { accountId: account.id, email: submission.value.email, ip: context.clientIp, origin: await consoleOriginFor(context), now: clockNow() });
  if (r.limited) {
    const message = `Too many requests. Please wait ${r.retryAfterMinutes} minute${r.retryAfterMinutes === 1 ? "" : "s"} and try again, or ask an owner of the business to reset your sign-in.`;
    return data({ email, error: null, message, result: submission.reply({ formErrors: [message] }) }, { status: 429, headers: consoleHeaders() });
  }
  // The same answer whether or not the address is a member's (post/redirect/get).
  throw redirect("/admin/forgot-password?sent=1", { status: 303, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Forgot your password?");

export default function StaffForgotPassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "staff-forgot-password",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: staffForgotPasswordSchema }),
  });
  return (
    <>
      <ConsoleHeader />
      <ConsoleMain narrow>
        <h1>Forgot your password?</h1>
        {loaderData.sent ? <FormMessage tone="success" message={STAFF_RESET_SENT_MESSAGE} /> : <p>Enter the e-mail address of your staff account and we will e-mail you a link to choose a new password.</p>}
        <FormMessage message={actionData?.message} />
        <Form method="post" {...getFormProps(form)} reloadDocument>
          <CsrfInput token={loaderData.csrfToken} />
          <TextField name="email" label="E-mail address" type="email" autoComplete="username" defaultValue={actionData?.email} error={fields.email.errors?.[0] ?? actionData?.error ?? undefined} required />
          <button type="submit" className="console-button">
            E-mail me a link
          </button>
        </Form>
        <p className="console-hint">Lost your authenticator app and your recovery codes too? Ask an owner of the business to reset your sign-in: they can send you a new invitation.</p>
        <p>
          <a href="/admin/sign-in">Back to sign-in</a>
        </p>
      </ConsoleMain>
    </>
  );
}
