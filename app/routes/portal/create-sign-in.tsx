import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import type { Route } from "./+types/create-sign-in";
import { routeMeta } from "~/components/ui/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/ui/form";
import { officeSignInSchema } from "~/domain/portal/forms";
import { commonPasswordError } from "~/domain/shared/common-passwords";
import { PASSWORD_MAX, PASSWORD_MIN } from "~/domain/shared/tenant-form";
import { phoneHref } from "~/domain/shared/phone";
import { clearCsrfCookieHeader, getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { portalContext, portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { createTenantSession, getTenantSession } from "~/services/web/session.server";
import { createOfficeSignIn } from "~/services/portal/office-sign-in.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";

/** "Rented at the office? Create your sign-in" (issue 11, docs/decisions/141). */
// Takes a password or carries a token: first-party code only (issue 36, decision 464).
export const handle = { enhanceForms: true, passwordPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = await portalContext(context);
  if (await getTenantSession(ctx.db, request, ctx.now)) throw redirect("/customer-portal", { headers: portalHeaders() });
  const csrf = await getCsrfToken(request);
  return data({ csrfToken: csrf.token, phone: ctx.phone }, { headers: portalHeaders(csrf.setCookie) });
}

export const action = keepFormThroughOutage(createSignInAction, (form) => ({ result: outageResult(form) }));

const HIDE = ["office_password", "new_password", "confirm_password"];

async function createSignInAction({ request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const submission = parseWithZod(formData, { schema: officeSignInSchema });
  if (submission.status !== "success") return data({ result: submission.reply({ hideFields: HIDE }) }, { status: 400, headers: portalHeaders() });
  const common = commonPasswordError(submission.value.new_password);
  if (common) return data({ result: submission.reply({ fieldErrors: { new_password: [common] }, hideFields: HIDE }) }, { status: 400, headers: portalHeaders() });
  const ctx = await portalContext(context);
  const r = await createOfficeSignIn(ctx.db, ctx.locations, {
    accountId: ctx.accountId,
    email: submission.value.email,
    officePassword: submission.value.office_password,
    password: submission.value.new_password,
    ip: context.clientIp,
    now: ctx.now,
  });
  if (!r.ok) {
    const reply = r.field ? submission.reply({ fieldErrors: { [r.field]: [r.message] }, hideFields: HIDE }) : submission.reply({ formErrors: [r.message], hideFields: HIDE });
    return data({ result: reply }, { status: r.limited ? 429 : 400, headers: portalHeaders() });
  }
  const cookie = await createTenantSession(ctx.db, { tenantId: r.tenantId, now: ctx.now, userAgent: request.headers.get("User-Agent"), ip: context.clientIp });
  throw redirect("/customer-portal", { status: 303, headers: portalHeaders(cookie, await clearCsrfCookieHeader()) });
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, {
    title: "Create your sign-in | Customer Portal",
    description: "Rented at the office? Create your customer portal sign-in.",
    path: "/customer-portal/create-sign-in",
  });

export default function CreateSignIn({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "create-sign-in",
    lastResult: actionData?.result,
    constraint: getZodConstraint(officeSignInSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: officeSignInSchema }),
  });
  const names = ["email", "office_password", "new_password", "confirm_password"] as const;
  return (
    <>
      <h1>Create your sign-in</h1>
      <p className="lead">
        Rented at the office? Enter the email address the office has for you and the password the office gave you, then choose your own password.
      </p>
      <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
        <CsrfInput token={loaderData.csrfToken} />
        {actionData ? <ErrorSummary errors={summaryErrors(form.allErrors, names.map((n) => fields[n]))} /> : null}
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field label="Email address" meta={fields.email}>
          {(p) => <input {...getInputProps(fields.email, { type: "email" })} {...p} autoComplete="username" />}
        </Field>
        <Field label="Password from the office" meta={fields.office_password}>
          {(p) => <input {...getInputProps(fields.office_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="off" />}
        </Field>
        <Field label="New password" meta={fields.new_password} hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`}>
          {(p) => <input {...getInputProps(fields.new_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="new-password" />}
        </Field>
        <Field label="Confirm new password" meta={fields.confirm_password}>
          {(p) => <input {...getInputProps(fields.confirm_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="new-password" />}
        </Field>
        <SubmitButton pendingText="Creating your sign-in…">Create my sign-in</SubmitButton>
      </Form>
      <p className="portal-help">
        No password from the office, or need help? Call us at <a href={phoneHref(loaderData.phone)}>{loaderData.phone}</a>.
      </p>
      <p>
        <Link to="/customer-portal/login">Back to sign in</Link>
      </p>
    </>
  );
}
