import { siteOriginFor } from "~/services/site-origin.server";
import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/link";
import type { Route } from "./+types/rent";
import { paymentPageClientLoader } from "~/components/payment-page-guard";
import type { PaymentPageHandle } from "~/domain/payment-pages";
import { CardFields, type CardFieldsMeta } from "~/components/card-fields";
import { CheckoutProgress } from "~/components/rental-steps-nav";
import { CheckoutCharges, CheckoutUnitSummary } from "~/components/rental-summary";
import { ErrorSummary, summaryErrors } from "~/components/error-summary";
import { CsrfInput, FieldErrors, FormErrors, Honeypot, SubmitButton } from "~/components/form";
import { TenantContactFields, TenantPasswordFields, type TenantContactFieldsMeta, type TenantPasswordFieldsMeta } from "~/components/tenant-fields";
import { routeMeta } from "~/components/route-meta";
import { NO_STORE } from "~/domain/cache";
import { isHoneypotFilled } from "~/domain/form-fields";
import { formatCents } from "~/domain/money";
import {
  detailsSchema,
  paySchema,
  previousStep,
  protectionSchema,
  signSchema,
  STEP_LABELS,
  type MoveInStep,
} from "~/domain/rental-steps";
import { formatPhone } from "~/domain/phone";
import { commonPasswordError } from "~/domain/common-passwords";
import { now as clockNow } from "~/platform/clock.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import {
  checkoutLeaseText,
  placeMoveIn,
  quoteCheckout
} from "~/services/move-in.server";
import { abandonCheckout, checkoutCookieHeader, checkoutDetails, checkoutProgress, clearCheckoutCookieHeader, getCheckout, isActiveCheckout, readCheckoutId, releaseOtherCheckout, holdForDetails, releaseDetailsHold, saveHeldDetails, saveProtection, type DetailsHold, saveSignature } from "~/services/rental.server";
import { requireRentalContext } from "~/services/rental-context.server";
import { rentalBlock, rentalBlockMessage } from "~/domain/rental-rules";
import { EMAIL_TAKEN_MESSAGE } from "~/storage-software/errors";
import { CardNotTakenOnlineError, SoftwareUnreachableError, StorageValidationError, UnitUnavailableError, storageErrorMessage } from "~/storage-software/errors";
import { toCardDetails } from "~/domain/card-schema";
import { methodLast4, type PaymentMethodInput } from "~/domain/payment-method";
import { autopayChoice } from "~/domain/autopay-choice";
import { PAYMENT_UNAVAILABLE_MESSAGE, RETRY_AFTER_SECONDS } from "~/db/unavailable";
import { keepFormThroughOutage, outageResult } from "~/services/form-outage.server";
import checkoutCss from "~/styles/rental.css?url";
import { CheckoutBlocked } from "~/components/rental-blocked";
import { limitDetailsSubmission, releaseHoldCount, releaseNewHoldCounts } from "~/services/anonymous-limits.server";
import { beginCardAttempt, cardApproved, cardDeclined, cardLockedMessage, cardNotTried } from "~/services/card-attempts.server";
import { AutopayField } from "~/components/autopay-field";
import { rentPage, yearMonth } from "~/services/rental-steps.server";

export const handle = { enhanceForms: true, paymentPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

/** A payment page: reached from a page that ran operator code, it loads as a new document (decision 075). */
export const clientLoader = ({ request, serverLoader }: Route.ClientLoaderArgs) => paymentPageClientLoader({ request, serverLoader });

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: checkoutCss }];

const HIDDEN_FIELDS = ["web_pw", "confirm_web_pw", "card_number", "cvv"];

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const now = clockNow();
  const ctx = await requireRentalContext(context.db, params.unitTypeId, now);
  const [csrf, checkoutId] = await Promise.all([getCsrfToken(request), readCheckoutId(request)]);
  const page = await rentPage(context.db, ctx, { unitTypeId: params.unitTypeId, searchParams: new URL(request.url).searchParams, checkoutId, csrfToken: csrf.token, now });
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
  const ctx = await requireRentalContext(context.db, params.unitTypeId, now);
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const basePath = `/rent/${params.unitTypeId}`;
  const intent = String(formData.get("intent") ?? "");
  const checkoutId = await readCheckoutId(request);
  const found = await getCheckout(context.db, checkoutId, params.unitTypeId);
  // A repeated payment submit (double click, back and resubmit) lands on the confirmation; any other
  // step of a completed checkout starts a new rental.
  if ((found?.status === "completed" || found?.status === "confirming") && intent === "pay") throw redirect(`${basePath}/confirmation`, 303);
  const checkout = found && isActiveCheckout(found) ? found : null;

  if (intent === "cancel") {
    if (checkout) {
      await abandonCheckout(context.db, ctx, checkout);
      await releaseHoldCount(context.db, clientIp(context));
    }
    throw redirect(`/locations/${ctx.location.urlSlug}`, { status: 303, headers: { "Set-Cookie": await clearCheckoutCookieHeader() } });
  }

  const block = rentalBlock(ctx, { ignoreAvailability: Boolean(checkout) });
  if (block) return data({ result: null, formError: rentalBlockMessage(block, formatPhone(ctx.location.phoneNumber)), emailTaken: false }, { status: 409 });

  const fail = (result: unknown, status = 400, extra: { formError?: string; emailTaken?: boolean } = {}) =>
    data(
      { result: result as SubmissionResult<string[]> | null, formError: extra.formError ?? null, emailTaken: extra.emailTaken ?? false },
      // An outage (503) says when to try again, like every other outage answer.
      { status, headers: status === 503 ? { "Retry-After": String(RETRY_AFTER_SECONDS), "Cache-Control": NO_STORE } : undefined },
    );

  if (intent === "details") {
    if (isHoneypotFilled(formData)) throw redirect(basePath, 303);
    const schema = detailsSchema({ passwordOptional: Boolean(checkout?.webPwHash) });
    const submission = parseWithZod(formData, { schema });
    if (submission.status !== "success") return fail(submission.reply({ hideFields: HIDDEN_FIELDS }));
    const { web_pw, confirm_web_pw: _confirm, ...details } = submission.value;
    const commonPassword = commonPasswordError(web_pw);
    if (commonPassword) return fail(submission.reply({ hideFields: HIDDEN_FIELDS, fieldErrors: { web_pw: [commonPassword] } }));
    const phone = formatPhone(ctx.location.phoneNumber);
    // The unit first (issue 22, decision 206): in a rush for the last unit, the visitors who lose learn
    // "sold out" from this one write, before any other check or write is made for them. A check below
    // that refuses the visitor lets a new checkout's unit go again at once.
    let hold: DetailsHold;
    try {
      hold = await holdForDetails(context.db, ctx, { existing: checkout, now });
    } catch (error) {
      if (error instanceof UnitUnavailableError) return fail(submission.reply({ hideFields: HIDDEN_FIELDS }), 409, { formError: rentalBlockMessage("sold_out", phone) });
      throw error;
    }
    let id: string;
    try {
      // The form's limit and, for a new checkout, the holds from this address and of this unit type:
      // one statement, counted before the e-mail is looked up, so "this e-mail has an account" can be
      // asked only as often as the form may be saved (decisions 196, 197).
      const limited = await limitDetailsSubmission(context.db, { ip: clientIp(context), now, phone, newHold: !checkout, unitTypeId: params.unitTypeId });
      if (limited) {
        await releaseDetailsHold(ctx, hold);
        return fail(submission.reply({ hideFields: HIDDEN_FIELDS, formErrors: [limited] }), 429, { formError: limited });
      }
      if (await ctx.storage.isEmailRegistered(details.email)) {
        await releaseDetailsHold(ctx, hold);
        if (!checkout) await releaseNewHoldCounts(context.db, clientIp(context), params.unitTypeId);
        return fail(submission.reply({ hideFields: HIDDEN_FIELDS, fieldErrors: { email: [EMAIL_TAKEN_MESSAGE] } }), 400, { emailTaken: true });
      }
      await releaseOtherCheckout(context.db, ctx, checkoutId, params.unitTypeId);
      id = await saveHeldDetails(context.db, ctx, { existing: checkout, hold, details, webPw: web_pw });
    } catch (error) {
      // Nothing half-saved (an outage, say): a new checkout's unit is not left held by nobody.
      await releaseDetailsHold(ctx, hold).catch(() => undefined);
      throw error;
    }
    throw redirect(`${basePath}?step=protection`, { status: 303, headers: { "Set-Cookie": await checkoutCookieHeader(id) } });
  }

  // Every later step needs the visitor's own checkout.
  if (!checkout || !checkoutProgress(checkout).hasDetails) throw redirect(`${basePath}?step=details`, 303);

  try {
    if (intent === "protection") {
      const { plans } = await quoteCheckout(ctx, null);
      const submission = parseWithZod(formData, { schema: protectionSchema(plans.map((p) => p.id), ctx.settings.is_insurance_required, ctx.moveInDates) });
      if (submission.status !== "success") return fail(submission.reply());
      await saveProtection(context.db, ctx, checkout, submission.value.insurance_plan, now, submission.value.move_in_date);
      throw redirect(`${basePath}?step=review`, 303);
    }

    // Without e-sign there is nothing to sign online (decision 203).
    if (intent === "sign" && !ctx.settings.is_sitelink_esign_enabled) throw redirect(`${basePath}?step=pay`, 303);
    if (intent === "sign") {
      const details = checkoutDetails(checkout)!;
      const submission = parseWithZod(formData, { schema: signSchema(`${details.first_name} ${details.last_name}`) });
      if (submission.status !== "success") return fail(submission.reply());
      if (checkout.insuranceChoice == null) throw redirect(`${basePath}?step=protection`, 303);
      const q = await quoteCheckout(ctx, checkout.insuranceChoice, checkout.moveInDate);
      await saveSignature(context.db, ctx, checkout, { signedName: submission.value.signed_name, text: checkoutLeaseText(ctx, details, q), ip: clientIp(context), now });
      throw redirect(`${basePath}?step=pay`, 303);
    }

    if (intent === "pay") {
      const submission = parseWithZod(formData, { schema: paySchema(yearMonth(ctx.today), { forceAutopay: autopayChoice(ctx.settings).required, acceptedCards: ctx.acceptedCards }) });
      if (submission.status !== "success") return fail(submission.reply({ hideFields: HIDDEN_FIELDS }));
      const autopay = autopayChoice(ctx.settings).offered && submission.value.autopay;
      const phone = ctx.location.phoneNumber;
      const attempt = await beginCardAttempt(context.db, { scope: { kind: "rental", checkoutId: checkout.id }, email: checkoutDetails(checkout)!.email, ip: clientIp(context), now });
      if (!attempt.allowed) return fail(submission.reply({ hideFields: HIDDEN_FIELDS, formErrors: [cardLockedMessage(phone)] }), 429, { formError: cardLockedMessage(phone) });
      const payment: PaymentMethodInput = { kind: "card", card: toCardDetails(submission.value) };
      const outcome = await placeMoveIn(context.db, ctx, checkout, { payment, autopay, now, origin: await siteOriginFor(context) }).catch(async (error: unknown) => {
        await cardNotTried(context.db, attempt.ticket);
        // The card could not be taken online (the unit is still free): say so plainly, keep the form.
        if (error instanceof CardNotTakenOnlineError) return { status: "not_taken" as const, message: storageErrorMessage(error, formatPhone(phone)) };
        throw error;
      });
      if (outcome.status === "not_taken") {
        return fail(submission.reply({ hideFields: HIDDEN_FIELDS, formErrors: [outcome.message] }), 409, { formError: outcome.message });
      }
      if (outcome.status === "changed") {
        await cardNotTried(context.db, attempt.ticket);
        throw redirect(`${basePath}?step=review&changed=1`, 303);
      }
      if (outcome.status === "confirming") {
        // Not a decline and not an approval yet: the confirming page settles it (never "declined").
        await cardNotTried(context.db, attempt.ticket);
        throw redirect(`${basePath}/confirmation`, 303);
      }
      if (outcome.status === "declined") {
        const { message } = cardDeclined(attempt.ticket, { where: `rental ${params.unitTypeId}`, reason: outcome.reason, last4: methodLast4(payment), phone });
        return fail(submission.reply({ hideFields: HIDDEN_FIELDS, formErrors: [message] }), 402, { formError: message });
      }
      await cardApproved(context.db, attempt.ticket);
      throw redirect(`${basePath}/confirmation`, 303);
    }
  } catch (error) {
    if (error instanceof UnitUnavailableError) {
      // Taken at the office a moment before the payment, another unit of the size is held instead:
      // the visitor sees it on the pay page with its own total (nothing was charged).
      if (intent === "pay" && error.replacementUnitName) {
        throw redirect(`${basePath}?step=pay&replaced=${encodeURIComponent(error.replacementUnitName)}`, 303);
      }
      if (intent === "pay" && error.message.startsWith("The unit held for you")) return fail(null, 409, { formError: error.message });
      return fail(null, 409, { formError: storageErrorMessage(error, formatPhone(ctx.location.phoneNumber)) });
    }
    if (error instanceof StorageValidationError) {
      return fail(null, 409, { formError: error.message, emailTaken: Boolean(error.fieldErrors.email) });
    }
    // The facility's software unreachable or refusing our credentials: the form stays, nothing was
    // charged or saved, and the visitor is told to try again (never an error page).
    if (error instanceof SoftwareUnreachableError) {
      return fail(null, 503, { formError: storageErrorMessage(error, formatPhone(ctx.location.phoneNumber)) });
    }
    throw error;
  }
  throw data({ message: "Unknown step" }, { status: 400 });
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
type StepView<S extends MoveInStep> = Extract<View, { step: S }>;

export default function Rent({ loaderData, actionData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <div className="container page checkout">
      <p className="eyebrow">
        <Link to={d.locationPath}>{d.locationName}</Link>
      </p>
      <h1>Rent a {d.unit} unit</h1>
      {d.blocked ? (
        <CheckoutBlocked message={d.blocked} phone={d.phone} />
      ) : d.view ? (
        <>
          <CheckoutProgress current={d.view.step} furthest={d.furthest ?? "details"} basePath={d.basePath} steps={d.steps} />
          <div className="checkout__layout">
            <div className="checkout__main">
              <h2 className="checkout__step-title">{STEP_LABELS[d.view.step]}</h2>
              {actionData?.formError && !actionData.result ? (
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
            <CheckoutUnitSummary unit={d.unit} location={d.locationName} monthlyRate={d.monthlyRate} standardRate={d.standardRate} heldUntil={d.heldUntil} />
          </div>
          {d.hasCheckout ? (
            <Form method="post" className="checkout__cancel">
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

function BackLink({ basePath, step, eSign = true }: { basePath: string; step: MoveInStep; eSign?: boolean }) {
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
  const f = fields as unknown as TenantContactFieldsMeta & TenantPasswordFieldsMeta;
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
      <CheckoutCharges lines={view.lines} total={view.total} />
      <p>
        Your rental starts on {view.moveInDate}. Today&apos;s payment covers you through {view.paidThroughDate}. After that,{" "}
        <strong>{formatCents(view.monthlyTotal)}</strong> a month is due from {view.nextDueDate}.
      </p>
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
  const schema = paySchema(view.today, { forceAutopay: view.autopay.required, acceptedCards: view.acceptedCards });
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
      <p className="checkout__due">
        Total due today: <strong data-testid="pay-total">{formatCents(view.total)}</strong>
      </p>
      <CardFields fields={fields as unknown as CardFieldsMeta} today={view.today} accepted={view.acceptedCards} demonstration={view.demonstration} />
      <AutopayField choice={view.autopay} field={fields.autopay} terms={view.autopayTerms} />
      <div className="button-row">
        <BackLink basePath={d.basePath} step="pay" eSign={d.eSign} />
        <SubmitButton pendingText="Processing payment…">Pay {formatCents(view.total)} and rent</SubmitButton>
      </div>
    </Form>
  );
}
