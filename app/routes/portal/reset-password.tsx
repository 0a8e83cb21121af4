import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import type { Route } from "./+types/reset-password";
import { routeMeta } from "~/components/ui/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/ui/form";
import { resetPasswordSchema } from "~/domain/portal/forms";
import { commonPasswordError } from "~/domain/shared/common-passwords";
import { PASSWORD_MAX, PASSWORD_MIN } from "~/domain/shared/tenant-form";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { portalContext, portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { isResetTokenValid, resetPassword } from "~/services/portal/sign-in-limits.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";
import { clearResetTokenCookie, RESET_PAGE_PATH, resetTokenCookie, resetTokenFromCookie, resetTokenOfQuery } from "~/services/portal/reset-token-cookie.server";

// Takes a password or carries a token: first-party code only (issue 36, decision 464).
export const handle = { enhanceForms: true, passwordPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

/**
 * The e-mailed link carries the token in its query; it leaves the URL before the page renders (issue
 * 36, decision 464): kept in a short-lived HttpOnly cookie for this path, then a redirect to the bare
 * page. The form sends it back through that cookie, never through the page or a URL.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const fromQuery = resetTokenOfQuery(new URL(request.url));
  if (fromQuery !== null) {
    const headers = portalHeaders(fromQuery ? resetTokenCookie(fromQuery) : clearResetTokenCookie());
    headers.set("Referrer-Policy", "no-referrer");
    throw redirect(RESET_PAGE_PATH, { status: 303, headers });
  }
  const ctx = await portalContext(context);
  const token = resetTokenFromCookie(request);
  const csrf = await getCsrfToken(request);
  const valid = token ? await isResetTokenValid(ctx.db, token, ctx.now) : false;
  return data({ csrfToken: csrf.token, valid, missing: !token }, { headers: portalHeaders(csrf.setCookie) });
}

export const action = keepFormThroughOutage(resetPasswordAction, (form) => ({ result: outageResult(form) }));

async function resetPasswordAction({ request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  // The token comes with the cookie the link's redirect set (a form of an older page may still send it).
  const kept = resetTokenFromCookie(request);
  if (kept) formData.set("token", kept);
  const submission = parseWithZod(formData, { schema: resetPasswordSchema });
  const hide = ["new_password", "confirm_password"];
  if (!formData.get("token")) return data({ result: submission.reply({ formErrors: [EXPIRED_PAGE_MESSAGE], hideFields: hide }) }, { status: 400, headers: portalHeaders() });
  if (submission.status !== "success") return data({ result: submission.reply({ hideFields: hide }) }, { status: 400, headers: portalHeaders() });
  const commonPassword = commonPasswordError(submission.value.new_password);
  if (commonPassword) return data({ result: submission.reply({ fieldErrors: { new_password: [commonPassword] }, hideFields: hide }) }, { status: 400, headers: portalHeaders() });
  const ctx = await portalContext(context);
  const r = await resetPassword(ctx.db, ctx.storage, { token: submission.value.token, password: submission.value.new_password, now: ctx.now, accountId: ctx.accountId });
  if (!r.ok) {
    return data(
      { result: submission.reply({ formErrors: ["This reset link has expired or was already used. Please ask for a new one."], hideFields: hide }) },
      { status: 400, headers: portalHeaders(clearResetTokenCookie()) },
    );
  }
  throw redirect("/customer-portal/login?reset=1", { status: 303, headers: portalHeaders(clearResetTokenCookie()) });
}

const EXPIRED_PAGE_MESSAGE =
  "This page has expired: please open the link in your e-mail again (it works once, for one hour), or ask for a new link.";

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Choose a new password | Customer Portal", description: "Choose a new customer portal password.", path: "/customer-portal/reset-password" });

export default function ResetPassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "reset-password",
    lastResult: actionData?.result,
    constraint: getZodConstraint(resetPasswordSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: resetPasswordSchema }),
  });
  if (!loaderData.valid && !actionData) {
    return (
      <>
        <h1>{loaderData.missing ? "Open the link from your e-mail" : "This link has expired"}</h1>
        <div className="alert alert--error" role="alert">
          <p>
            {loaderData.missing
              ? "This page needs the password reset link we e-mailed you. Open that link again (it works once, for one hour), or ask for a new one."
              : "This password reset link has expired or was already used. Links work once, for one hour."}
          </p>
        </div>
        <p>
          <Link to="/customer-portal/forgot-password">Ask for a new link</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Choose a new password</h1>
      <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
        <CsrfInput token={loaderData.csrfToken} />
        {actionData ? <ErrorSummary errors={summaryErrors(form.allErrors, (["new_password", "confirm_password"] as const).map((n) => fields[n]))} /> : null}
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field label="New password" meta={fields.new_password} hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`}>
          {(p) => <input {...getInputProps(fields.new_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="new-password" />}
        </Field>
        <Field label="Confirm new password" meta={fields.confirm_password}>
          {(p) => <input {...getInputProps(fields.confirm_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="new-password" />}
        </Field>
        <SubmitButton pendingText="Saving…">Save new password</SubmitButton>
      </Form>
    </>
  );
}
