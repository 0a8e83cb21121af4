import type { FieldMetadata } from "@conform-to/react";
import { useNavigation } from "react-router";
import { CSRF_FIELD_NAME, HONEYPOT_FIELD_NAME } from "~/domain/web/form-fields";

/** The errors of one field, linked to it by id and announced by screen readers. */
export function FieldErrors({ id, errors }: { id: string; errors?: string[] }) {
  return (
    <div id={id} className="field__errors" aria-live="polite">
      {errors?.length ? (
        <ul>
          {errors.map((e) => (
            <li key={e}>{e}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

interface FieldProps {
  label: string;
  meta: FieldMetadata<string | undefined>;
  hint?: string;
  optional?: boolean;
  children: (props: { id: string; name: string; "aria-invalid"?: true; "aria-describedby"?: string; defaultValue?: string; required?: boolean }) => React.ReactNode;
}

/**
 * A labelled field: label, optional hint, the control, and its errors. The control gets
 * aria-invalid and aria-describedby (hint and errors); typed values come back through defaultValue.
 */
export function Field({ label, meta, hint, optional, children }: FieldProps) {
  const hintId = hint ? `${meta.id}-hint` : undefined;
  const invalid = Boolean(meta.errors?.length);
  const describedBy = [hintId, invalid ? meta.errorId : undefined].filter(Boolean).join(" ") || undefined;
  return (
    <div className={invalid ? "field field--invalid" : "field"}>
      <label htmlFor={meta.id} className="field__label">
        {label}
        {optional ? <span className="field__optional"> (optional)</span> : null}
      </label>
      {hint ? (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      ) : null}
      {children({
        id: meta.id,
        name: meta.name,
        ...(invalid ? { "aria-invalid": true as const } : {}),
        "aria-describedby": describedBy,
        defaultValue: typeof meta.initialValue === "string" ? meta.initialValue : undefined,
        required: meta.required,
      })}
      <FieldErrors id={meta.errorId} errors={meta.errors} />
    </div>
  );
}

/** Form-level errors (e.g. "could not send"), announced. */
export function FormErrors({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return <div id={id} aria-live="assertive" />;
  return (
    <div id={id} className="alert alert--error" role="alert">
      {errors.map((e) => (
        <p key={e}>{e}</p>
      ))}
    </div>
  );
}

/** The hidden CSRF token field. */
export function CsrfInput({ token }: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD_NAME} value={token} />;
}

/** A field people never see or fill; bots that fill it are quietly ignored. */
export function Honeypot() {
  return (
    <div className="honeypot" aria-hidden="true">
      <label htmlFor={HONEYPOT_FIELD_NAME}>Leave this field empty</label>
      <input id={HONEYPOT_FIELD_NAME} name={HONEYPOT_FIELD_NAME} type="text" tabIndex={-1} autoComplete="off" defaultValue="" />
    </div>
  );
}

/**
 * A submit button that shows progress while its form is being sent (when JavaScript is on: the form
 * script, app/components/ui/form-enhance.js, reads `data-pending-text`; a hydrated page uses the navigation state).
 */
export function SubmitButton({
  children,
  pendingText,
  className,
  jsLabel,
}: {
  children: React.ReactNode;
  pendingText: string;
  className?: string;
  /** The words once a page script has changed what the button does (Stripe's fields on the page, decision 400). */
  jsLabel?: string;
}) {
  const navigation = useNavigation();
  const pending = navigation.state === "submitting";
  return (
    <button type="submit" className={className ?? "button button--primary"} aria-disabled={pending || undefined} data-pending-text={pendingText} data-js-label={jsLabel}>
      {pending ? pendingText : children}
    </button>
  );
}
