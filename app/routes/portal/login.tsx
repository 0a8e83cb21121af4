import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import type { Route } from "./+types/login";
import { routeMeta } from "~/components/ui/route-meta";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/ui/form";
import { signInSchema } from "~/domain/portal/forms";
import { clearCsrfCookieHeader, getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { portalContext, portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { createTenantSession, getTenantSession } from "~/services/web/session.server";
import { safeRedirectTo } from "~/domain/web/safe-redirect";
import { signIn } from "~/services/portal/sign-in-limits.server";
import { phoneHref } from "~/domain/shared/phone";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";

// Takes a password or carries a token: first-party code only (issue 36, decision 464).
export const handle = { enhanceForms: true, passwordPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = await portalContext(context);
  const url = new URL(request.url);
  const redirectTo = safeRedirectTo(url.searchParams.get("redirectTo"));
  if (await getTenantSession(ctx.db, request, ctx.now)) throw redirect(redirectTo, { headers: portalHeaders() });
  const csrf = await getCsrfToken(request);
  const notice = url.searchParams.get("reset") === "1" ? "Your password has been changed. Please sign in with your new password." : url.searchParams.get("signedout") === "1" ? "You have signed out." : null;
  return data({ csrfToken: csrf.token, phone: ctx.phone, redirectTo, notice }, { headers: portalHeaders(csrf.setCookie) });
}

export const action = keepFormThroughOutage(loginAction, (form, message) => ({ result: outageResult(form, message) }));

async function loginAction({ request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const submission = parseWithZod(formData, { schema: signInSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply({ hideFields: ["password"] }) }, { status: 400, headers: portalHeaders() });
  }
  const ctx = await portalContext(context);
  const result = await signIn(ctx.db, ctx.storage, {
    accountId: ctx.accountId,
    email: submission.value.email,
    password: submission.value.password,
    ip: context.clientIp,
    now: ctx.now,
  });
  if (!result.ok) {
    return data(
      // `attempt` remounts the password input so a refused password is cleared in the browser too.
      { result: submission.reply({ formErrors: [result.message], hideFields: ["password"] }), attempt: crypto.randomUUID() },
      { status: result.limited ? 429 : 400, headers: portalHeaders() },
    );
  }
  const cookie = await createTenantSession(ctx.db, { tenantId: result.tenantId, now: ctx.now, userAgent: request.headers.get("User-Agent"), ip: context.clientIp });
  // The CSRF token rotates: from now on it is derived from the new session, and the pre-sign-in
  // double-submit cookie is cleared (docs/decisions/077).
  throw redirect(safeRedirectTo(submission.value.redirectTo), { status: 303, headers: portalHeaders(cookie, await clearCsrfCookieHeader()) });
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, {
    title: "Pay Online | Customer Portal Sign In",
    description: "Sign in to the customer portal to pay your storage bill, set up autopay and manage your unit.",
    path: "/customer-portal/login",
  });

export default function PortalLogin({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "sign-in",
    lastResult: actionData?.result,
    constraint: getZodConstraint(signInSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: signInSchema }),
  });
  return (
    <>
      <h1>Customer portal sign in</h1>
      <p className="lead">Pay your bill, set up autopay, pay months ahead or give notice — any time.</p>
      {loaderData.notice ? (
        <div className="alert alert--success" role="status">
          <p>{loaderData.notice}</p>
        </div>
      ) : null}
      <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
        <CsrfInput token={loaderData.csrfToken} />
        <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field label="Email address" meta={fields.email}>
          {(p) => <input {...getInputProps(fields.email, { type: "email" })} {...p} autoComplete="username" />}
        </Field>
        <Field label="Password" meta={fields.password}>
          {(p) => (
            <input
              {...getInputProps(fields.password, { type: "password" })}
              {...p}
              key={actionData && "attempt" in actionData ? String(actionData.attempt) : "first"}
              defaultValue={undefined}
              autoComplete="current-password"
            />
          )}
        </Field>
        <SubmitButton pendingText="Signing in…">Sign in</SubmitButton>
      </Form>
      <p>
        <Link to="/customer-portal/forgot-password">Forgot your password?</Link>
      </p>
      <p>
        <Link to="/customer-portal/create-sign-in">Rented at the office? Create your sign-in</Link>
      </p>
      <p className="portal-help">
        Rented online? Sign in with the email and password you chose when you rented. Rented at the office, or need help?
        Call us at <a href={phoneHref(loaderData.phone)}>{loaderData.phone}</a>.
      </p>
    </>
  );
}
