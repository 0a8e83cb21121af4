import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/link";
import type { Route } from "./+types/customer-portal.reset-password";
import { routeMeta } from "~/components/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/error-summary";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/form";
import { resetPasswordSchema } from "~/domain/portal-forms";
import { commonPasswordError } from "~/domain/common-passwords";
import { PASSWORD_MAX, PASSWORD_MIN } from "~/domain/tenant-form";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { portalContext, portalHeaders, portalRouteHeaders } from "~/services/portal.server";
import { isResetTokenValid, resetPassword } from "~/services/auth.server";
import { keepFormThroughOutage, outageResult } from "~/services/form-outage.server";

export const handle = { enhanceForms: true };

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = await portalContext(context);
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const csrf = await getCsrfToken(request);
  const valid = await isResetTokenValid(ctx.db, token, ctx.now);
  return data({ csrfToken: csrf.token, token, valid }, { headers: portalHeaders(csrf.setCookie) });
}

export const action = keepFormThroughOutage(resetPasswordAction, (form) => ({ result: outageResult(form) }));

async function resetPasswordAction({ request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const submission = parseWithZod(formData, { schema: resetPasswordSchema });
  const hide = ["new_password", "confirm_password"];
  if (submission.status !== "success") return data({ result: submission.reply({ hideFields: hide }) }, { status: 400, headers: portalHeaders() });
  const commonPassword = commonPasswordError(submission.value.new_password);
  if (commonPassword) return data({ result: submission.reply({ fieldErrors: { new_password: [commonPassword] }, hideFields: hide }) }, { status: 400, headers: portalHeaders() });
  const ctx = await portalContext(context);
  const r = await resetPassword(ctx.db, ctx.storage, { token: submission.value.token, password: submission.value.new_password, now: ctx.now, accountId: ctx.accountId });
  if (!r.ok) {
    return data(
      { result: submission.reply({ formErrors: ["This reset link has expired or was already used. Please ask for a new one."], hideFields: hide }) },
      { status: 400, headers: portalHeaders() },
    );
  }
  throw redirect("/customer-portal/login?reset=1", { status: 303, headers: portalHeaders() });
}

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
        <h1>This link has expired</h1>
        <div className="alert alert--error" role="alert">
          <p>This password reset link has expired or was already used. Links work once, for one hour.</p>
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
        <input type="hidden" name="token" value={loaderData.token} />
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
