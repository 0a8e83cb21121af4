import { getFormProps, getInputProps, getSelectProps, useForm, type FieldMetadata } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import type { Route } from "./+types/profile";
import { routeMeta } from "~/components/ui/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/ui/form";
import { CallOffice, type PortalPageHandle } from "~/components/portal/parts";
import { PhoneInput } from "~/components/ui/tenant-fields";
import { changePasswordSchema, profileContactSchema, profilePhoneSchema } from "~/domain/portal/forms";
import { PASSWORD_MAX, PASSWORD_MIN, PHONE_MASK_HINT, tenantContactFromForm } from "~/domain/shared/tenant-form";
import { formatPhone } from "~/domain/shared/phone";
import { US_STATES } from "~/domain/shared/us-states";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { changeContact, changePassword, changePhone } from "~/services/portal/profile.server";
import { signedInTenant } from "~/services/portal/access.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";
import { RETRY_AFTER_SECONDS } from "~/db/unavailable";
import { textsOffReason } from "~/platform/texts/provider.server";
import { portalTexts, setPortalTexts } from "~/services/texts/portal.server";

/** The portal's navigation marks "Profile and password" (decision 225). */
// Takes a password: first-party code only (issue 36, decision 464).
export const handle = { enhanceForms: true, portalNav: "profile", passwordPage: true } satisfies PortalPageHandle & PaymentPageHandle & { enhanceForms: boolean };

const DONE: Record<string, string> = {
  contact: "Your contact details have been saved.",
  phone: "Your phone number has been saved.",
  // Issue 37: a location's system was not sent the change; its office makes it.
  "contact-office": "Your contact details have been saved here. The office will make the change in the facility's own records; you do not need to do anything.",
  "phone-office": "Your phone number has been saved here. The office will make the change in the facility's own records; you do not need to do anything.",
  password: "Your password has been changed. Other devices signed in to your account have been signed out.",
  texts: "Your choice about texts has been saved.",
};

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = signedInTenant(context);
  const [tenant, csrf] = await Promise.all([ctx.storage.getTenant(ctx.session.tenantId), getCsrfToken(request)]);
  if (!tenant) throw redirect("/customer-portal/login", { headers: portalHeaders() });
  const done = new URL(request.url).searchParams.get("done");
  return data(
    {
      tenant,
      csrfToken: csrf.token,
      phone: ctx.phone,
      phoneFormEnabled: ctx.settings.is_phone_form_enabled,
      done: done ? (DONE[done] ?? null) : null,
      texts: { off: textsOffReason(), ...(await portalTexts(ctx, tenant.cellPhone)) },
    },
    { headers: portalHeaders(csrf.setCookie) },
  );
}

/** 400 for what the tenant must fix; 503 with Retry-After when the facility's system could not take it. */
function failure(outcome: { unavailable?: true }) {
  if (!outcome.unavailable) return { status: 400, headers: portalHeaders() };
  const headers = portalHeaders();
  headers.set("Retry-After", String(RETRY_AFTER_SECONDS));
  return { status: 503, headers };
}

export const action = keepFormThroughOutage(profileAction, (form) => ({ intent: form?.get("intent") ?? null, result: outageResult(form) }));

async function profileAction({ request, context }: Route.ActionArgs) {
  const ctx = signedInTenant(context);
  const tenantId = ctx.session.tenantId;
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const intent = formData.get("intent");
  if (intent === "texts") {
    // Texting consent (issue 40, decision 490): a tick box; stored with its wording and when.
    const tenant = await ctx.storage.getTenant(tenantId);
    if (!tenant) throw redirect("/customer-portal/login", { headers: portalHeaders() });
    await setPortalTexts(ctx, { tenantId, phone: tenant.cellPhone, optedIn: formData.get("texts_opt_in") === "on" });
    throw redirect("/customer-portal/profile?done=texts", { status: 303, headers: portalHeaders() });
  }
  if (intent === "password") {
    const hide = ["current_password", "new_password", "confirm_password"];
    const submission = parseWithZod(formData, { schema: changePasswordSchema });
    if (submission.status !== "success") return data({ intent, result: submission.reply({ hideFields: hide }) }, { status: 400, headers: portalHeaders() });
    const outcome = await changePassword(ctx, {
      tenantId,
      currentPassword: submission.value.current_password,
      newPassword: submission.value.new_password,
      ip: context.clientIp,
      keepSessionHash: ctx.session.sessionHash,
    });
    if (!outcome.ok) return data({ intent, result: submission.reply({ fieldErrors: outcome.fieldErrors, formErrors: outcome.formErrors, hideFields: hide }) }, { status: 400, headers: portalHeaders() });
    throw redirect("/customer-portal/profile?done=password", { status: 303, headers: portalHeaders() });
  }
  if (intent === "phone") {
    const submission = parseWithZod(formData, { schema: profilePhoneSchema });
    if (!ctx.settings.is_phone_form_enabled) throw redirect("/customer-portal/profile", 303);
    if (submission.status !== "success") return data({ intent, result: submission.reply() }, { status: 400, headers: portalHeaders() });
    const outcome = await changePhone(ctx, { tenantId, cellPhone: submission.value.cell_phone });
    if (!outcome.ok) return data({ intent, result: submission.reply({ fieldErrors: outcome.fieldErrors, formErrors: outcome.formErrors }) }, failure(outcome));
    throw redirect(`/customer-portal/profile?done=${outcome.byOffice ? "phone-office" : "phone"}`, { status: 303, headers: portalHeaders() });
  }
  const submission = parseWithZod(formData, { schema: profileContactSchema });
  if (submission.status !== "success") return data({ intent: "contact", result: submission.reply({ hideFields: ["current_password"] }) }, { status: 400, headers: portalHeaders() });
  const v = submission.value;
  const outcome = await changeContact(ctx, {
    tenantId,
    currentPassword: v.current_password,
    ip: context.clientIp,
    contact: tenantContactFromForm(v),
  });
  if (!outcome.ok) {
    return data({ intent: "contact", result: submission.reply({ fieldErrors: outcome.fieldErrors, formErrors: outcome.formErrors, hideFields: ["current_password"] }) }, failure(outcome));
  }
  throw redirect(`/customer-portal/profile?done=${outcome.byOffice ? "contact-office" : "contact"}`, { status: 303, headers: portalHeaders() });
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Profile and password | Customer Portal", description: "Update your contact details and password.", path: "/customer-portal/profile" });

type F = FieldMetadata<string | undefined>;

function TextField({ label, meta, type = "text", autoComplete, optional, hint }: { label: string; meta: F; type?: "text" | "email" | "tel"; autoComplete: string; optional?: boolean; hint?: string }) {
  return (
    <Field label={label} meta={meta} optional={optional} hint={hint}>
      {(p) => <input {...getInputProps(meta, { type })} {...p} autoComplete={autoComplete} />}
    </Field>
  );
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function Checkbox({ meta, label }: { meta: FieldMetadata<any>; label: string }) {
  return (
    <div className="checkbox-field">
      <input {...getInputProps(meta, { type: "checkbox", value: "on" })} />
      <label htmlFor={meta.id}>{label}</label>
    </div>
  );
}

/** Keyed by the saved details, so the forms start again from what was saved (with JavaScript on). */
export default function Profile({ loaderData, actionData }: Route.ComponentProps) {
  return <ProfileForms key={JSON.stringify(loaderData.tenant)} loaderData={loaderData} actionData={actionData} />;
}

function ProfileForms({ loaderData, actionData }: Pick<Route.ComponentProps, "loaderData" | "actionData">) {
  const t = loaderData.tenant;
  const result = (which: string) => (actionData?.intent === which ? actionData.result : undefined);
  const [contactForm, c] = useForm({
    id: "profile-contact",
    lastResult: result("contact"),
    constraint: getZodConstraint(profileContactSchema),
    defaultValue: {
      first_name: t.firstName,
      last_name: t.lastName,
      email: t.email,
      addr_1: t.addr1,
      addr_2: t.addr2 ?? "",
      city: t.city,
      region: t.region,
      postal_code: t.postalCode,
      is_military: t.isMilitary ? "on" : undefined,
      is_company: t.isCompany ? "on" : undefined,
      is_commercial: t.isCommercial ? "on" : undefined,
      alt_contact_first_name: t.altContactFirstName ?? "",
      alt_contact_last_name: t.altContactLastName ?? "",
      alt_contact_phone: t.altContactPhone ? formatPhone(t.altContactPhone) : "",
    },
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: profileContactSchema }),
  });
  const [phoneForm, ph] = useForm({
    id: "profile-phone",
    lastResult: result("phone"),
    constraint: getZodConstraint(profilePhoneSchema),
    defaultValue: { cell_phone: formatPhone(t.cellPhone) },
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: profilePhoneSchema }),
  });
  const [passwordForm, pw] = useForm({
    id: "profile-password",
    lastResult: result("password"),
    constraint: getZodConstraint(changePasswordSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: changePasswordSchema }),
  });
  return (
    <>
      <p>
        <Link to="/customer-portal">← My units</Link>
      </p>
      <h1>Profile and password</h1>
      {loaderData.done ? (
        <div className="alert alert--success" role="status">
          <p>{loaderData.done}</p>
        </div>
      ) : null}

      <section aria-labelledby="contact-heading">
        <h2 id="contact-heading">Contact details</h2>
        <Form method="post" {...getFormProps(contactForm)} noValidate className="stack-form">
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="intent" value="contact" />
          {actionData?.intent === "contact" ? <ErrorSummary errors={summaryErrors(contactForm.allErrors, (["first_name", "last_name", "email", "current_password", "addr_1", "addr_2", "city", "region", "postal_code", "alt_contact_first_name", "alt_contact_last_name", "alt_contact_phone"] as const).map((n) => c[n]))} /> : null}
          <FormErrors id={contactForm.errorId} errors={contactForm.errors} />
          <div className="form-row">
            <TextField label="First name" meta={c.first_name} autoComplete="given-name" />
            <TextField label="Last name" meta={c.last_name} autoComplete="family-name" />
          </div>
          <TextField label="Email address" meta={c.email} type="email" autoComplete="email" hint="You sign in with this address." />
          <Field label="Your password, to change your email address" meta={c.current_password} optional hint="Needed only for a new email address. We will tell your old address about the change.">
            {(p) => <input {...getInputProps(c.current_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="current-password" />}
          </Field>
          <TextField label="Street address" meta={c.addr_1} autoComplete="address-line1" />
          <TextField label="Apartment, suite, etc." meta={c.addr_2} autoComplete="address-line2" optional />
          <div className="form-row">
            <TextField label="City" meta={c.city} autoComplete="address-level2" />
            <Field label="State" meta={c.region}>
              {(p) => (
                <select {...getSelectProps(c.region)} {...p} autoComplete="address-level1">
                  <option value="">Choose a state</option>
                  {US_STATES.map(([code, name]) => (
                    <option key={code} value={code}>
                      {name}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <TextField label="ZIP code" meta={c.postal_code} autoComplete="postal-code" />
          </div>
          <fieldset>
            <legend>About you (optional)</legend>
            <Checkbox meta={c.is_military} label="I am in the military" />
            <Checkbox meta={c.is_company} label="I am renting for a company" />
            <Checkbox meta={c.is_commercial} label="This is a commercial (business) rental" />
          </fieldset>
          <fieldset>
            <legend>Alternate contact (optional)</legend>
            <div className="form-row">
              <TextField label="Alternate contact first name" meta={c.alt_contact_first_name} autoComplete="off" optional />
              <TextField label="Alternate contact last name" meta={c.alt_contact_last_name} autoComplete="off" optional />
            </div>
            <Field label="Alternate contact phone" meta={c.alt_contact_phone} optional hint={`Format ${PHONE_MASK_HINT}.`}>
              {(p) => <PhoneInput meta={c.alt_contact_phone} p={p} autoComplete="off" />}
            </Field>
          </fieldset>
          <SubmitButton pendingText="Saving…">Save contact details</SubmitButton>
        </Form>
      </section>

      <section aria-labelledby="phone-heading">
        <h2 id="phone-heading">Phone number</h2>
        {loaderData.phoneFormEnabled ? (
          <Form method="post" {...getFormProps(phoneForm)} noValidate className="stack-form">
            <CsrfInput token={loaderData.csrfToken} />
            <input type="hidden" name="intent" value="phone" />
            {actionData?.intent === "phone" ? <ErrorSummary errors={summaryErrors(phoneForm.allErrors, [ph.cell_phone])} /> : null}
            <FormErrors id={phoneForm.errorId} errors={phoneForm.errors} />
            <Field label="Cell phone" meta={ph.cell_phone} hint={`Format ${PHONE_MASK_HINT}.`}>
              {(p) => <PhoneInput meta={ph.cell_phone} p={p} autoComplete="tel-national" />}
            </Field>
            <SubmitButton pendingText="Saving…">Save phone number</SubmitButton>
          </Form>
        ) : (
          <>
            <p>Cell phone: {formatPhone(t.cellPhone)}</p>
            <CallOffice phone={loaderData.phone}>To change your phone number,</CallOffice>
          </>
        )}
      </section>

      <section aria-labelledby="texts-heading">
        <h2 id="texts-heading">Texts</h2>
        {loaderData.texts.off ? (
          <p>{loaderData.texts.off}</p>
        ) : (
          <Form method="post" className="stack-form">
            <CsrfInput token={loaderData.csrfToken} />
            <input type="hidden" name="intent" value="texts" />
            <div className="checkbox-field">
              <input type="checkbox" id="texts_opt_in" name="texts_opt_in" value="on" defaultChecked={loaderData.texts.optedIn} aria-describedby="texts-since" />
              <label htmlFor="texts_opt_in">{loaderData.texts.wording}</label>
            </div>
            <p id="texts-since" className="hint">
              {loaderData.texts.since ? `${loaderData.texts.since}. ` : ""}Texts go to {formatPhone(t.cellPhone)}, between 8 am and 9 pm.
            </p>
            <SubmitButton pendingText="Saving…">Save my choice about texts</SubmitButton>
          </Form>
        )}
      </section>

      <section aria-labelledby="password-heading">
        <h2 id="password-heading">Change password</h2>
        <Form method="post" {...getFormProps(passwordForm)} noValidate className="stack-form">
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="intent" value="password" />
          {actionData?.intent === "password" ? <ErrorSummary errors={summaryErrors(passwordForm.allErrors, [pw.current_password, pw.new_password, pw.confirm_password])} /> : null}
          <FormErrors id={passwordForm.errorId} errors={passwordForm.errors} />
          <Field label="Current password" meta={pw.current_password}>
            {(p) => <input {...getInputProps(pw.current_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="current-password" />}
          </Field>
          <Field label="New password" meta={pw.new_password} hint={`${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`}>
            {(p) => <input {...getInputProps(pw.new_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="new-password" />}
          </Field>
          <Field label="Confirm new password" meta={pw.confirm_password}>
            {(p) => <input {...getInputProps(pw.confirm_password, { type: "password" })} {...p} defaultValue={undefined} autoComplete="new-password" />}
          </Field>
          <SubmitButton pendingText="Saving…">Change password</SubmitButton>
        </Form>
      </section>
    </>
  );
}
