import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/locations.new";
import { adminMeta, CsrfInput, FormMessage, TextField } from "~/components/console/shell";
import { ErrorSummary } from "~/components/ui/error-summary";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { addLocation } from "~/services/content/new-location.server";
import { UploadFields } from "~/components/content/images";
import { NEW_LOCATION_PHOTOS } from "~/domain/content/media";
import { requireAccountWide } from "~/services/content/pages.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { now as clockNow } from "~/platform/clock.server";
import { US_STATES } from "~/domain/shared/us-states";
import { HOURS_BLOCKS, HOURS_LINES, HOURS_MODES, hoursFieldNames, LOCATION_TIME_ZONES, NEW_LOCATION_DEFAULTS, newLocationSchema, photoFields, STORAGE_CHOICES } from "~/domain/content/new-location";

/**
 * "Add a location" (issue 40, decisions 620–623): owners only (403 for anyone else, checked on the
 * server before the form is read). The location is saved unpublished with its hours, accepted cards
 * and demo units or SiteLink settings, and the draft gets the change that puts it on the website.
 * Up to three photos come with it (multipart, decision 680): read as the location's photos page reads
 * an upload, a refused one stops the whole form. Errors come back beside their fields with what was
 * typed (never the SiteLink password) and the files already received; the form works without JavaScript.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const csrf = await getCsrfToken(request);
  return data({ csrfToken: csrf.token }, { headers: consoleHeaders(csrf.setCookie) });
}

export async function action({ request, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  requireAccountWide(staff);
  const form = await request.formData();
  await validateCsrf(request, form);
  const outcome = await addLocation(context.db, staff, form, clockNow());
  if (outcome.ok) throw redirect(`/admin/content/locations/${outcome.locationId}?done=location-added`, { status: 303, headers: consoleHeaders() });
  return data({ result: outcome.result, photos: outcome.photos }, { status: outcome.status, headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Add a location");

/** The photo fields, numbered from 1: their names and the ids of their inputs. */
const PHOTO_SLOTS = Array.from({ length: NEW_LOCATION_PHOTOS }, (_, i) => ({ n: i + 1, id: `field-photo${i + 1}`, names: photoFields(i + 1) }));

/** Every field's name in the page's order, with its input's id (the error summary links to them). */
const FIELD_ORDER: Array<{ name: string; id?: string }> = [
  "name",
  "status",
  "street1",
  "street2",
  "city",
  "stateProvince",
  "postal",
  "timeZone",
  "phoneNumber",
  "sms",
  ...HOURS_BLOCKS.flatMap((b) => HOURS_LINES.flatMap((l) => Object.values(hoursFieldNames(b.type, l.key)))),
].map((name) => ({ name }));
FIELD_ORDER.push(
  ...PHOTO_SLOTS.flatMap((p) => [
    { name: p.names.file, id: `${p.id}-file` },
    { name: p.names.alt, id: `${p.id}-alt` },
  ]),
  ...["software", "sitelinkEndpoint", "sitelinkCorpCode", "sitelinkLocationCode", "sitelinkUser", "sitelinkPasswordEnv", "sitelinkPassword", "sitelinkApiKeyEnv", "sitelinkApiKey"].map((name) => ({ name })),
);

export default function NewLocation({ loaderData, actionData }: Route.ComponentProps) {
  const lastResult = actionData?.result ?? null;
  const [form] = useForm({
    id: "new-location",
    lastResult,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: newLocationSchema, disableAutoCoercion: true }),
  });
  const typed = (lastResult?.initialValue ?? null) as Record<string, unknown> | null;
  const value = (name: string): string => {
    const v = typed ? typed[name] : NEW_LOCATION_DEFAULTS[name];
    return typeof v === "string" ? v : "";
  };
  const error = (name: string): string | undefined => form.allErrors[name]?.[0];
  const summary = FIELD_ORDER.flatMap(({ name, id }) => (error(name) ? [{ fieldId: id ?? `field-${name}`, message: error(name)! }] : []));
  const field = (name: string, label: string, extra: Partial<Parameters<typeof TextField>[0]> = {}) => (
    <TextField name={name} label={label} defaultValue={value(name)} error={error(name)} {...extra} />
  );
  return (
    <>
      <p>
        <a href="/admin/content">Content</a>
      </p>
      <h1>Add a location</h1>
      <p>
        The location is saved as a draft: it is not on the website until the draft is published on <a href="/admin/changes">Changes</a>. Preview shows it before
        then. More photos, amenities, messages and links are added on its pages once it is saved.
      </p>
      <FormMessage message={form.errors?.[0]} />
      <ErrorSummary errors={summary} />
      <Form method="post" encType="multipart/form-data" reloadDocument {...getFormProps(form)}>
        <CsrfInput token={loaderData.csrfToken} />
        <fieldset>
          <legend>The location</legend>
          {field("name", "Name", { hint: "As visitors know it, for example Lumberton.", required: true })}
          <SelectField name="status" label="Status" value={value("status")} error={error("status")} options={[["Live", "Live: units can be rented"], ["Coming Soon", "Coming soon: shown, nothing to rent yet"]]} />
        </fieldset>
        <fieldset>
          <legend>Address</legend>
          <p className="console-hint">The location&apos;s page on the website is at /locations/ followed by its city, state and ZIP code (for example lumberton-nc-28358).</p>
          {field("street1", "Street", { autoComplete: "off", required: true })}
          {field("street2", "Street, line 2 (optional)", { autoComplete: "off" })}
          {field("city", "City", { autoComplete: "off", required: true })}
          <SelectField name="stateProvince" label="State" value={value("stateProvince")} error={error("stateProvince")} options={[["", "Choose the state"], ...US_STATES.map(([code, name]) => [code, name] as [string, string])]} />
          {field("postal", "ZIP code", { inputMode: "numeric", autoComplete: "off", required: true })}
          <SelectField name="timeZone" label="Time zone" value={value("timeZone")} error={error("timeZone")} options={LOCATION_TIME_ZONES.map((z) => [z.id, z.label] as [string, string])} hint="Hours, due dates and receipts at this location use it." />
        </fieldset>
        <fieldset>
          <legend>Phone</legend>
          {field("phoneNumber", "Office phone number", { type: "tel", autoComplete: "off", required: true })}
          {field("sms", "Text message number (optional)", { type: "tel", autoComplete: "off", hint: "The number texts to tenants come from and replies go to. Leave empty when the location does not text." })}
        </fieldset>
        {HOURS_BLOCKS.map((b) => (
          <fieldset key={b.type}>
            <legend>{b.heading}</legend>
            {HOURS_LINES.map((l) => {
              const names = hoursFieldNames(b.type, l.key);
              return (
                <div key={l.key} className="console-hours-line">
                  <SelectField name={names.mode} label={l.label} value={value(names.mode)} error={error(names.mode)} options={HOURS_MODES.map((m) => [m.value, m.label] as [string, string])} />
                  {field(names.open, `${l.label}: opens`, { type: "time" })}
                  {field(names.close, `${l.label}: closes`, { type: "time" })}
                </div>
              );
            })}
          </fieldset>
        ))}
        <fieldset>
          <legend>Photos (optional)</legend>
          <p className="console-hint">
            Up to {NEW_LOCATION_PHOTOS} photos, shown on the location&apos;s page in this order. More photos, a new order and other descriptions on its photos page once it
            is saved.
          </p>
          {PHOTO_SLOTS.map((p) => (
            <fieldset key={p.n}>
              <legend>Photo {p.n}</legend>
              <UploadFields
                id={p.id}
                names={p.names}
                fileLabel="Image file"
                errors={{ file: error(p.names.file), alt: error(p.names.alt) }}
                values={{ alt: value(p.names.alt), decorative: value(p.names.decorative) === "1" }}
                pending={actionData?.photos[p.n - 1]?.pending ?? null}
              />
            </fieldset>
          ))}
        </fieldset>
        <fieldset aria-describedby={error("software") ? "field-software-error" : undefined}>
          <legend>Units and rentals</legend>
          {STORAGE_CHOICES.map((c) => (
            <div key={c.value} className="console-field">
              <input type="radio" id={`field-software-${c.value}`} name="software" value={c.value} defaultChecked={value("software") === c.value} aria-describedby={`field-software-${c.value}-hint`} />{" "}
              <label htmlFor={`field-software-${c.value}`}>{c.label}</label>
              <p id={`field-software-${c.value}-hint`} className="console-hint">
                {c.hint}
              </p>
            </div>
          ))}
          {error("software") ? (
            <p id="field-software-error" className="console-error">
              {error("software")}
            </p>
          ) : null}
        </fieldset>
        <fieldset>
          <legend>SiteLink settings (only when SiteLink is chosen)</legend>
          <p className="console-hint">
            After saving, the location stays off the website until its go-live check has passed with these settings: run it on the location&apos;s settings page (the
            link is on its page), or with <code>npm run sitelink:verify</code> on the server.
          </p>
          {field("sitelinkEndpoint", "Web service address", { type: "url", autoComplete: "off", hint: "For example https://api.smdservers.net/CCWs_3.5/CallCenterWs.asmx" })}
          {field("sitelinkCorpCode", "Corp code", { autoComplete: "off" })}
          {field("sitelinkLocationCode", "Location code", { autoComplete: "off" })}
          {field("sitelinkUser", "User name", { autoComplete: "off" })}
          {field("sitelinkPasswordEnv", "Password: the name of the environment variable that holds it", { autoComplete: "off", hint: "For example SITELINK_LUMBERTON_PASSWORD. Or leave this empty and type the password below (it is stored encrypted and never shown again)." })}
          <TextField name="sitelinkPassword" label="Password (when not in an environment variable)" type="password" autoComplete="new-password" error={error("sitelinkPassword")} />
          {field("sitelinkApiKeyEnv", "API key (optional): the name of the environment variable that holds it", { autoComplete: "off", hint: "Only if SiteLink gave your corp an API key. For example SITELINK_LUMBERTON_API_KEY. Or leave this empty and type the key below (it is stored encrypted and never shown again)." })}
          <TextField name="sitelinkApiKey" label="API key (when not in an environment variable)" type="password" autoComplete="off" error={error("sitelinkApiKey")} />
        </fieldset>
        <button type="submit" className="console-button">
          Save the location to the draft
        </button>
      </Form>
    </>
  );
}

/** A labelled select with its hint and error (linked by aria-describedby). */
function SelectField({ name, label, value, error, options, hint }: { name: string; label: string; value: string; error?: string; options: Array<[string, string]>; hint?: string }) {
  const id = `field-${name}`;
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={error ? "console-field console-field--invalid" : "console-field"}>
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={`${id}-hint`} className="console-hint">
          {hint}
        </p>
      ) : null}
      <select id={id} name={name} defaultValue={value} aria-invalid={error ? true : undefined} aria-describedby={describedBy}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
      {error ? (
        <p id={`${id}-error`} className="console-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
