import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import type { Route } from "./+types/forgot-password";
import { routeMeta } from "~/components/ui/route-meta";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/ui/form";
import { forgotPasswordSchema } from "~/domain/portal/forms";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { portalContext, portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { requestPasswordReset } from "~/services/portal/sign-in-limits.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";

// Takes a password or carries a token: first-party code only (issue 36, decision 464).
export const handle = { enhanceForms: true, passwordPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

export async function loader({ request }: Route.LoaderArgs) {
  const csrf = await getCsrfToken(request);
  const sent = new URL(request.url).searchParams.get("sent") === "1";
  return data({ csrfToken: csrf.token, sent }, { headers: portalHeaders(csrf.setCookie) });
}

export const action = keepFormThroughOutage(forgotPasswordAction, (form) => ({ result: outageResult(form) }));

async function forgotPasswordAction({ request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const submission = parseWithZod(formData, { schema: forgotPasswordSchema });
  if (submission.status !== "success") return data({ result: submission.reply() }, { status: 400, headers: portalHeaders() });
  const ctx = await portalContext(context);
  const r = await requestPasswordReset(ctx.db, ctx.storage, { email: submission.value.email, ip: context.clientIp, origin: ctx.origin, now: ctx.now, siteName: ctx.siteName });
  if (r.limited) {
    const minutes = r.retryAfterMinutes ?? 15;
    return data(
      { result: submission.reply({ formErrors: [`Too many reset requests. Please wait ${minutes} minute${minutes === 1 ? "" : "s"} and try again, or call the office.`] }) },
      { status: 429, headers: portalHeaders() },
    );
  }
  // The same answer whether or not the email has an account.
  throw redirect("/customer-portal/forgot-password?sent=1", { status: 303, headers: portalHeaders() });
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Forgot your password? | Customer Portal", description: "Get a link to choose a new customer portal password.", path: "/customer-portal/forgot-password" });

export default function ForgotPassword({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "forgot-password",
    lastResult: actionData?.result,
    constraint: getZodConstraint(forgotPasswordSchema),
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: forgotPasswordSchema }),
  });
  return (
    <>
      <h1>Forgot your password?</h1>
      {loaderData.sent ? (
        <div className="alert alert--success" role="status">
          <h2>Check your email</h2>
          <p>
            If that email address belongs to a customer portal account, we have sent it a link to choose a new password. The link
            works once and expires in one hour.
          </p>
        </div>
      ) : (
        <p className="lead">Enter the email address of your account and we will email you a link to choose a new password.</p>
      )}
      <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
        <CsrfInput token={loaderData.csrfToken} />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field label="Email address" meta={fields.email}>
          {(p) => <input {...getInputProps(fields.email, { type: "email" })} {...p} autoComplete="email" />}
        </Field>
        <SubmitButton pendingText="Sending…">Email me a reset link</SubmitButton>
      </Form>
      <p>
        <Link to="/customer-portal/login">Back to sign in</Link>
      </p>
    </>
  );
}
