import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/invite";
import { adminMeta, ConsoleHeader, ConsoleMain, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { commonStaffPasswordError } from "~/domain/shared/common-passwords";
import { personalPasswordError, STAFF_PASSWORD_HINT, staffPasswordField } from "~/domain/staff/password";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { clearCsrfCookieHeader, getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { requireSite } from "~/services/site/context.server";
import { acceptInvite, readInvite, totpEnrolment, type InviteState } from "~/services/staff/auth.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * An invitation link (issue 23): the new member sets their name and password (the staff rule of
 * issue 36: 12 to 128 characters, not common, not their name, e-mail or the company's name) and enrols TOTP — the key as text (base32), as an otpauth:// URI and as a
 * QR code drawn on the server (no JavaScript needed) — with a first code before anything is saved.
 * Then the ten recovery codes, shown this once.
 */
const schema = z
  .object({
    name: z.string({ error: "Enter your name." }).trim().min(1, "Enter your name.").max(100, "Your name can be at most 100 characters."),
    password: staffPasswordField("password"),
    confirm: z.string({ error: "Enter the password again." }),
    code: z.string({ error: "Enter the 6-digit code from your app." }).trim().regex(/^\d{6}$/, "Enter the 6-digit code your app shows for this account."),
  })
  .refine((v) => v.password === v.confirm, { message: "The two passwords are not the same.", path: ["confirm"] });

const LINK_MESSAGES: Record<Exclude<InviteState["state"], "open">, string> = {
  expired: "This invitation link has expired (links work for 24 hours). Ask an owner to invite you again.",
  used: "This invitation link has been used already. If it was you, sign in; otherwise ask an owner to invite you again.",
  unknown: "This invitation link is not valid. Check that you copied all of it, or ask an owner to invite you again.",
};

async function enrolmentView(context: Route.LoaderArgs["context"], invite: Extract<InviteState, { state: "open" }>, sealed?: string | null) {
  const { website } = await requireSite(context);
  const totp = await totpEnrolment({ inviteId: invite.inviteId, email: invite.email, issuer: `${website.websiteName} back office`, sealed });
  return { email: invite.email, secret: totp.secret, uri: totp.uri, qrSvg: totp.qrSvg, sealed: totp.sealed };
}

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const invite = await readInvite(context.db, params.token, clockNow());
  if (invite.state !== "open") return data({ state: invite.state, message: LINK_MESSAGES[invite.state], csrfToken: "", enrol: null }, { status: 410, headers: consoleHeaders() });
  const csrf = await getCsrfToken(request);
  return data({ state: "open" as const, message: null, csrfToken: csrf.token, enrol: await enrolmentView(context, invite) }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  await validateCsrf(request, form);
  const now = clockNow();
  const invite = await readInvite(context.db, params.token, now);
  if (invite.state !== "open") return data({ done: null, linkMessage: LINK_MESSAGES[invite.state], errors: {}, values: {}, enrol: null, message: null }, { status: 410, headers: consoleHeaders() });
  const raw = Object.fromEntries(["name", "password", "confirm", "code"].map((k) => [k, typeof form.get(k) === "string" ? String(form.get(k)) : undefined]));
  const sealed = typeof form.get("totp") === "string" ? String(form.get("totp")) : "";
  // Conform + the form's schema (the browser checks the same one); passwords and the code are never sent back.
  const submission = parseWithZod(form, { schema });
  const errors: Record<string, string> = {};
  const issues: Record<string, string[] | null> = submission.status === "success" ? {} : (submission.error ?? {});
  for (const [field, messages] of Object.entries(issues)) if (messages?.[0]) errors[field] ??= messages[0];
  const { website, account } = await requireSite(context);
  const weak = commonStaffPasswordError(raw.password) ?? personalPasswordError(raw.password, { name: raw.name, email: invite.email, companyName: website.websiteName });
  if (weak && !errors.password) errors.password = weak;
  const values = { name: (raw.name ?? "").slice(0, 100) };
  const reply = (extra: { formErrors?: string[]; fieldErrors?: Record<string, string[]> } = {}): SubmissionResult<string[]> =>
    submission.reply({ hideFields: ["password", "confirm", "code"], ...extra });
  if (submission.status !== "success" || Object.keys(errors).length) {
    const result = reply({ fieldErrors: Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, [v]])) });
    return data({ done: null, linkMessage: null, errors, values, enrol: await enrolmentView(context, invite, sealed), message: null, result }, { status: 400, headers: consoleHeaders() });
  }
  const parsed = { data: submission.value };
  const result = await acceptInvite(context.db, {
    accountId: account.id,
    token: params.token,
    name: parsed.data.name,
    password: parsed.data.password,
    sealedSecret: sealed,
    code: parsed.data.code,
    ip: context.clientIp,
    now,
    userAgent: request.headers.get("User-Agent"),
    companyName: website.websiteName,
  });
  if (!result.ok && result.reason === "link") return data({ done: null, linkMessage: LINK_MESSAGES[result.state], errors: {}, values: {}, enrol: null, message: null }, { status: 410, headers: consoleHeaders() });
  if (!result.ok && result.reason === "password") {
    const result2 = reply({ fieldErrors: { password: [result.message] } });
    return data({ done: null, linkMessage: null, errors: { password: result.message }, values, enrol: await enrolmentView(context, invite, sealed), message: null, result: result2 }, { status: 400, headers: consoleHeaders() });
  }
  if (!result.ok) {
    const codeError: Record<string, string> = result.limited ? {} : { code: result.message };
    const reply2 = result.limited ? reply({ formErrors: [result.message] }) : reply({ fieldErrors: { code: [result.message] } });
    return data(
      { done: null, linkMessage: null, errors: codeError, values, enrol: await enrolmentView(context, invite, sealed), message: result.limited ? result.message : null, result: reply2 },
      { status: result.limited ? 429 : 400, headers: consoleHeaders() },
    );
  }
  return data(
    { done: { recoveryCodes: result.recoveryCodes }, linkMessage: null, errors: {}, values: {}, enrol: null, message: null },
    { headers: consoleHeaders(result.cookie, await clearCsrfCookieHeader()) },
  );
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Accept your invitation");

export default function AcceptInvite({ loaderData, actionData }: Route.ComponentProps) {
  const done = actionData?.done;
  const linkMessage = actionData?.linkMessage ?? (loaderData.state !== "open" ? loaderData.message : null);
  const enrol = actionData?.enrol ?? loaderData.enrol;
  const [form, fields] = useForm({
    id: "staff-invite",
    lastResult: actionData && "result" in actionData ? actionData.result : undefined,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const served: Record<string, string | undefined> = actionData?.errors ?? {};
  const errors: Record<string, string | undefined> = Object.fromEntries(
    (["name", "password", "confirm", "code"] as const).map((k) => [k, fields[k].errors?.[0] ?? served[k]]).filter(([, v]) => v),
  );
  return (
    <>
      <ConsoleHeader />
      <ConsoleMain narrow>
        {done ? (
          <>
            <h1>Your recovery codes</h1>
            <FormMessage tone="success" message="Your account is ready and you are signed in." />
            <p>
              If you lose your phone, sign in with one of these codes instead of the code from your app. <strong>Each works once. Keep them somewhere safe now: they are not shown again.</strong>
            </p>
            <ul className="console-codes" aria-label="Recovery codes">
              {done.recoveryCodes.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
            <p>
              <a className="console-button" href="/admin">
                I have kept my codes: go to the back office
              </a>
            </p>
          </>
        ) : linkMessage || !enrol ? (
          <>
            <h1>Invitation link</h1>
            <FormMessage message={linkMessage ?? "This invitation link is not valid."} />
            <p>
              <a href="/admin/sign-in">Go to sign-in</a>
            </p>
          </>
        ) : (
          <>
            <h1>Set up your staff account</h1>
            <p>
              You were invited as <strong>{enrol.email}</strong>. Choose your name and password, then add the back office to your authenticator app.
            </p>
            <FormMessage message={actionData?.message} />
            {Object.keys(errors).length ? <FormMessage message="Please correct the fields marked below." /> : null}
            <Form method="post" {...getFormProps(form)} reloadDocument>
              <CsrfInput token={loaderData.csrfToken} />
              <input type="hidden" name="totp" value={enrol.sealed} />
              <TextField name="name" label="Your name" autoComplete="name" defaultValue={actionData?.values && "name" in actionData.values ? actionData.values.name : undefined} error={errors.name} required />
              <TextField name="password" label="Password" type="password" autoComplete="new-password" hint={STAFF_PASSWORD_HINT} error={errors.password} required />
              <TextField name="confirm" label="Password again" type="password" autoComplete="new-password" error={errors.confirm} required />
              <h2>Two-factor sign-in</h2>
              <p>Add this account to an authenticator app (for example Google Authenticator, Microsoft Authenticator, 1Password): scan the QR code, or type the key.</p>
              <div className="console-qr" role="img" aria-label="QR code of the key for your authenticator app" dangerouslySetInnerHTML={{ __html: enrol.qrSvg }} />
              <p>
                Key (type it into your app):{" "}
                <code className="console-secret" data-testid="totp-secret">
                  {enrol.secret}
                </code>
              </p>
              <p>
                Or open this link on the phone that has the app: <a href={enrol.uri}>add to authenticator</a>
              </p>
              <details>
                <summary>The otpauth:// address</summary>
                <p className="console-secret">{enrol.uri}</p>
              </details>
              <TextField name="code" label="Code from your app" hint="The 6-digit code your app shows now for this account." autoComplete="one-time-code" inputMode="numeric" error={errors.code} required />
              <button type="submit" className="console-button">
                Save and show my recovery codes
              </button>
            </Form>
          </>
        )}
      </ConsoleMain>
    </>
  );
}
