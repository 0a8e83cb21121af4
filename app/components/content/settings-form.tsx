import type { ReactNode } from "react";
import { Form } from "react-router";
import { CsrfInput, FormMessage } from "~/components/console/shell";
import { isFlagSetting, RENTAL_SETTINGS, type RentalSettingKey } from "~/domain/shared/account-settings";

/**
 * The rental settings form (decision 632): one labelled field per setting, grouped, with the spec's
 * meaning as its hint and its error beside it; a location's choices say what the website's value is.
 * A plain form (works without JavaScript); the values typed are kept when something is refused.
 */
function SettingsForm(props: {
  mode: "account" | "location";
  values: Record<string, string>;
  accountValues: Record<string, string>;
  errors: Record<string, string>;
  formError: string | null;
  base: string;
  csrfToken: string;
}) {
  const { mode, values, accountValues, errors } = props;
  const keys = Object.keys(RENTAL_SETTINGS) as RentalSettingKey[];
  const groups = [...new Set(keys.map((k) => RENTAL_SETTINGS[k].group))];
  const websiteSays = (k: RentalSettingKey) => {
    const v = accountValues[k] ?? "";
    return isFlagSetting(k) ? (v === "yes" || v === "on" ? "yes" : "no") : v;
  };
  return (
    <Form method="post" reloadDocument noValidate aria-labelledby="settings-heading" id="settings-form">
      <CsrfInput token={props.csrfToken} />
      <input type="hidden" name="base" value={props.base} />
      {props.formError ? <FormMessage message={props.formError} /> : null}
      {groups.map((group) => (
        <fieldset key={group} className="console-fieldset">
          <legend>{group}</legend>
          {keys
            .filter((k) => RENTAL_SETTINGS[k].group === group)
            .map((k) => {
              const s = RENTAL_SETTINGS[k];
              const id = `field-${k}`;
              const error = errors[k];
              const describedBy = [`${id}-hint`, error ? `${id}-error` : null].filter(Boolean).join(" ");
              const hint = (
                <p id={`${id}-hint`} className="console-hint">
                  {s.hint}
                  {mode === "location" ? ` The website's setting: ${websiteSays(k) === "" ? "(none)" : websiteSays(k)}.` : ""}
                </p>
              );
              const errorLine = error ? (
                <p id={`${id}-error`} className="console-error">
                  {error}
                </p>
              ) : null;
              const cls = error ? "console-field console-field--invalid" : "console-field";
              if (isFlagSetting(k) && mode === "account") {
                return (
                  <div key={k} className={`${cls} console-field--check`}>
                    <input id={id} type="checkbox" name={k} value="on" defaultChecked={values[k] === "on"} aria-invalid={error ? true : undefined} aria-describedby={describedBy} />
                    <label htmlFor={id}>{s.label}</label>
                    {hint}
                    {errorLine}
                  </div>
                );
              }
              if (isFlagSetting(k)) {
                return (
                  <div key={k} className={cls}>
                    <label htmlFor={id}>{s.label}</label>
                    {hint}
                    <select id={id} name={k} defaultValue={values[k] ?? ""} aria-invalid={error ? true : undefined} aria-describedby={describedBy}>
                      <option value="">Same as the website ({websiteSays(k)})</option>
                      <option value="yes">Yes at this location</option>
                      <option value="no">No at this location</option>
                    </select>
                    {errorLine}
                  </div>
                );
              }
              return (
                <div key={k} className={cls}>
                  <label htmlFor={id}>{s.label}</label>
                  {hint}
                  <input
                    id={id}
                    name={k}
                    type="text"
                    inputMode="numeric"
                    defaultValue={values[k] ?? ""}
                    placeholder={mode === "location" ? `Same as the website (${websiteSays(k)})` : undefined}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={describedBy}
                  />
                  {errorLine}
                </div>
              );
            })}
        </fieldset>
      ))}
      <button type="submit" className="console-button">
        Save the settings to the draft
      </button>
    </Form>
  );
}

/** What a settings page's loader gives (the services' settings page, with the CSRF token and `?done=saved`). */
interface SettingsPageData {
  values: Record<string, string>;
  accountValues: Record<string, string>;
  base: string;
  pending: boolean;
  unknownKeys: string[];
  csrfToken: string;
  saved: boolean;
}

/** A refused save: the messages and what was typed. */
interface SettingsRefusal {
  ok: false;
  values: Record<string, string>;
  errors: Record<string, string>;
  formError: string | null;
}

/**
 * The body of both settings pages (the account's rental settings and a location's own): the heading,
 * what the page is for, the saved and pending notes, and the form with the typed values kept when a
 * save was refused.
 */
export function SettingsPage(props: {
  mode: "account" | "location";
  heading: string;
  intro: ReactNode;
  page: SettingsPageData;
  refused: SettingsRefusal | null;
  /** A section of its own before the rental settings (a SiteLink location's go-live check): they then get a heading of theirs. */
  before?: ReactNode;
}) {
  const { page, refused } = props;
  return (
    <>
      <h1 id={props.before ? undefined : "settings-heading"}>{props.heading}</h1>
      {props.before}
      {props.before ? <h2 id="settings-heading">Rental settings</h2> : null}
      <p>{props.intro}</p>
      <FormMessage tone="success" message={page.saved ? "Saved to the draft. Publish it on the Changes page." : null} />
      {page.pending ? <p>The draft changes these settings (not published yet).</p> : null}
      {page.unknownKeys.length ? <p>Stored settings no longer used, dropped at the next save: {page.unknownKeys.join(", ")}.</p> : null}
      <SettingsForm
        mode={props.mode}
        values={refused?.values ?? page.values}
        accountValues={page.accountValues}
        errors={refused?.errors ?? {}}
        formError={refused?.formError ?? null}
        base={page.base}
        csrfToken={page.csrfToken}
      />
    </>
  );
}
