import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/reset-password";
import { adminMeta, ConsoleHeader, ConsoleMain, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { commonStaffPasswordError } from "~/domain/shared/common-passwords";
import { personalPasswordError, STAFF_PASSWORD_HINT, staffPasswordField } from "~/domain/staff/password";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { clearCsrfCookieHeader, getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { requireSite } from "~/services/site/context.server";
import { completeStaffPasswordReset, readStaffPasswordReset, type StaffResetState } from "~/services/staff/password-reset.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * A "forgot password" link (issue 39, decision 503): the member chooses a new password under the
 * invitation's rules (issue 36). It leads to the second-factor page, never past it.
 */
const schema = z
  .object({
    password: staffPasswordField("password"),
    confirm: z.string({ error: "Enter the password again." }),
  })
  .refine((v) => v.password === v.confirm, { message: "The two passwords are not the same.", path: ["confirm"] });

const LINK_MESSAGES: Record<Exclude<StaffResetState["state"], "open">, string> = {
  expired: "This link has expired (links work for one hour) or can no longer be used. Ask for a new one.",
  used: "This link has been used already: each link works once. Sign in with your new password, or ask for a new link.",
  unknown: "This link is not valid. Check that you copied all of it, or ask for a new one.",
};

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const reset = await readStaffPasswordReset(context.db, params.token, clockNow());
  if (reset.state !== "open") return data({ linkMessage: LINK_MESSAGES[reset.state], csrfToken: "", email: null as string | null }, { status: 410, headers: consoleHeaders() });
  const csrf = await getCsrfToken(request);
  return data({ linkMessage: null as string | null, csrfToken: csrf.token, email: reset.email as string | null }, { headers: consoleHeaders(csrf.setCookie) });
}

const hide = { hideFields: ["password", "confirm"] };

export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const now = clockNow();
  const reset = await readStaffPasswordReset(context.db, params.token, now);
  if (reset.state !== "open") return data({ linkMessage: LINK_MESSAGES[reset.state], errors: {} as Record<string, string>, message: null as string | null, result: undefined as SubmissionResult<string[]> | undefined }, { status: 410, headers: consoleHeaders() });
  // Conform + the form's schema (the browser checks the same one); the passwords are never sent back.
  const submission = parseWithZod(form, { schema });
  const errors: Record<string, string> = {};
  for (const [field, messages] of Object.entries(submission.status === "success" ? {} : (submission.error ?? {}))) if (messages?.[0]) errors[field] ??= messages[0];
  const { website, account } = await requireSite(context);
  const typed = typeof form.get("password") === "string" ? String(form.get("password")) : undefined;
  const weak = commonStaffPasswordError(typed) ?? personalPasswordError(typed, { name: reset.name, email: reset.email, companyName: website.websiteName });
  if (weak && !errors.password) errors.password = weak;
  if (submission.status !== "success" || Object.keys(errors).length) {
    const result = submission.reply({ ...hide, fieldErrors: Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, [v]])) });
    return data({ linkMessage: null, errors, message: null, result }, { status: 400, headers: consoleHeaders() });
  }
  const done = await completeStaffPasswordReset(context.db, {
    accountId: account.id,
    token: params.token,
    password: submission.value.password,
    ip: context.clientIp,
    now,
    userAgent: request.headers.get("User-Agent"),
    companyName: website.websiteName,
  });
  if (!done.ok && done.reason === "link") return data({ linkMessage: LINK_MESSAGES[done.state], errors: {}, message: null, result: undefined }, { status: 410, headers: consoleHeaders() });
  if (!done.ok && done.reason === "password") {
    return data({ linkMessage: null, errors: { password: done.message }, message: null, result: submission.reply({ ...hide, fieldErrors: { password: [done.message] } }) }, { status: 400, headers: consoleHeaders() });
  }
  if (!done.ok) return data({ linkMessage: null, errors: {}, message: done.message, result: submission.reply({ ...hide, formErrors: [done.message] }) }, { status: 429, headers: consoleHeaders() });
  // A password-only session: the second factor is still asked (decision 503).
  throw redirect("/admin/sign-in/code?reset=1", { status: 303, headers: consoleHeaders(done.cookie, await clearCsrfCookieHeader()) });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Choose a new password");

export default function StaffResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "staff-reset-password",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const linkMessage = actionData?.linkMessage ?? loaderData.linkMessage;
  const served: Record<string, string | undefined> = actionData?.errors ?? {};
  const errors = { password: fields.password.errors?.[0] ?? served.password, confirm: fields.confirm.errors?.[0] ?? served.confirm };
  return (
    <>
      <ConsoleHeader />
      <ConsoleMain narrow>
        {linkMessage ? (
          <>
            <h1>Password reset link</h1>
            <FormMessage message={linkMessage} />
            <p>
              <a href="/admin/forgot-password">Ask for a new link</a>
            </p>
            <p>
              <a href="/admin/sign-in">Go to sign-in</a>
            </p>
          </>
        ) : (
          <>
            <h1>Choose a new password</h1>
            <p>
              For <strong>{loaderData.email}</strong>. After this you will be asked for the code from your authenticator app (or your passkey) as usual; your other sessions end.
            </p>
            <FormMessage message={actionData?.message} />
            {errors.password || errors.confirm ? <FormMessage message="Please correct the fields marked below." /> : null}
            <Form method="post" {...getFormProps(form)} reloadDocument>
              <CsrfInput token={loaderData.csrfToken} />
              <input type="text" name="username" autoComplete="username" defaultValue={loaderData.email ?? ""} hidden readOnly />
              <TextField name="password" label="New password" type="password" autoComplete="new-password" hint={STAFF_PASSWORD_HINT} error={errors.password} required />
              <TextField name="confirm" label="New password again" type="password" autoComplete="new-password" error={errors.confirm} required />
              <button type="submit" className="console-button">
                Save my new password
              </button>
            </Form>
          </>
        )}
      </ConsoleMain>
    </>
  );
}
