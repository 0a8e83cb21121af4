import { getFormProps, getInputProps, getSelectProps, getTextareaProps, useForm, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { Form } from "react-router";
import { contactSchema, notifySchema } from "~/domain/site/contact-schema";
import { CsrfInput, Field, FormErrors, Honeypot, SubmitButton } from "../ui/form";
import { ErrorSummary, summaryErrors } from "../ui/error-summary";

interface ContactFormProps {
  csrfToken: string;
  lastResult?: SubmissionResult<string[]> | null;
  /** "notify" is the coming-soon sign-up: message optional, location fixed. */
  kind: "contact" | "notify";
  locations?: Array<{ urlSlug: string; name: string }>;
  fixedLocation?: string;
  action?: string;
}

/** The contact form and the coming-soon sign-up; works without JavaScript, validates as you go with it. */
export function ContactForm({ csrfToken, lastResult, kind, locations, fixedLocation, action }: ContactFormProps) {
  const schema = kind === "notify" ? notifySchema : contactSchema;
  const [form, fields] = useForm({
    id: `${kind}-form`,
    lastResult,
    constraint: getZodConstraint(schema),
    // First check on submit, then live while correcting. Checking on blur would show an error when
    // focus leaves a field for the submit button, moving the button under the pointer between
    // mousedown and mouseup, so the click was lost (docs/decisions/020-validate-on-submit.md).
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  return (
    <Form method="post" action={action} {...getFormProps(form)} noValidate className="stack-form">
      <CsrfInput token={csrfToken} />
      <Honeypot />
      <FormErrors id={form.errorId} errors={form.errors} />
      {/* After a submit the server refused (the path without JavaScript), a focused summary of the errors. */}
      {lastResult?.status === "error" ? (
        <ErrorSummary errors={summaryErrors(form.allErrors, [fields.name, fields.email, fields.phone, fields.message])} />
      ) : null}
      <Field label="Your name" meta={fields.name}>
        {(p) => <input {...getInputProps(fields.name, { type: "text" })} {...p} autoComplete="name" />}
      </Field>
      <Field label="Email address" meta={fields.email}>
        {(p) => <input {...getInputProps(fields.email, { type: "email" })} {...p} autoComplete="email" />}
      </Field>
      <Field label="Phone number" meta={fields.phone} optional hint="So we can call you back, for example (910) 555-0134.">
        {(p) => <input {...getInputProps(fields.phone, { type: "tel" })} {...p} autoComplete="tel" />}
      </Field>
      {fixedLocation ? (
        <input type="hidden" name="location" value={fixedLocation} />
      ) : locations?.length ? (
        <Field label="Location" meta={fields.location} optional>
          {(p) => (
            <select {...getSelectProps(fields.location)} {...p}>
              <option value="">Any location</option>
              {locations.map((l) => (
                <option key={l.urlSlug} value={l.urlSlug}>
                  {l.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      <Field label={kind === "notify" ? "Anything you would like us to know" : "Message"} meta={fields.message} optional={kind === "notify"}>
        {(p) => <textarea {...getTextareaProps(fields.message)} {...p} rows={kind === "notify" ? 3 : 6} />}
      </Field>
      <SubmitButton pendingText="Sending…">{kind === "notify" ? "Notify me" : "Send message"}</SubmitButton>
    </Form>
  );
}
