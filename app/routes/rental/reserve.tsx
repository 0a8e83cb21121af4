import { siteOriginFor } from "~/services/site/origin.server";
import { getFormProps, getInputProps, useForm, type FieldMetadata } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/reserve";
import { CsrfInput, Field, FormErrors, Honeypot, SubmitButton } from "~/components/ui/form";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { routeMeta } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { formatCents } from "~/domain/shared/money";
import { reservationFormSchema } from "~/domain/rental/reservation";
import { NameAndEmailFields, PhoneInput, TenantContactFields, TenantPasswordFields, type TenantContactFieldsMeta, type TenantPasswordFieldsMeta } from "~/components/ui/tenant-fields";
import { PHONE_MASK_HINT } from "~/domain/shared/tenant-form";
import { now as clockNow } from "~/platform/clock.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { requireRentalContext } from "~/services/rental/context.server";
import { reservePage, submitReservation } from "~/services/rental/reservation.server";
import rentalCss from "~/styles/rental.css?url";
import { RentalBlocked } from "~/components/rental/blocked";
import { UnitPromotion } from "~/components/site/unit-promotion";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";

export const handle = { enhanceForms: true };
export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: rentalCss }];

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const ctx = await requireRentalContext(context.db, params.unitTypeId, clockNow(), context);
  const csrf = await getCsrfToken(request);
  return data(reservePage(ctx, { csrfToken: csrf.token }), {
    headers: { "Cache-Control": NO_STORE, ...(csrf.setCookie ? { "Set-Cookie": csrf.setCookie } : {}) },
  });
}

export const action = keepFormThroughOutage(reserveAction, (form) => ({ result: outageResult(form), formError: null }));

async function reserveAction({ params, request, context }: Route.ActionArgs) {
  const now = clockNow();
  const ctx = await requireRentalContext(context.db, params.unitTypeId, now, context);
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const result = await submitReservation(context.db, ctx, { formData, clientIp: context.clientIp, now, origin: () => siteOriginFor(context) });
  if ("redirect" in result) throw redirect(result.redirect, 303);
  return data(result.answer, { status: result.status });
}

export const headers: Route.HeadersFunction = ({ loaderHeaders }) => ({
  "Cache-Control": NO_STORE,
  ...(loaderHeaders.get("Set-Cookie") ? { "Set-Cookie": loaderHeaders.get("Set-Cookie")! } : {}),
});

export const meta: Route.MetaFunction = ({ matches, loaderData, params }) => [
  ...routeMeta(matches, {
    title: `Reserve ${loaderData?.unit ?? "a unit"}${loaderData ? ` in ${loaderData.locationName}` : ""}`,
    description: "Reserve a storage unit online and finish your paperwork at the office.",
    path: `/reserve/${params.unitTypeId}`,
  }),
  { name: "robots", content: "noindex" },
];

type F = FieldMetadata<string | undefined>;
type ShortFields = Record<"first_name" | "last_name" | "email" | "phone", F>;
type AccountFields = TenantContactFieldsMeta & TenantPasswordFieldsMeta & { desired_move_in_date: F };
const ACCOUNT_ORDER = [
  "first_name", "last_name", "email", "cell_phone", "addr_1", "addr_2", "city", "region", "postal_code",
  "alt_contact_first_name", "alt_contact_last_name", "alt_contact_phone", "web_pw", "confirm_web_pw", "desired_move_in_date",
] as const;

/** The short form's contact fields (reservation short form flag on). */
function ShortFormFields({ fields }: { fields: ShortFields }) {
  return (
    <>
      <NameAndEmailFields fields={fields} />
      <Field label="Phone" meta={fields.phone} hint={`Format ${PHONE_MASK_HINT}.`}>
        {(p) => <PhoneInput meta={fields.phone} p={p} autoComplete="tel-national" />}
      </Field>
    </>
  );
}

export default function Reserve({ loaderData: d, actionData }: Route.ComponentProps) {
  const schema = reservationFormSchema(d.window, d.shortForm);
  const [form, fields] = useForm({
    id: "reserve",
    lastResult: actionData?.result,
    defaultValue: { desired_move_in_date: d.window.min },
    constraint: getZodConstraint(schema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  return (
    <div className="container page page--narrow rental">
      <p className="eyebrow">
        <Link to={d.locationPath}>{d.locationName}</Link>
      </p>
      <h1>Reserve a {d.unit} unit</h1>
      {d.blocked ? (
        <RentalBlocked message={d.blocked} phone={d.phone} />
      ) : (
        <>
          <p>
            {d.standardRate > d.rate ? <span className="visually-hidden">Web rate </span> : null}
            {formatCents(d.rate)} a month
            {d.standardRate > d.rate ? (
              <>
                {" "}
                <span className="visually-hidden">(standard rate </span>
                <s>{formatCents(d.standardRate)}</s>
                <span className="visually-hidden">)</span>
              </>
            ) : null}
            . Reserving is free: we keep the unit for you for {d.daysValid} days. Come to the office during office hours
            to sign your lease and get your gate code.
          </p>
          <UnitPromotion text={d.promotion} />
          {actionData?.formError ? (
            <div className="alert alert--error" role="alert">
              <p>{actionData.formError}</p>
            </div>
          ) : null}
          <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
            <CsrfInput token={d.csrfToken} />
            <Honeypot />
            <input type="hidden" name="idempotency_key" value={d.idempotencyKey} />
            <FormErrors id={form.errorId} errors={form.errors} />
            {d.shortForm ? (
              <>
                <ErrorSummary
                  errors={actionData?.result ? summaryErrors(form.allErrors, [fields.first_name, fields.last_name, fields.email, fields.phone, fields.desired_move_in_date]) : []}
                />
                <ShortFormFields fields={fields as unknown as ShortFields} />
              </>
            ) : (
              <>
                <ErrorSummary errors={actionData?.result ? summaryErrors(form.allErrors, ACCOUNT_ORDER.map((n) => (fields as unknown as AccountFields)[n])) : []} />
                <p>
                  Create your account: you will use this email and password to sign in to the customer portal, where you pay your bill once
                  you move in.
                </p>
                <TenantContactFields fields={fields as unknown as AccountFields} />
                <TenantPasswordFields fields={fields as unknown as AccountFields} />
              </>
            )}
            <Field label="Desired move-in date" meta={fields.desired_move_in_date} hint={`From ${d.window.min} to ${d.window.max}.`}>
              {(p) => <input {...getInputProps(fields.desired_move_in_date, { type: "date" })} {...p} min={d.window.min} max={d.window.max} />}
            </Field>
            <div className="button-row">
              <SubmitButton pendingText="Reserving…">Reserve this unit</SubmitButton>
            </div>
          </Form>
        </>
      )}
    </div>
  );
}
