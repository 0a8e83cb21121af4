import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/sign-in.code";
import { adminMeta, ConsoleHeader, ConsoleMain, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { UsePasskey } from "~/components/staff/passkeys";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { clearCsrfCookieHeader, getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { requireSite } from "~/services/site/context.server";
import { staffCodeStep } from "~/services/staff/auth.server";
import { passkeyAuthenticationOptions, passkeySignIn, relyingParty } from "~/services/staff/passkeys.server";
import { getStaffSession, safeAdminPath } from "~/services/staff/session.server";
import { now as clockNow } from "~/platform/clock.server";
import { staffCodeSchema } from "~/domain/staff/forms";

/**
 * Back office sign-in, step 2: the code from the authenticator app, or a recovery code. Only a
 * session that has passed the password step reaches it. A member with a passkey is also offered
 * "Use a passkey" (decisions 272–273): the loader keeps a fresh challenge in the session and puts the
 * options in the page; the page's script asks the authenticator and posts its answer (`intent=passkey`)
 * to this action, which ends in the same full session. With JavaScript off the page says so and the
 * code works as before.
 */
async function pendingSession(request: Request, db: Parameters<typeof getStaffSession>[0]) {
  const session = await getStaffSession(db, request, clockNow());
  if (!session) throw redirect("/admin/sign-in", { headers: consoleHeaders() });
  return session;
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const next = safeAdminPath(new URL(request.url).searchParams.get("next"));
  const session = await pendingSession(request, context.db);
  if (!session.passwordOnly) throw redirect(next, { headers: consoleHeaders() });
  const csrf = await getCsrfToken(request);
  const { account, website } = await requireSite(context);
  const passkey = await passkeyAuthenticationOptions(context.db, { accountId: account.id, staffId: session.staffId, sessionHash: session.sessionHash, purpose: "sign_in", rp: relyingParty(website), now: clockNow() });
  // After a "forgot password" link (decision 503): the new password is saved, the second factor is still asked.
  const notice = new URL(request.url).searchParams.get("reset") === "1" ? "Your new password is saved. To sign in, enter the code from your authenticator app (or use your passkey)." : null;
  return data({ csrfToken: csrf.token, next, notice, passkeyOptions: passkey.ok ? JSON.stringify(passkey.options) : null }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const next = safeAdminPath(form.get("next"));
  const session = await pendingSession(request, context.db);
  if (!session.passwordOnly) throw redirect(next, { status: 303, headers: consoleHeaders() });
  if (form.get("intent") === "passkey") {
    const { account, website } = await requireSite(context);
    const result = await passkeySignIn(context.db, {
      accountId: account.id,
      staffId: session.staffId,
      sessionHash: session.sessionHash,
      response: form.get("response"),
      rp: relyingParty(website),
      ip: context.clientIp,
      now: clockNow(),
      userAgent: request.headers.get("User-Agent"),
    });
    if (!result.ok) return data({ error: undefined, message: result.message, result: undefined as SubmissionResult<string[]> | undefined }, { status: result.limited ? 429 : 400, headers: consoleHeaders() });
    throw redirect(next, { status: 303, headers: consoleHeaders(result.value, await clearCsrfCookieHeader()) });
  }
  // Conform + the same schema as the browser; the code is never sent back (hideFields).
  const submission = parseWithZod(form, { schema: staffCodeSchema });
  if (submission.status !== "success") {
    return data({ error: submission.error?.code?.[0], message: null as string | null, result: submission.reply({ hideFields: ["code"] }) }, { status: 400, headers: consoleHeaders() });
  }
  const code = submission.value.code;
  const { account } = await requireSite(context);
  const result = await staffCodeStep(context.db, {
    accountId: account.id,
    sessionHash: session.sessionHash,
    staffId: session.staffId,
    code,
    ip: context.clientIp,
    now: clockNow(),
    userAgent: request.headers.get("User-Agent"),
  });
  if (!result.ok) {
    const reply = result.limited ? submission.reply({ formErrors: [result.message], hideFields: ["code"] }) : submission.reply({ fieldErrors: { code: [result.message] }, hideFields: ["code"] });
    return data({ error: result.limited ? undefined : result.message, message: result.limited ? result.message : null, result: reply }, { status: result.limited ? 429 : 400, headers: consoleHeaders() });
  }
  const notice = result.method === "recovery_code" ? `?recovery=${result.remainingRecoveryCodes ?? 0}` : "";
  const to = notice && next === "/admin" ? `/admin${notice}` : next;
  throw redirect(to, { status: 303, headers: consoleHeaders(result.cookie, await clearCsrfCookieHeader()) });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Enter your code");

export default function StaffSignInCode({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "staff-sign-in-code",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: staffCodeSchema }),
  });
  const codeError = fields.code.errors?.[0] ?? actionData?.error;
  return (
    <>
      <ConsoleHeader />
      <ConsoleMain narrow>
        <h1>Enter your code</h1>
        {actionData ? null : <FormMessage tone="success" message={loaderData.notice} />}
        <FormMessage message={actionData?.message} />
        <Form method="post" {...getFormProps(form)} reloadDocument>
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="next" value={loaderData.next} />
          <TextField
            name="code"
            label="Code"
            hint="The 6-digit code your authenticator app shows now, or one of your recovery codes (like abcde-12345). Each code works once."
            autoComplete="one-time-code"
            error={codeError}
            required
          />
          <button type="submit" className="console-button">
            Sign in
          </button>
        </Form>
        {loaderData.passkeyOptions ? (
          <UsePasskey
            optionsJson={loaderData.passkeyOptions}
            csrfToken={loaderData.csrfToken}
            next={loaderData.next}
            heading="Or use a passkey"
            noScript="Passkeys need JavaScript, which is off in this browser: enter the code from your app or a recovery code above."
          />
        ) : null}
        <p>
          <a href="/admin/sign-in">Start again with another account</a>
        </p>
      </ConsoleMain>
    </>
  );
}
