import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/reauth";
import { adminMeta, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { UsePasskey } from "~/components/staff/passkeys";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { confirmFreshFactor } from "~/services/staff/auth.server";
import { signedInStaff } from "~/services/staff/context.server";
import { safeAdminPath } from "~/services/staff/session.server";
import { heldActionPath } from "~/services/staff/step-up.server";
import { requireSite } from "~/services/site/context.server";
import { passkeyAuthenticationOptions, relyingParty, verifyPasskey } from "~/services/staff/passkeys.server";
import { now as clockNow } from "~/platform/clock.server";
import { HELD_ACTION_FIELD, staffCodeSchema } from "~/domain/staff/forms";

/**
 * "Confirm it's you" (decision 250): before a sensitive page or action (staff changes, exports of
 * personal data, refunds, the audit trail) a code from the app or a recovery code, then back.
 * A member with a passkey may use it instead (with JavaScript; decision 273). When it interrupted an
 * action (any of them: app/services/staff/step-up.server.ts), the form was held (decisions 643, 660):
 * after the code this page answers 307 to the held form's URL, so the browser posts again and that
 * page completes what was asked.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  const url = new URL(request.url);
  const next = safeAdminPath(url.searchParams.get("next"));
  const heldParam = url.searchParams.get(HELD_ACTION_FIELD);
  const held = heldParam && (await heldActionPath(context.db, staff, heldParam, clockNow())) ? heldParam : null;
  const csrf = await getCsrfToken(request);
  const { website } = await requireSite(context);
  const passkey = await passkeyAuthenticationOptions(context.db, { accountId: staff.accountId, staffId: staff.staffId, sessionHash: staff.sessionHash, purpose: "reauth", rp: relyingParty(website), now: clockNow() });
  return data({ csrfToken: csrf.token, next, held, passkeyOptions: passkey.ok ? JSON.stringify(passkey.options) : null }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const staff = signedInStaff(context);
  const next = safeAdminPath(form.get("next"));
  /** After the code: back to the page (a 303), or on to complete the held form there (a 307: the browser posts again). */
  const onward = async () => {
    const path = await heldActionPath(context.db, staff, form.get(HELD_ACTION_FIELD), clockNow());
    return path ? redirect(path, { status: 307, headers: consoleHeaders() }) : redirect(next, { status: 303, headers: consoleHeaders() });
  };
  if (form.get("intent") === "passkey") {
    const { website } = await requireSite(context);
    const result = await verifyPasskey(context.db, { accountId: staff.accountId, staffId: staff.staffId, sessionHash: staff.sessionHash, purpose: "reauth", response: form.get("response"), rp: relyingParty(website), ip: context.clientIp, now: clockNow() });
    if (!result.ok) return data({ error: undefined, message: result.message, result: undefined as SubmissionResult<string[]> | undefined }, { status: result.limited ? 429 : 400, headers: consoleHeaders() });
    throw await onward();
  }
  // Conform + the same schema as the browser; the code is never sent back (hideFields).
  const submission = parseWithZod(form, { schema: staffCodeSchema });
  if (submission.status !== "success") {
    return data({ error: submission.error?.code?.[0], message: null as string | null, result: submission.reply({ hideFields: ["code"] }) }, { status: 400, headers: consoleHeaders() });
  }
  const code = submission.value.code;
  const result = await confirmFreshFactor(context.db, { accountId: staff.accountId, staffId: staff.staffId, sessionHash: staff.sessionHash, code, ip: context.clientIp, now: clockNow() });
  if (!result.ok) {
    const reply = result.limited ? submission.reply({ formErrors: [result.message], hideFields: ["code"] }) : submission.reply({ fieldErrors: { code: [result.message] }, hideFields: ["code"] });
    return data({ error: result.limited ? undefined : result.message, message: result.limited ? result.message : null, result: reply }, { status: result.limited ? 429 : 400, headers: consoleHeaders() });
  }
  throw await onward();
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Confirm it's you");

export default function Reauthenticate({ loaderData, actionData }: Route.ComponentProps) {
  const [form, fields] = useForm({
    id: "staff-reauth",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: staffCodeSchema }),
  });
  const codeError = fields.code.errors?.[0] ?? actionData?.error;
  return (
    <>
      <h1>Confirm it&apos;s you</h1>
      <p>
        {loaderData.held
          ? "What you asked for changes sensitive information. Enter a code, and it is done straight after: nothing to choose again."
          : "This page changes or exports sensitive information. Enter a code to continue."}
      </p>
      <FormMessage message={actionData?.message} />
      <Form method="post" {...getFormProps(form)} reloadDocument>
        <CsrfInput token={loaderData.csrfToken} />
        <input type="hidden" name="next" value={loaderData.next} />
        {loaderData.held ? <input type="hidden" name={HELD_ACTION_FIELD} value={loaderData.held} /> : null}
        <TextField name="code" label="Code" hint="The 6-digit code your authenticator app shows now, or one of your recovery codes." autoComplete="one-time-code" error={codeError} required />
        <button type="submit" className="console-button">
          Continue
        </button>
      </Form>
      {loaderData.passkeyOptions ? (
        <UsePasskey
          optionsJson={loaderData.passkeyOptions}
          csrfToken={loaderData.csrfToken}
          next={loaderData.next}
          held={loaderData.held ? { name: HELD_ACTION_FIELD, value: loaderData.held } : null}
          heading="Or use a passkey"
          noScript="Passkeys need JavaScript, which is off in this browser: enter the code from your app or a recovery code above."
        />
      ) : null}
    </>
  );
}
