import { getInputProps, getSelectProps, type FieldMetadata } from "@conform-to/react";
import { PASSWORD_MAX, PASSWORD_MIN, PHONE_MASK_HINT } from "~/domain/shared/tenant-form";
import { US_STATES } from "~/domain/shared/us-states";
import { Field } from "./form";

type F = FieldMetadata<string | undefined>;

export interface TenantContactFieldsMeta {
  first_name: F;
  last_name: F;
  email: F;
  cell_phone: F;
  addr_1: F;
  addr_2: F;
  city: F;
  region: F;
  postal_code: F;
  is_military: F;
  is_company: F;
  is_commercial: F;
  alt_contact_first_name: F;
  alt_contact_last_name: F;
  alt_contact_phone: F;
}

export interface TenantPasswordFieldsMeta {
  web_pw: F;
  confirm_web_pw: F;
}

/**
 * A phone input masked as (###) ###-#### while typing (`data-phone-mask`: the form script,
 * app/components/ui/form-enhance.js, when JavaScript runs); the server stores that format whatever was typed.
 */
export function PhoneInput({ meta, p, autoComplete }: { meta: F; p: Record<string, unknown>; autoComplete: string }) {
  return (
    <input
      {...getInputProps(meta, { type: "tel" })}
      {...p}
      inputMode="tel"
      autoComplete={autoComplete}
      placeholder="(910) 555-0134"
      maxLength={20}
      data-phone-mask=""
    />
  );
}

function Checkbox({ meta, label }: { meta: F; label: string }) {
  return (
    <div className="checkbox-field">
      <input {...getInputProps(meta, { type: "checkbox", value: "on" })} />
      <label htmlFor={meta.id}>{label}</label>
    </div>
  );
}

/** First name, last name and email address: the start of every form that asks who you are. */
export function NameAndEmailFields({ fields }: { fields: { first_name: F; last_name: F; email: F } }) {
  return (
    <>
      <div className="form-row">
        <Field label="First name" meta={fields.first_name}>
          {(p) => <input {...getInputProps(fields.first_name, { type: "text" })} {...p} autoComplete="given-name" />}
        </Field>
        <Field label="Last name" meta={fields.last_name}>
          {(p) => <input {...getInputProps(fields.last_name, { type: "text" })} {...p} autoComplete="family-name" />}
        </Field>
      </div>
      <Field label="Email address" meta={fields.email}>
        {(p) => <input {...getInputProps(fields.email, { type: "email" })} {...p} autoComplete="email" />}
      </Field>
    </>
  );
}

/**
 * The contact fields of the account-creation form (spec §3), in the spec's order. Shared by the
 * rental and the portal's profile form. Use with `tenantContactShape` (~/domain/tenant-form).
 */
export function TenantContactFields({ fields }: { fields: TenantContactFieldsMeta }) {
  return (
    <>
      <fieldset className="form-group">
        <legend>Your name and contact details</legend>
        <NameAndEmailFields fields={fields} />
        <Field label="Cell phone" meta={fields.cell_phone} hint={`Format ${PHONE_MASK_HINT}.`}>
          {(p) => <PhoneInput meta={fields.cell_phone} p={p} autoComplete="tel-national" />}
        </Field>
      </fieldset>
      <fieldset className="form-group">
        <legend>Your address</legend>
        <Field label="Street address" meta={fields.addr_1}>
          {(p) => <input {...getInputProps(fields.addr_1, { type: "text" })} {...p} autoComplete="address-line1" />}
        </Field>
        <Field label="Apartment, suite, etc." meta={fields.addr_2} optional>
          {(p) => <input {...getInputProps(fields.addr_2, { type: "text" })} {...p} autoComplete="address-line2" />}
        </Field>
        <div className="form-row">
          <Field label="City" meta={fields.city}>
            {(p) => <input {...getInputProps(fields.city, { type: "text" })} {...p} autoComplete="address-level2" />}
          </Field>
          <Field label="State" meta={fields.region}>
            {(p) => (
              <select {...getSelectProps(fields.region)} {...p} autoComplete="address-level1">
                <option value="">Choose a state</option>
                {US_STATES.map(([code, name]) => (
                  <option key={code} value={code}>
                    {name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="ZIP code" meta={fields.postal_code}>
            {(p) => <input {...getInputProps(fields.postal_code, { type: "text" })} {...p} inputMode="numeric" autoComplete="postal-code" className="input--short" />}
          </Field>
        </div>
      </fieldset>
      <fieldset className="form-group">
        <legend>About you (optional)</legend>
        <Checkbox meta={fields.is_military} label="I am in the military" />
        <Checkbox meta={fields.is_company} label="I am renting for a company" />
        <Checkbox meta={fields.is_commercial} label="This is a commercial (business) rental" />
      </fieldset>
      <fieldset className="form-group">
        <legend>Alternate contact (optional)</legend>
        <p className="field__hint">Someone we can call if we cannot reach you.</p>
        <div className="form-row">
          <Field label="Alternate contact first name" meta={fields.alt_contact_first_name} optional>
            {(p) => <input {...getInputProps(fields.alt_contact_first_name, { type: "text" })} {...p} autoComplete="off" />}
          </Field>
          <Field label="Alternate contact last name" meta={fields.alt_contact_last_name} optional>
            {(p) => <input {...getInputProps(fields.alt_contact_last_name, { type: "text" })} {...p} autoComplete="off" />}
          </Field>
        </div>
        <Field label="Alternate contact phone" meta={fields.alt_contact_phone} optional hint={`Format ${PHONE_MASK_HINT}.`}>
          {(p) => <PhoneInput meta={fields.alt_contact_phone} p={p} autoComplete="off" />}
        </Field>
      </fieldset>
    </>
  );
}

/** The password and its confirmation. Never pre-filled. */
export function TenantPasswordFields({ fields, keepHint }: { fields: TenantPasswordFieldsMeta; keepHint?: boolean }) {
  const rule = `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`;
  return (
    <fieldset className="form-group">
      <legend>Choose a password for the customer portal</legend>
      <Field label="Password" meta={fields.web_pw} hint={keepHint ? `${rule} Leave both empty to keep the password you already chose.` : rule} optional={keepHint}>
        {(p) => <input {...getInputProps(fields.web_pw, { type: "password" })} {...p} defaultValue={undefined} autoComplete="new-password" />}
      </Field>
      <Field label="Confirm password" meta={fields.confirm_web_pw} optional={keepHint}>
        {(p) => <input {...getInputProps(fields.confirm_web_pw, { type: "password" })} {...p} defaultValue={undefined} autoComplete="new-password" />}
      </Field>
    </fieldset>
  );
}
