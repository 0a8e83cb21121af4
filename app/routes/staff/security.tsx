import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/security";
import { adminMeta, CsrfInput, FormMessage } from "~/components/console/shell";
import { AddPasskey } from "~/components/staff/passkeys";
import { passkeyFormSchema } from "~/domain/staff/forms";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { notFound } from "~/services/web/responses.server";
import { requireSite } from "~/services/site/context.server";
import { formToActOn, requireFreshFactorForPage } from "~/services/staff/step-up.server";
import { auditTimeZone } from "~/services/audit/trail.server";
import { formatDeskTime } from "~/domain/desk/time";
import { signedInStaff } from "~/services/staff/context.server";
import { countPasskeyRemoval, listPasskeys, MAX_PASSKEYS, passkeyRegistrationOptions, registerPasskey, relyingParty, removePasskey } from "~/services/staff/passkeys.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * "Your sign-in" (issue 23): every member's own passkeys — the list, "Add a passkey" (JavaScript:
 * the browser makes it; without JavaScript the page says so) and "Remove" (a plain form). Adding or
 * removing a way to sign in needs a fresh second factor (decision 250), like the other sensitive
 * pages. The app's code and the recovery codes always stay (decision 272).
 */

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  const now = clockNow();
  requireFreshFactorForPage(staff, request, now);
  const { website } = await requireSite(context);
  const [passkeys, timeZone] = await Promise.all([listPasskeys(context.db, staff.staffId), auditTimeZone(context.db, staff.accountId)]);
  const options =
    passkeys.length < MAX_PASSKEYS
      ? await passkeyRegistrationOptions(context.db, { accountId: staff.accountId, staffId: staff.staffId, sessionHash: staff.sessionHash, rp: relyingParty(website), now })
      : null;
  const csrf = await getCsrfToken(request);
  const done = new URL(request.url).searchParams.get("done");
  return data(
    {
      csrfToken: csrf.token,
      // In the account's zone, named (decision 644).
      passkeys: passkeys.map((p) => ({ id: p.id, name: p.name, createdAt: formatDeskTime(p.createdAt, timeZone), lastUsedAt: p.lastUsedAt ? formatDeskTime(p.lastUsedAt, timeZone) : null })),
      optionsJson: options?.ok ? JSON.stringify(options.options) : null,
      full: passkeys.length >= MAX_PASSKEYS,
      max: MAX_PASSKEYS,
      done: done === "added" ? "Your passkey was added. You can use it the next time you sign in." : done === "removed" ? "The passkey was removed." : null,
    },
    { headers: consoleHeaders(csrf.setCookie) },
  );
}

export async function action({ request, context }: Route.ActionArgs) {
  const posted = await request.formData();
  await validateCsrf(request, posted);
  const staff = signedInStaff(context);
  const now = clockNow();
  // Any member, for their own sign-in, with a fresh second factor: a stale one holds the change until the code (decision 660).
  const form = await formToActOn(context.db, staff, request, posted, now, () => ({ permissions: [], fresh: true }));
  // Conform + the form's schema on the server (the name is also held to 60 characters by the field;
  // the add form is sent by the page's script once the authenticator has answered).
  if (form.get("intent") === "remove") {
    const limited = await countPasskeyRemoval(context.db, staff.staffId, now);
    if (limited) return data({ message: limited.message, nameError: undefined, name: "" }, { status: 429, headers: consoleHeaders() });
  }
  const submission = parseWithZod(form, { schema: passkeyFormSchema });
  if (submission.status !== "success") {
    if (form.get("intent") === "remove") throw notFound();
    const nameError = form.get("intent") === "add" ? submission.error?.name?.[0] : undefined;
    const name = typeof form.get("name") === "string" ? String(form.get("name")).slice(0, 100) : "";
    if (nameError) return data({ message: null, nameError, name }, { status: 400, headers: consoleHeaders() });
    return data({ message: "Something was missing from the form. Please try again.", nameError: undefined, name: "" }, { status: 400, headers: consoleHeaders() });
  }
  if (submission.value.intent === "remove") {
    const removed = await removePasskey(context.db, { accountId: staff.accountId, staffId: staff.staffId, passkeyId: submission.value.passkeyId, ip: context.clientIp || null, now });
    if (!removed) throw notFound();
    throw redirect("/admin/security?done=removed", { status: 303, headers: consoleHeaders() });
  }
  const name = submission.value.name;
  const { website } = await requireSite(context);
  const result = await registerPasskey(context.db, {
    accountId: staff.accountId,
    staffId: staff.staffId,
    sessionHash: staff.sessionHash,
    response: form.get("response"),
    name,
    rp: relyingParty(website),
    ip: context.clientIp,
    now,
  });
  if (!result.ok) return data({ message: result.message, nameError: undefined, name }, { status: result.limited ? 429 : 400, headers: consoleHeaders() });
  throw redirect("/admin/security?done=added", { status: 303, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Your sign-in");

export default function Security({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <>
      <h1>Your sign-in</h1>
      <FormMessage tone="success" message={actionData ? null : loaderData.done} />
      <FormMessage message={actionData?.message} />
      <p>
        You sign in with your password and a second factor: the code from your authenticator app, one of your recovery codes, or a passkey. A passkey lives in this device or
        your password manager and is checked by your fingerprint, face or screen lock.
      </p>
      <h2>Your passkeys</h2>
      {loaderData.passkeys.length ? (
        <table className="console-table">
          <caption className="visually-hidden">Your passkeys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {loaderData.passkeys.map((p) => (
              <tr key={p.id}>
                <td data-label="Name">{p.name}</td>
                <td data-label="Added">{p.createdAt}</td>
                <td data-label="Last used">{p.lastUsedAt ?? "Not yet"}</td>
                <td data-label="Actions">
                  <Form method="post" reloadDocument>
                    <CsrfInput token={loaderData.csrfToken} />
                    <input type="hidden" name="intent" value="remove" />
                    <input type="hidden" name="passkeyId" value={p.id} />
                    <button type="submit" className="console-button console-button--quiet" aria-label={`Remove the passkey ${p.name}`}>
                      Remove
                    </button>
                  </Form>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p>You have no passkey yet.</p>
      )}
      {loaderData.optionsJson ? (
        <AddPasskey optionsJson={loaderData.optionsJson} csrfToken={loaderData.csrfToken} nameError={actionData?.nameError} name={actionData?.name} />
      ) : loaderData.full ? (
        <p>You have the most passkeys a member can have ({loaderData.max}). Remove one to add another.</p>
      ) : null}
    </>
  );
}
