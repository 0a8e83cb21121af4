import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/members";
import { adminMeta, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { staffAccessSchema, staffInviteSchema, staffMemberActionSchema } from "~/domain/staff/forms";
import { formatDeskTime } from "~/domain/desk/time";
import { STAFF_ROLE_LABELS, STAFF_ROLES, type StaffRole } from "~/domain/staff/roles";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { notFound } from "~/services/web/responses.server";
import { consoleOriginFor } from "~/services/site/origin.server";
import { auditTimeZone } from "~/services/audit/trail.server";
import { accountLocations, changeStaffAccess, countStaffChange, endMemberSessions, inviteStaff, liftStaffLockout, listStaff, resetStaffSignIn, setStaffDisabled } from "~/services/staff/admin.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";
import { formToActOn, requireFreshFactorForPage } from "~/services/staff/step-up.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * Staff management (owners: `staff.manage`, with a fresh second factor): the list, invitations, role
 * and location changes, ending a member's sessions, disabling (confirmed first) and re-enabling,
 * lifting a lockout, and resetting a member's sign-in (confirmed first: a new invitation, the old
 * password and second factors revoked; issue 39, decisions 504–505). Each change is audited with each
 * field's value before and after (app/services/staff/admin.server.ts).
 */
const DONE: Record<string, string> = {
  access: "The role and locations were saved.",
  sessions: "Their sessions were ended: they must sign in again.",
  disabled: "The account was disabled and its sessions ended.",
  enabled: "The account was re-enabled.",
  lockout: "The lockout is lifted: they can sign in again now.",
};

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "staff.manage");
  const now = clockNow();
  requireFreshFactorForPage(staff, request, now);
  const csrf = await getCsrfToken(request);
  const [members, locs, timeZone] = await Promise.all([listStaff(context.db, staff.accountId, now), accountLocations(context.db, staff.accountId), auditTimeZone(context.db, staff.accountId)]);
  const done = DONE[new URL(request.url).searchParams.get("done") ?? ""] ?? null;
  return data(
    {
      csrfToken: csrf.token,
      selfId: staff.staffId,
      done,
      locations: locs.map((l) => ({ id: l.id, name: l.name })),
      members: members.map((m) => ({ ...m, lastSignInAt: m.lastSignInAt ? formatDeskTime(m.lastSignInAt, timeZone) : null, lockedUntil: m.lockedUntil ? formatDeskTime(m.lockedUntil, timeZone) : null })),
    },
    { headers: consoleHeaders(csrf.setCookie) },
  );
}

type Reply = SubmissionResult<string[]> | null;
const firstErrors = (error: Record<string, string[] | null> | null | undefined) => {
  const errors: Record<string, string> = {};
  for (const [field, messages] of Object.entries(error ?? {})) if (messages?.[0]) errors[field] ??= messages[0];
  return errors;
};
const toFieldErrors = (errors: Record<string, string | undefined>) => Object.fromEntries(Object.entries(errors).filter(([, v]) => v).map(([k, v]) => [k, [v!]]));

export async function action({ request, context }: Route.ActionArgs) {
  const posted = await request.formData();
  await validateCsrf(request, posted);
  const staff = signedInStaff(context);
  const now = clockNow();
  // Owners, with a fresh second factor: a stale one holds the change until the code (decision 660).
  const form = await formToActOn(context.db, staff, request, posted, now, () => ({ permissions: ["staff.manage"], fresh: true }));
  const limit = await countStaffChange(context.db, staff, now);
  if (!limit.allowed) return data({ form: "all", errors: {} as Record<string, string>, message: `Too many changes at once. Please wait ${limit.retryAfterMinutes} minutes.`, link: null, values: {}, result: null as Reply, existingStaffId: null as number | null }, { status: 429, headers: consoleHeaders() });
  const intent = String(form.get("intent") ?? "");
  if (intent === "invite") {
    // Conform + the same schema as the browser; the account's own locations are checked by the service.
    const submission = parseWithZod(form, { schema: staffInviteSchema });
    const email = String(form.get("email") ?? "").slice(0, 254);
    const role = String(form.get("role") ?? "");
    const locations = form.getAll("locations").map(Number).filter((n) => Number.isInteger(n) && n > 0);
    const values = { email, role, locations };
    if (submission.status !== "success") return data({ form: "invite", errors: firstErrors(submission.error), message: null, link: null, values, result: submission.reply() as Reply }, { status: 400, headers: consoleHeaders() });
    const { value } = submission;
    const result = await inviteStaff(context.db, { accountId: staff.accountId, email: value.email, role: value.role, locationIds: value.locations, origin: await consoleOriginFor(context), now, by: staff });
    if (!result.ok) {
      const errors = result.errors as Record<string, string>;
      return data({ form: "invite", errors, message: null, link: null, values, result: submission.reply({ fieldErrors: toFieldErrors(errors) }) as Reply, existingStaffId: result.existingStaffId ?? null }, { status: 400, headers: consoleHeaders() });
    }
    return data({ form: "invite", errors: {}, message: null, link: { url: result.link, email: value.email.toLowerCase() }, values: {}, result: submission.reply({ resetForm: true }) as Reply }, { headers: consoleHeaders() });
  }
  const staffId = Number(form.get("staffId"));
  if (!Number.isInteger(staffId) || staffId <= 0) throw notFound();
  if (intent === "access") {
    const submission = parseWithZod(form, { schema: staffAccessSchema });
    if (submission.status !== "success") {
      const errors = firstErrors(submission.error);
      return data({ form: `member-${staffId}`, errors, message: null, link: null, values: {}, result: submission.reply() as Reply }, { status: 400, headers: consoleHeaders() });
    }
    const result = await changeStaffAccess(context.db, staff, { staffId, role: submission.value.role, locationIds: submission.value.locations, now });
    if (!result.ok) {
      const field = "field" in result && result.field ? result.field : null;
      const reply = field ? submission.reply({ fieldErrors: { [field]: [result.message] } }) : submission.reply({ formErrors: [result.message] });
      return data({ form: `member-${staffId}`, errors: field ? { [field]: result.message } : {}, message: field ? null : result.message, link: null, values: {}, result: reply as Reply }, { status: 400, headers: consoleHeaders() });
    }
    throw redirect("/admin/staff?done=access", { status: 303, headers: consoleHeaders() });
  }
  // End sessions, disable, re-enable, lift a lockout, reset sign-in: hidden fields, the button and (to
  // disable or reset) the confirmation box, parsed on the server only.
  const submission = parseWithZod(form, { schema: staffMemberActionSchema });
  if (submission.status !== "success") {
    const confirm = submission.error?.confirm?.[0];
    const formKey = confirm ? `member-${staffId}-${String(form.get("intent"))}` : `member-${staffId}`;
    return data({ form: formKey, errors: confirm ? { confirm } : {}, message: confirm ? null : (submission.error?.intent?.[0] ?? "Choose an action."), link: null, values: {}, result: null as Reply }, { status: 400, headers: consoleHeaders() });
  }
  const action = submission.value.intent;
  if (action === "reset-sign-in") {
    const reset = await resetStaffSignIn(context.db, staff, { staffId, origin: await consoleOriginFor(context), now });
    if (!reset.ok) return data({ form: `member-${staffId}`, errors: {}, message: reset.message, link: null, values: {}, result: null as Reply }, { status: 400, headers: consoleHeaders() });
    return data({ form: "reset-sign-in", errors: {}, message: null, link: { url: reset.link, email: reset.email }, values: {}, result: null as Reply }, { headers: consoleHeaders() });
  }
  const result =
    action === "sessions"
      ? await endMemberSessions(context.db, staff, { staffId, now })
      : action === "lift-lockout"
        ? await liftStaffLockout(context.db, staff, { staffId, now })
        : await setStaffDisabled(context.db, staff, { staffId, disabled: action === "disable", now });
  if (!result.ok) {
    const field = "field" in result && result.field ? result.field : null;
    return data({ form: `member-${staffId}`, errors: field ? { [field]: result.message } : {}, message: field ? null : result.message, link: null, values: {}, result: null as Reply }, { status: 400, headers: consoleHeaders() });
  }
  const done = action === "disable" ? "disabled" : action === "enable" ? "enabled" : action === "lift-lockout" ? "lockout" : action;
  throw redirect(`/admin/staff?done=${done}`, { status: 303, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Staff");

function AccessFields({ prefix, role, locationIds, locations, errors }: { prefix: string; role?: string; locationIds: number[]; locations: Array<{ id: number; name: string }>; errors: Record<string, string | undefined> }) {
  return (
    <>
      <div className={errors.role ? "console-field console-field--invalid" : "console-field"}>
        <label htmlFor={`${prefix}-role`}>Role</label>
        <select id={`${prefix}-role`} name="role" defaultValue={role ?? ""} aria-invalid={errors.role ? true : undefined} aria-describedby={errors.role ? `${prefix}-role-error` : undefined}>
          <option value="">Choose a role</option>
          {STAFF_ROLES.map((r) => (
            <option key={r} value={r}>
              {STAFF_ROLE_LABELS[r]}
            </option>
          ))}
        </select>
        {errors.role ? (
          <p id={`${prefix}-role-error`} className="console-error">
            {errors.role}
          </p>
        ) : null}
      </div>
      <fieldset aria-describedby={errors.locations ? `${prefix}-locations-error` : undefined}>
        <legend className="console-legend">Locations (owners see every location)</legend>
        {locations.map((l) => (
          <div key={l.id}>
            <input type="checkbox" id={`${prefix}-loc-${l.id}`} name="locations" value={l.id} defaultChecked={locationIds.includes(l.id)} />{" "}
            <label htmlFor={`${prefix}-loc-${l.id}`}>{l.name}</label>
          </div>
        ))}
        {errors.locations ? (
          <p id={`${prefix}-locations-error`} className="console-error">
            {errors.locations}
          </p>
        ) : null}
      </fieldset>
    </>
  );
}

/** A member's role and locations: Conform with the same schema as the action (the message beside the field). */
function MemberAccessForm({ member, csrfToken, locations, errors, lastResult }: { member: { id: number; email: string; role: string; locationIds: number[] }; csrfToken: string; locations: Array<{ id: number; name: string }>; errors: Record<string, string | undefined>; lastResult: SubmissionResult<string[]> | null | undefined }) {
  const [form, fields] = useForm({
    id: `member-${member.id}-access`,
    lastResult,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: staffAccessSchema }),
  });
  const shown = { role: fields.role.errors?.[0] ?? errors.role, locations: fields.locations.errors?.[0] ?? errors.locations };
  return (
    <details open={Boolean(shown.role || shown.locations || Object.keys(errors).length > 0)}>
      <summary>Change role or locations</summary>
      <Form method="post" reloadDocument {...getFormProps(form)}>
        <CsrfInput token={csrfToken} />
        <input type="hidden" name="staffId" value={member.id} />
        <AccessFields prefix={`m${member.id}`} role={member.role} locationIds={member.locationIds} locations={locations} errors={shown} />
        <button type="submit" name="intent" value="access" className="console-button">
          Save role and locations for {member.email}
        </button>
      </Form>
    </details>
  );
}

/**
 * An action that asks first (issue 39): a disclosure with what it does, a box to tick and the button.
 * Works without JavaScript: the server refuses the button without the box, beside the box.
 */
function ConfirmedAction(props: { memberId: number; email: string; intent: "disable" | "reset-sign-in"; summary: string; explain: string; confirmLabel: string; button: string; csrfToken: string; error?: string }) {
  const id = `m${props.memberId}-${props.intent}-confirm`;
  return (
    <details open={Boolean(props.error)}>
      <summary>
        {props.summary}
        <span className="visually-hidden"> {props.email}</span>…
      </summary>
      <Form method="post" reloadDocument>
        <CsrfInput token={props.csrfToken} />
        <input type="hidden" name="staffId" value={props.memberId} />
        <p>{props.explain}</p>
        <div className={props.error ? "console-field console-field--invalid" : "console-field"}>
          <input type="checkbox" id={id} name="confirm" value="yes" required aria-invalid={props.error ? true : undefined} aria-describedby={props.error ? `${id}-error` : undefined} />{" "}
          <label htmlFor={id}>{props.confirmLabel}</label>
          {props.error ? (
            <p id={`${id}-error`} className="console-error">
              {props.error}
            </p>
          ) : null}
        </div>
        <button type="submit" name="intent" value={props.intent} className="console-button console-button--danger">
          {props.button}
        </button>
      </Form>
    </details>
  );
}

export default function StaffPage({ loaderData, actionData }: Route.ComponentProps) {
  const { csrfToken, members, locations } = loaderData;
  const errorsFor = (form: string): Record<string, string | undefined> => (actionData?.form === form ? actionData.errors : {});
  const locationName = (id: number) => locations.find((l) => l.id === id)?.name ?? `#${id}`;
  const inviteValues = actionData?.form === "invite" ? (actionData.values as { email?: string; role?: string; locations?: number[] }) : {};
  const [inviteForm, inviteFields] = useForm({
    id: "staff-invite",
    lastResult: actionData?.form === "invite" ? actionData.result : null,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: staffInviteSchema }),
  });
  const serverInvite = errorsFor("invite");
  const inviteErrors = {
    email: inviteFields.email.errors?.[0] ?? serverInvite.email,
    role: inviteFields.role.errors?.[0] ?? serverInvite.role,
    locations: inviteFields.locations.errors?.[0] ?? serverInvite.locations,
  };
  return (
    <>
      <h1>Staff</h1>
      <FormMessage tone="success" message={loaderData.done} />
      {actionData?.message ? <FormMessage message={actionData.message} /> : null}
      {actionData?.form === "reset-sign-in" && actionData.link ? (
        <div className="console-alert console-alert--success" role="status">
          <p>
            The sign-in of <strong>{actionData.link.email}</strong> is reset: their old password, authenticator app, passkeys and recovery codes no longer work. A new invitation is e-mailed to them. If it does not arrive, give them this link yourself; it works once, for 24 hours:
          </p>
          <p className="console-secret" data-testid="invite-link">
            {actionData.link.url}
          </p>
        </div>
      ) : null}
      <table>
        <caption>Staff members ({members.length})</caption>
        <thead>
          <tr>
            <th scope="col">Name and e-mail</th>
            <th scope="col">Role and locations</th>
            <th scope="col">Status</th>
            <th scope="col">Last sign-in</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {members.map((m) => {
            const errs = errorsFor(`member-${m.id}`);
            const self = m.id === loaderData.selfId;
            return (
              <tr key={m.id} id={`member-${m.id}`}>
                <td data-label="Name and e-mail">
                  {m.name || "(not set yet)"}
                  <br />
                  {m.email}
                </td>
                <td data-label="Role and locations">
                  {STAFF_ROLE_LABELS[m.role as StaffRole]}
                  {m.role === "owner" ? " (all locations)" : `: ${m.locationIds.map(locationName).join(", ") || "no location"}`}
                </td>
                <td data-label="Status">
                  {m.status === "disabled" ? "Disabled" : m.lockedUntil ? `Locked out until ${m.lockedUntil}` : m.status === "active" ? "Active" : "Invited"}
                  {m.sessions ? ` · ${m.sessions} session${m.sessions === 1 ? "" : "s"}` : ""}
                </td>
                <td data-label="Last sign-in">{m.lastSignInAt ?? "Never"}</td>
                <td data-label="Actions">
                  {self ? (
                    "This is you"
                  ) : (
                    <>
                      <MemberAccessForm member={m} csrfToken={csrfToken} locations={locations} errors={errs} lastResult={actionData?.form === `member-${m.id}` ? actionData.result : null} />
                      <div className="console-actions">
                        <Form method="post" reloadDocument>
                          <CsrfInput token={csrfToken} />
                          <input type="hidden" name="staffId" value={m.id} />
                          <button type="submit" name="intent" value="sessions" className="console-button console-button--quiet">
                            End sessions<span className="visually-hidden"> of {m.email}</span>
                          </button>
                        </Form>
                        {m.lockedUntil ? (
                          <Form method="post" reloadDocument>
                            <CsrfInput token={csrfToken} />
                            <input type="hidden" name="staffId" value={m.id} />
                            <button type="submit" name="intent" value="lift-lockout" className="console-button">
                              Lift lockout<span className="visually-hidden"> of {m.email}</span>
                            </button>
                          </Form>
                        ) : null}
                        {m.status === "disabled" ? (
                          <Form method="post" reloadDocument>
                            <CsrfInput token={csrfToken} />
                            <input type="hidden" name="staffId" value={m.id} />
                            <button type="submit" name="intent" value="enable" className="console-button console-button--quiet">
                              Re-enable<span className="visually-hidden"> {m.email}</span>
                            </button>
                          </Form>
                        ) : null}
                      </div>
                      {m.status === "disabled" ? null : (
                        <>
                          <ConfirmedAction
                            memberId={m.id}
                            email={m.email}
                            intent="reset-sign-in"
                            summary="Reset sign-in"
                            explain={`For someone who cannot sign in (a lost phone, a forgotten password). Their password, authenticator app, passkeys and recovery codes stop working now, their sessions end, and a new invitation (24 hours, once) is e-mailed to ${m.email} to set them up again. Their role and locations stay.`}
                            confirmLabel={`Yes, reset the sign-in of ${m.email}`}
                            button="Reset sign-in and send a new invitation"
                            csrfToken={csrfToken}
                            error={errorsFor(`member-${m.id}-reset-sign-in`).confirm}
                          />
                          <ConfirmedAction
                            memberId={m.id}
                            email={m.email}
                            intent="disable"
                            summary="Disable"
                            explain={`${m.email} can no longer sign in and every session of theirs ends now. You can re-enable the account later.`}
                            confirmLabel={`Yes, disable ${m.email}`}
                            button="Disable the account"
                            csrfToken={csrfToken}
                            error={errorsFor(`member-${m.id}-disable`).confirm}
                          />
                        </>
                      )}
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>

      <h2 id="invite">Invite a staff member</h2>
      {actionData?.form === "invite" && actionData.link ? (
        <div className="console-alert console-alert--success" role="status">
          <p>
            Invitation e-mailed to <strong>{actionData.link.email}</strong>. If it does not arrive, give them this link yourself; it works once, for 24 hours:
          </p>
          <p className="console-secret" data-testid="invite-link">
            {actionData.link.url}
          </p>
        </div>
      ) : null}
      <Form method="post" reloadDocument {...getFormProps(inviteForm)} aria-labelledby="invite">
        <CsrfInput token={csrfToken} />
        <TextField name="email" label="E-mail address" type="email" autoComplete="off" defaultValue={inviteValues.email} error={inviteErrors.email} required />
        {actionData?.form === "invite" && "existingStaffId" in actionData && actionData.existingStaffId ? (
          <p>
            <a href={`#member-${actionData.existingStaffId}`}>Go to {inviteValues.email?.trim() || "this person"} in the list</a> to reset their sign-in.
          </p>
        ) : null}
        <AccessFields prefix="invite" role={inviteValues.role} locationIds={inviteValues.locations ?? []} locations={locations} errors={inviteErrors} />
        <button type="submit" name="intent" value="invite" className="console-button">
          Make an invitation link
        </button>
      </Form>
    </>
  );
}
