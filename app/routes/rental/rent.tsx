import { siteOriginFor } from "~/services/site/origin.server";
import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/rent";
import { paymentPageClientLoader } from "~/components/payments/page-guard";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import { CardFields, HostedCardFields, type CardFieldsMeta } from "~/components/payments/card-fields";
import { RentalStepsNav } from "~/components/rental/steps-nav";
import { ChargesDueToday, RentalUnitSummary } from "~/components/rental/summary";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, FieldErrors, FormErrors, Honeypot, SubmitButton } from "~/components/ui/form";
import { TenantContactFields, TenantPasswordFields, type TenantContactFieldsMeta, type TenantPasswordFieldsMeta } from "~/components/ui/tenant-fields";
import { routeMeta } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { formatCents } from "~/domain/shared/money";
import { detailsSchema, hostedPaySchema, paySchema, previousStep, signSchema, STEP_LABELS, type RentalStep } from "~/domain/rental/steps";
import { now as clockNow } from "~/platform/clock.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { rentalCookieHeader, clearRentalCookieHeader, readRentalId } from "~/services/rental/record.server";
import { keepRentalContextForPage, requireRentalContext, takeRentalContextOfAction } from "~/services/rental/context.server";
import { PAYMENT_UNAVAILABLE_MESSAGE, RETRY_AFTER_SECONDS } from "~/db/unavailable";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";
import rentalCss from "~/styles/rental.css?url";
import { RentalBlocked } from "~/components/rental/blocked";
import { AutopayField } from "~/components/payments/autopay-field";
import { rentPage } from "~/services/rental/steps.server";
import { returnFromHostedPayment, submitRentalStep } from "~/services/rental/submit.server";

export const handle = { enhanceForms: true, paymentPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

/** A payment page: reached from a page that ran operator code, it loads as a new document (decision 075). */
export const clientLoader = ({ request, serverLoader }: Route.ClientLoaderArgs) => paymentPageClientLoader({ request, serverLoader });

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: rentalCss }];

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const now = clockNow();
  // After an action that wrote nothing (a form without JavaScript: the action, then this loader), its context (decision 332).
  const ctx = takeRentalContextOfAction(context, params.unitTypeId) ?? (await requireRentalContext(context.db, params.unitTypeId, now, context));
  const [csrf, rentalId] = await Promise.all([getCsrfToken(request), readRentalId(request)]);
  const url = new URL(request.url);
  const sessionId = url.searchParams.get("checkout_session");
  if (sessionId) {
    // The return from the processor's payment page (JavaScript off, decision 383): confirmed server-side, then the confirmation.
    const back = await returnFromHostedPayment(context.db, ctx, {
      unitTypeId: params.unitTypeId,
      rentalId,
      sessionId,
      autopay: url.searchParams.get("autopay") === "1",
      clientIp: clientIp(context),
      now,
      origin: () => siteOriginFor(context),
    });
    throw redirect("redirect" in back ? back.redirect : `/rent/${params.unitTypeId}?step=pay&retry=1`, { headers: { "Cache-Control": NO_STORE } });
  }
  const page = await rentPage(context.db, ctx, { unitTypeId: params.unitTypeId, searchParams: new URL(request.url).searchParams, rentalId, csrfToken: csrf.token, now });
  if ("redirect" in page) throw redirect(page.redirect);
  return data(page.page, { headers: { "Cache-Control": NO_STORE, ...(csrf.setCookie ? { "Set-Cookie": csrf.setCookie } : {}) } });
}

function clientIp(context: Route.ActionArgs["context"]): string {
  return (context as { clientIp?: string }).clientIp ?? "";
}

// The database or the facility's software unreachable: the details form keeps what was typed
// (never the password); the later steps say to try again (a payment is never charged twice).
export const action = keepFormThroughOutage(rentAction, (form) => ({
  result: form?.get("intent") === "details" ? outageResult(form) : null,
  formError: PAYMENT_UNAVAILABLE_MESSAGE,
  emailTaken: false,
}));

async function rentAction({ params, request, context }: Route.ActionArgs) {
  const now = clockNow();
  const ctx = await requireRentalContext(context.db, params.unitTypeId, now, context);
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const result = await submitRentalStep(context.db, ctx, {
    unitTypeId: params.unitTypeId,
    formData,
    rentalId: await readRentalId(request),
    clientIp: clientIp(context),
    now,
    origin: () => siteOriginFor(context),
  });
  if ("unknownStep" in result) throw data({ message: "Unknown step" }, { status: 400 });
  if ("redirect" in result) {
    const cookie = result.cookie === "clear" ? await clearRentalCookieHeader() : result.cookie ? await rentalCookieHeader(result.cookie.set) : null;
    throw redirect(result.redirect, { status: 303, headers: cookie ? { "Set-Cookie": cookie } : undefined });
  }
  // An outage (503) says when to try again, like every other outage answer.
  if (result.contextAfter) keepRentalContextForPage(context, params.unitTypeId, result.contextAfter);
  const headers = result.status === 503 ? { "Retry-After": String(RETRY_AFTER_SECONDS), "Cache-Control": NO_STORE } : undefined;
  return data(result.answer, { status: result.status, headers });
}

export const headers: Route.HeadersFunction = ({ loaderHeaders, actionHeaders }) => ({
  "Cache-Control": NO_STORE,
  ...(loaderHeaders.get("Set-Cookie") ? { "Set-Cookie": loaderHeaders.get("Set-Cookie")! } : {}),
  ...(actionHeaders?.get("Set-Cookie") ? { "Set-Cookie": actionHeaders.get("Set-Cookie")! } : {}),
});

export const meta: Route.MetaFunction = ({ matches, loaderData, params }) => {
  const step = loaderData?.view?.step;
  return [
    ...routeMeta(matches, {
      title: `${step ? `${STEP_LABELS[step]} – ` : ""}Rent ${loaderData?.unit ?? "a unit"}${loaderData ? ` in ${loaderData.locationName}` : ""}`,
      description: "Rent a storage unit online: your details, protection plan, charges, lease and payment.",
      path: `/rent/${params.unitTypeId}`,
    }),
    { name: "robots", content: "noindex" },
  ];
};

type LoaderData = Route.ComponentProps["loaderData"];
type ActionData = Route.ComponentProps["actionData"];
type View = NonNullable<LoaderData["view"]>;
type StepView<S extends RentalStep> = Extract<View, { step: S }>;

export default function Rent({ loaderData, actionData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <div className="container page rental">
      <p className="eyebrow">
        <Link to={d.locationPath}>{d.locationName}</Link>
      </p>
      <h1>Rent a {d.unit} unit</h1>
      {d.blocked ? (
        <RentalBlocked message={d.blocked} phone={d.phone} />
      ) : d.view ? (
        <>
          <RentalStepsNav current={d.view.step} furthest={d.furthest ?? "details"} basePath={d.basePath} steps={d.steps} />
          <div className="rental__layout">
            <div className="rental__main">
              <h2 className="rental__step-title">{STEP_LABELS[d.view.step]}</h2>
              {actionData?.formError && !actionData.result && !(d.view.step === "pay" && d.view.hosted) ? (
                <div className="alert alert--error" role="alert">
                  <p>{actionData.formError}</p>
                </div>
              ) : null}
              {actionData?.emailTaken ? (
                <div className="alert alert--info" role="status">
                  <p>
                    This email address already has an account. <Link to="/customer-portal/login">Sign in to the customer portal</Link>, or use another email
                    address to rent.
                  </p>
                </div>
              ) : null}
              <StepBody view={d.view} data={d} actionData={actionData} />
            </div>
            <RentalUnitSummary unit={d.unit} location={d.locationName} monthlyRate={d.monthlyRate} standardRate={d.standardRate} heldUntil={d.heldUntil} promotion={d.promotion} />
          </div>
          {d.hasRental ? (
            <Form method="post" className="rental__cancel">
              <CsrfInput token={d.csrfToken} />
              <input type="hidden" name="intent" value="cancel" />
              <button type="submit" className="button-link">
                Cancel this rental and release the unit
              </button>
            </Form>
          ) : null}
        </>
      ) : null}
    </div>
  );
}

function BackLink({ basePath, step, eSign = true }: { basePath: string; step: RentalStep; eSign?: boolean }) {
  const prev = previousStep(step, eSign);
  return prev ? (
    <Link to={`${basePath}?step=${prev}`} className="button button--secondary">
      Back
    </Link>
  ) : null;
}

function StepBody({ view, data: d, actionData }: { view: View; data: LoaderData; actionData: ActionData }) {
  switch (view.step) {
    case "details":
      return <DetailsStep view={view} d={d} actionData={actionData} />;
    case "protection":
      return <ProtectionStep view={view} d={d} actionData={actionData} />;
    case "review":
      return <ReviewStep view={view} d={d} />;
    case "sign":
      return <SignStep view={view} d={d} actionData={actionData} />;
    case "pay":
      return <PayStep view={view} d={d} actionData={actionData} />;
  }
}

function DetailsStep({ view, d, actionData }: { view: StepView<"details">; d: LoaderData; actionData: ActionData }) {
  const schema = detailsSchema({ passwordOptional: view.hasPassword });
  const [form, fields] = useForm({
    id: "rent-details",
    lastResult: actionData?.result,
    defaultValue: view.defaults,
    constraint: getZodConstraint(schema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const f = fields as unknown as TenantContactFieldsMeta & TenantPasswordFieldsMeta & { text_opt_in: TenantContactFieldsMeta["is_military"] };
  const order = [
    "first_name", "last_name", "email", "cell_phone", "addr_1", "addr_2", "city", "region", "postal_code",
    "alt_contact_first_name", "alt_contact_last_name", "alt_contact_phone", "web_pw", "confirm_web_pw",
  ] as const;
  return (
    <Form method="post" action={`${d.basePath}?step=details`} {...getFormProps(form)} noValidate className="stack-form">
      <CsrfInput token={d.csrfToken} />
      <Honeypot />
      <input type="hidden" name="intent" value="details" />
      <FormErrors id={form.errorId} errors={form.errors ?? (actionData?.formError ? [actionData.formError] : undefined)} />
      <ErrorSummary errors={actionData?.result ? summaryErrors(form.allErrors, order.map((n) => f[n])) : []} />
      <p>Create your account: you will use this email and password to pay your bill in the customer portal.</p>
      <TenantContactFields fields={f} />
      {view.textOptIn ? (
        // The texting opt-in (decision 511): unticked unless ticked; kept when the form comes back with errors.
        <div className="checkbox-field">
          <input {...getInputProps(f.text_opt_in, { type: "checkbox", value: "on" })} data-testid="text-opt-in" />
          <label htmlFor={f.text_opt_in.id}>{view.textOptIn.wording}</label>
        </div>
      ) : null}
      <TenantPasswordFields fields={f} keepHint={view.hasPassword} />
      <div className="button-row">
        <SubmitButton pendingText="Saving…">Continue</SubmitButton>
      </div>
    </Form>
  );
}

function ProtectionStep({ view, d, actionData }: { view: StepView<"protection">; d: LoaderData; actionData: ActionData }) {
  const [form, fields] = useForm({
    id: "rent-protection",
    lastResult: actionData?.result,
    defaultValue: { insurance_plan: view.choice ?? undefined, move_in_date: view.moveInDate },
    shouldValidate: "onSubmit",
  });
  const meta = fields.insurance_plan;
  const invalid = Boolean(meta.errors?.length);
  return (
    <Form method="post" action={`${d.basePath}?step=protection`} {...getFormProps(form)} noValidate className="stack-form">
      <CsrfInput token={d.csrfToken} />
      <input type="hidden" name="intent" value="protection" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <ErrorSummary errors={actionData?.result ? summaryErrors(form.allErrors, [{ id: `plan-${view.plans[0]?.id ?? "none"}`, name: meta.name }]) : []} />
      <fieldset className="choice-list" aria-describedby={invalid ? meta.errorId : undefined} aria-invalid={invalid || undefined}>
        <legend>Choose a protection plan for your belongings</legend>
        {view.plans.length === 0 ? <p>This location does not offer protection plans online.</p> : null}
        {view.plans.map((p, i) => (
          <div className="choice" key={p.id}>
            <input
              type="radio"
              id={`plan-${p.id}`}
              name={meta.name}
              value={p.id}
              defaultChecked={view.choice === p.id}
              aria-describedby={`plan-${p.id}-detail`}
              autoFocus={invalid && i === 0}
            />
            <label htmlFor={`plan-${p.id}`}>
              <strong>{p.label}</strong>
              <span id={`plan-${p.id}-detail`} className="choice__detail">
                {p.detail}
              </span>
            </label>
          </div>
        ))}
        {!view.required ? (
          <div className="choice">
            <input type="radio" id="plan-none" name={meta.name} value="none" defaultChecked={view.choice === "none"} />
            <label htmlFor="plan-none">
              <strong>No protection plan</strong>
              <span className="choice__detail">My belongings are not protected by a plan from us; I may insure them myself.</span>
            </label>
          </div>
        ) : null}
        <FieldErrors id={meta.errorId} errors={meta.errors} />
      </fieldset>
      {view.moveInDates.length > 1 ? (
        <div className={fields.move_in_date.errors?.length ? "field field--invalid" : "field"}>
          <label htmlFor="move-in-date" className="field__label">
            Move-in date
          </label>
          <p id="move-in-date-hint" className="field__hint">
            Your rent and your lease start on this day.
          </p>
          <select
            id="move-in-date"
            name={fields.move_in_date.name}
            defaultValue={view.moveInDate}
            aria-describedby={`move-in-date-hint${fields.move_in_date.errors?.length ? ` ${fields.move_in_date.errorId}` : ""}`}
            aria-invalid={fields.move_in_date.errors?.length ? true : undefined}
            data-testid="move-in-date"
          >
            {view.moveInDates.map((d) => (
              <option key={d.value} value={d.value}>
                {d.label}
              </option>
            ))}
          </select>
          <FieldErrors id={fields.move_in_date.errorId} errors={fields.move_in_date.errors} />
        </div>
      ) : (
        <p>
          <strong>Move-in date:</strong> {view.moveInDates[0]?.label ?? view.moveInDateLabel}
        </p>
      )}
      <div className="button-row">
        <BackLink basePath={d.basePath} step="protection" />
        <SubmitButton pendingText="Saving…">Continue</SubmitButton>
      </div>
    </Form>
  );
}

function ReviewStep({ view, d }: { view: StepView<"review">; d: LoaderData }) {
  return (
    <div className="stack-form">
      {view.changed ? (
        <div className="alert alert--info" role="alert">
          <p>
            {d.eSign
              ? "Your charges changed since you signed. Please review them and sign the lease again. Nothing was charged."
              : "Your charges changed. Please review them before you pay. Nothing was charged."}
          </p>
        </div>
      ) : null}
      <ChargesDueToday lines={view.lines} total={view.total} />
      <p>
        Your rental starts on {view.moveInDate}. Today&apos;s payment covers you through {view.paidThroughDate}. After that,{" "}
        <strong>{formatCents(view.monthlyTotal)}</strong> a month is due from {view.nextDueDate}.
      </p>
      {view.promotionLater ? <p data-testid="promotion-later">{view.promotionLater}</p> : null}
      {d.eSign ? null : (
        <p data-testid="lease-at-office">
          You sign your lease at the {d.locationName} office when you first come in: it is not signed online. After payment you can read and print
          it from your confirmation.
        </p>
      )}
      <div className="button-row">
        <BackLink basePath={d.basePath} step="review" eSign={d.eSign} />
        <Link to={`${d.basePath}?step=${d.eSign ? "sign" : "pay"}`} className="button button--primary">
          {d.eSign ? "Continue to the lease" : "Continue to payment"}
        </Link>
      </div>
    </div>
  );
}

function SignStep({ view, d, actionData }: { view: StepView<"sign">; d: LoaderData; actionData: ActionData }) {
  const [form, fields] = useForm({
    id: "rent-sign",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: signSchema(view.fullName) }),
  });
  const name = fields.signed_name;
  const consent = fields.consent;
  return (
    <Form method="post" action={`${d.basePath}?step=sign`} {...getFormProps(form)} noValidate className="stack-form">
      <CsrfInput token={d.csrfToken} />
      <input type="hidden" name="intent" value="sign" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <ErrorSummary errors={actionData?.result ? summaryErrors(form.allErrors, [name, consent]) : []} />
      <p>Please read your rental agreement. To sign it, type your full name and tick the box.</p>
      <div className="lease-text" tabIndex={0} role="region" aria-label="Rental agreement">
        {view.leaseText}
      </div>
      <div className={name.errors?.length ? "field field--invalid" : "field"}>
        <label htmlFor={name.id} className="field__label">
          Type your full name to sign
        </label>
        <p id={`${name.id}-hint`} className="field__hint">
          As on your details: {view.fullName}
        </p>
        <input
          {...getInputProps(name, { type: "text" })}
          defaultValue={name.initialValue ?? undefined}
          autoComplete="name"
          aria-describedby={`${name.id}-hint${name.errors?.length ? ` ${name.errorId}` : ""}`}
        />
        <FieldErrors id={name.errorId} errors={name.errors} />
      </div>
      <div className={consent.errors?.length ? "field field--invalid" : "field"}>
        <div className="checkbox-field">
          <input {...getInputProps(consent, { type: "checkbox", value: "on" })} aria-describedby={consent.errors?.length ? consent.errorId : undefined} />
          <label htmlFor={consent.id}>I have read the rental agreement and I agree to sign it electronically.</label>
        </div>
        <FieldErrors id={consent.errorId} errors={consent.errors} />
      </div>
      <div className="button-row">
        <BackLink basePath={d.basePath} step="sign" />
        <SubmitButton pendingText="Signing…">Sign the lease</SubmitButton>
      </div>
    </Form>
  );
}

function PayStep({ view, d, actionData }: { view: StepView<"pay">; d: LoaderData; actionData: ActionData }) {
  // The bank wants the visitor to confirm the payment on the page (decision 405).
  const authenticate = actionData && "authenticate" in actionData ? (actionData.authenticate ?? null) : null;
  const schema = view.hosted ? hostedPaySchema({ forceAutopay: view.autopay.required }) : paySchema(view.today, { forceAutopay: view.autopay.required, acceptedCards: view.acceptedCards });
  const [form, fields] = useForm({
    id: "rent-pay",
    lastResult: actionData?.result,
    defaultValue: { name_on_card: view.nameOnCard, billing_postal_code: view.postalCode, autopay: view.autopay.checked ? "on" : "" },
    constraint: getZodConstraint(schema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  return (
    <Form method="post" action={`${d.basePath}?step=pay`} {...getFormProps(form)} noValidate className="stack-form">
      <CsrfInput token={d.csrfToken} />
      <input type="hidden" name="intent" value="pay" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <ErrorSummary
        errors={actionData?.result ? summaryErrors(form.allErrors, [fields.card_number, fields.exp_month, fields.exp_year, fields.cvv, fields.name_on_card, fields.billing_postal_code]) : []}
      />
      {view.replacedUnit ? (
        <div className="notice" role="status">
          <p>
            The unit held for you was just rented at the office. We are now holding unit {view.replacedUnit} of the same size for you. Nothing was
            charged. Please check the total and pay again.
          </p>
        </div>
      ) : null}
      {view.retry ? (
        <div className="notice" role="status">
          <p>We could not complete your rental and nothing was charged. Please enter your card again.</p>
        </div>
      ) : null}
      <p className="rental__due">
        Total due today: <strong data-testid="pay-total">{formatCents(view.total)}</strong>
      </p>
      {view.hosted ? (
        // The server's answer (a decline, a busy card) beside Stripe's card field (decision 390).
        <HostedCardFields error={actionData?.result && !authenticate ? null : actionData?.formError} authenticate={authenticate} />
      ) : (
        <CardFields fields={fields as unknown as CardFieldsMeta} today={view.today} accepted={view.acceptedCards} demonstration={view.demonstration} />
      )}
      <AutopayField choice={view.autopay} field={fields.autopay} terms={view.autopayTerms} />
      <div className="button-row">
        <BackLink basePath={d.basePath} step="pay" eSign={d.eSign} />
        <SubmitButton pendingText="Processing payment…">{view.hosted ? `Continue to pay ${formatCents(view.total)}` : `Pay ${formatCents(view.total)} and rent`}</SubmitButton>
      </div>
    </Form>
  );
}
