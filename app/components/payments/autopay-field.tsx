import { getInputProps, type FieldMetadata } from "@conform-to/react";
import type { AutopayChoice } from "~/domain/rental/autopay-choice";

/**
 * The autopay box of the rental's payment step. Required autopay: a ticked, disabled box with the
 * reason next to it (the value travels in a hidden input, and the server forces it anyway).
 */
export function AutopayField({ choice, field, terms }: { choice: AutopayChoice; field: FieldMetadata<string | undefined>; terms: string }) {
  if (!choice.offered) return null;
  const describedBy = choice.reason ? "autopay-reason autopay-terms" : "autopay-terms";
  return (
    <fieldset className="form-group">
      <legend>Autopay</legend>
      <div className="checkbox-field">
        {choice.required ? (
          <>
            <input type="hidden" name={field.name} value="on" />
            <input type="checkbox" id={field.id} checked disabled aria-describedby={describedBy} data-testid="autopay-box" />
          </>
        ) : (
          <input
            {...getInputProps(field, { type: "checkbox", value: "on" })}
            aria-describedby={describedBy}
            data-testid="autopay-box"
          />
        )}
        <label htmlFor={field.id}>Pay my rent automatically each month with this card (autopay)</label>
      </div>
      {choice.reason ? (
        <p id="autopay-reason" className="field__hint field__hint--strong" data-testid="autopay-reason">
          {choice.reason}
        </p>
      ) : null}
      <p id="autopay-terms" className="field__hint">
        {terms}
      </p>
    </fieldset>
  );
}
