import { siteOriginFor } from "~/services/site-origin.server";
import crypto from "node:crypto";
import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import type { Route } from "./+types/reserve";
import { CsrfInput, Field, FormErrors, Honeypot, SubmitButton } from "~/components/form";
import { ErrorSummary, summaryErrors } from "~/components/checkout-error-summary";
import { routeMeta } from "~/components/route-meta";
import { NO_STORE } from "~/domain/cache";
import { isHoneypotFilled } from "~/domain/form-fields";
import { formatCents } from "~/domain/money";
import { limitAnonymousForm } from "~/services/anonymous-limits.server";
import { formatPhone } from "~/domain/phone";
import { reservationSchema, reservationWindow } from "~/domain/reservation";
import { PHONE_MASK_HINT } from "~/domain/tenant-form";
import { now as clockNow } from "~/services/clock.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { loadRentalContext, unitDescription } from "~/services/move-in.server";
import { confirmationPath, reservationBlock, reservationBlockMessage, reserveUnit } from "~/services/reservation.server";
import { UnitUnavailableError } from "~/storage-software/errors";
import checkoutCss from "~/styles/checkout.css?url";
import { CheckoutBlocked } from "~/components/checkout-blocked";
import { notFound } from "~/services/http.server";
import { keepFormThroughOutage, outageResult } from "~/services/form-outage.server";

export const handle = { enhanceForms: true };
export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: checkoutCss }];

async function requireContext(context: Route.LoaderArgs["context"], unitTypeId: string) {
  const ctx = await loadRentalContext(context.db, unitTypeId, clockNow());
  if (!ctx) throw notFound();
  // A type the location hides (is_show_only_specific_unit_types) is not offered online, even by URL.
  if (!ctx.offered) throw notFound(undefined, "This unit is not offered online");
  return ctx;
}

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const ctx = await requireContext(context, params.unitTypeId);
  const csrf = await getCsrfToken(request);
  const block = reservationBlock(ctx);
  const phone = formatPhone(ctx.location.phoneNumber);
  return data(
    {
      csrfToken: csrf.token,
      idempotencyKey: crypto.randomBytes(16).toString("base64url"),
      unit: unitDescription(ctx.unitType),
      rate: ctx.settings.is_web_rates_enabled && ctx.unitType.webRate > 0 ? ctx.unitType.webRate : ctx.unitType.standardRate,
      standardRate: ctx.unitType.standardRate,
      locationName: ctx.location.name,
      locationPath: `/locations/${ctx.location.urlSlug}`,
      phone,
      daysValid: ctx.settings.reservation_days_valid,
      window: reservationWindow(ctx.today, ctx.settings.reservation_days_valid),
      blocked: block ? reservationBlockMessage(block, phone) : null,
    },
    { headers: { "Cache-Control": NO_STORE, ...(csrf.setCookie ? { "Set-Cookie": csrf.setCookie } : {}) } },
  );
}

export const action = keepFormThroughOutage(reserveAction, (form) => ({ result: outageResult(form), formError: null }));

async function reserveAction({ params, request, context }: Route.ActionArgs) {
  const now = clockNow();
  const ctx = await requireContext(context, params.unitTypeId);
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const phone = formatPhone(ctx.location.phoneNumber);
  const block = reservationBlock(ctx);
  if (block) return data({ result: null, formError: reservationBlockMessage(block, phone) }, { status: 409 });
  if (isHoneypotFilled(formData)) throw redirect(`/locations/${ctx.location.urlSlug}`, 303);
  const submission = parseWithZod(formData, { schema: reservationSchema(reservationWindow(ctx.today, ctx.settings.reservation_days_valid)) });
  if (submission.status !== "success") return data({ result: submission.reply(), formError: null }, { status: 400 });
  const limited = await limitAnonymousForm(context.db, "reservation", context.clientIp, now);
  if (limited) return data({ result: submission.reply({ formErrors: [limited] }), formError: limited }, { status: 429 });
  const key = String(formData.get("idempotency_key") ?? "");
  const idempotencyKey = /^[A-Za-z0-9_-]{16,64}$/.test(key) ? key : crypto.randomBytes(16).toString("base64url");
  try {
    const { reservation } = await reserveUnit(context.db, ctx, { form: submission.value, idempotencyKey, now, origin: await siteOriginFor(context) });
    throw redirect(confirmationPath(reservation.confirmationCode), 303);
  } catch (error) {
    if (error instanceof UnitUnavailableError) {
      return data({ result: submission.reply(), formError: reservationBlockMessage("sold_out", phone) }, { status: 409 });
    }
    throw error;
  }
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

export default function Reserve({ loaderData: d, actionData }: Route.ComponentProps) {
  const schema = reservationSchema(d.window);
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
    <div className="container page page--narrow checkout">
      <p className="eyebrow">
        <Link to={d.locationPath}>{d.locationName}</Link>
      </p>
      <h1>Reserve a {d.unit} unit</h1>
      {d.blocked ? (
        <CheckoutBlocked message={d.blocked} phone={d.phone} />
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
            <ErrorSummary
              errors={actionData?.result ? summaryErrors(form.allErrors, [fields.first_name, fields.last_name, fields.email, fields.phone, fields.desired_move_in_date]) : []}
            />
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
            <Field label="Phone" meta={fields.phone} hint={`Format ${PHONE_MASK_HINT}.`}>
              {(p) => (
                <input
                  {...getInputProps(fields.phone, { type: "tel" })}
                  {...p}
                  inputMode="tel"
                  autoComplete="tel-national"
                  data-phone-mask=""
                />
              )}
            </Field>
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
