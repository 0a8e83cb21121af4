import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/sign-in";
import { adminMeta, ConsoleHeader, ConsoleMain, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { requireSite } from "~/services/site/context.server";
import { staffPasswordStep } from "~/services/staff/auth.server";
import { getStaffSession, safeAdminPath } from "~/services/staff/session.server";
import { now as clockNow } from "~/platform/clock.server";

/** Back office sign-in, step 1: e-mail and password (step 2: /admin/sign-in/code). */
const schema = z.object({
  email: z.string({ error: "Enter your e-mail address." }).trim().min(1, "Enter your e-mail address.").max(254, "Enter your e-mail address.").email("Enter an e-mail address like name@example.com."),
  password: z.string({ error: "Enter your password." }).min(1, "Enter your password.").max(200, "Enter your password."),
});

export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const next = safeAdminPath(url.searchParams.get("next"));
  const session = await getStaffSession(context.db, request, clockNow());
  if (session && !session.passwordOnly) throw redirect(next, { headers: consoleHeaders() });
  const csrf = await getCsrfToken(request);
  const notice = url.searchParams.get("signedout") === "1" ? "You have signed out." : null;
  return data({ csrfToken: csrf.token, next, notice }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const next = safeAdminPath(form.get("next"));
  const email = typeof form.get("email") === "string" ? String(form.get("email")).slice(0, 254) : "";
  // Conform + the form's schema (the browser checks the same one); the password is never sent back.
  const submission = parseWithZod(form, { schema });
  const result = (): SubmissionResult<string[]> => submission.reply({ hideFields: ["password"] });
  if (submission.status !== "success") {
    const errors: Record<string, string> = {};
    for (const [field, messages] of Object.entries(submission.error ?? {})) if (messages?.[0]) errors[field] ??= messages[0];
    return data({ email, errors, message: null as string | null, result: result() }, { status: 400, headers: consoleHeaders() });
  }
  const parsed = { data: submission.value };
  const { account } = await requireSite(context);
  const step = await staffPasswordStep(context.db, {
    accountId: account.id,
    email: parsed.data.email,
    password: parsed.data.password,
    ip: context.clientIp,
    now: clockNow(),
    userAgent: request.headers.get("User-Agent"),
  });
  if (!step.ok) return data({ email, errors: {} as Record<string, string>, message: step.message, result: result() }, { status: step.limited ? 429 : 400, headers: consoleHeaders() });
  const to = next === "/admin" ? "/admin/sign-in/code" : `/admin/sign-in/code?next=${encodeURIComponent(next)}`;
  throw redirect(to, { status: 303, headers: consoleHeaders(step.cookie) });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Sign in");

export default function StaffSignIn({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "staff-sign-in",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const errors = { email: fields.email.errors?.[0] ?? actionData?.errors?.email, password: fields.password.errors?.[0] ?? actionData?.errors?.password };
  return (
    <>
      <ConsoleHeader />
      <ConsoleMain narrow>
        <h1>Sign in to the back office</h1>
        <FormMessage message={loaderData.notice} tone="success" />
        <FormMessage message={actionData?.message} />
        <Form method="post" {...getFormProps(form)} reloadDocument>
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="next" value={loaderData.next} />
          <TextField name="email" label="E-mail address" type="email" autoComplete="username" defaultValue={actionData?.email} error={errors.email} required />
          <TextField name="password" label="Password" type="password" autoComplete="current-password" error={errors.password} required />
          <button type="submit" className="console-button">
            Continue
          </button>
        </Form>
        <p className="console-hint">Next you will be asked for the code from your authenticator app. Staff accounts are made by invitation from an owner.</p>
        <p>
          <a href="/admin/forgot-password">Forgot your password?</a>
        </p>
      </ConsoleMain>
    </>
  );
}
