import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/autopay";
import { paymentPageClientLoader } from "~/components/payments/page-guard";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import { routeMeta } from "~/components/ui/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, FieldErrors, FormErrors, SubmitButton } from "~/components/ui/form";
import { authenticationOf, CallOffice, PayElsewhere, payButton, PaymentMethodFields } from "~/components/portal/parts";
import { autopaySchema } from "~/domain/portal/forms";
import { CARD_BRAND_LABELS } from "~/domain/payments/cards";
import { portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { enrolAutopay } from "~/services/portal/payments.server";
import { signedInTenant, tenantUnit } from "~/services/portal/access.server";
import { cardFormAuthentication, cardFormErrors, cardPageData, readCardForm, savedCardRefusal } from "~/services/portal/card-forms.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";
import { hostedPageOnPortalPage, startHostedPageAutopay } from "~/services/portal/hosted-payment.server";
import { PAYMENT_UNAVAILABLE_MESSAGE } from "~/db/unavailable";

export const handle = { enhanceForms: true, paymentPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

/** A payment page: reached from a page that ran operator code, it loads as a new document (decision 075). */
export const clientLoader = ({ request, serverLoader }: Route.ClientLoaderArgs) => paymentPageClientLoader({ request, serverLoader });

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = signedInTenant(context);
  const unit = tenantUnit(context);
  // Back from Stripe Checkout's card page (JavaScript off, decision 400): the card saved and autopay on; or the form's message.
  const checkoutResult = await hostedPageOnPortalPage(request, ctx, unit, "portal_autopay");
  const { page, headers } = await cardPageData(request, ctx, unit);
  return data(
    {
      ...page,
      enabled: unit.settings.is_autopay_enabled && unit.lease.status === "active",
      terms: unit.location.autopayTerms,
      checkoutResult,
    },
    { headers },
  );
}

export const action = keepFormThroughOutage(autopayAction, (form) => ({ result: outageResult(form, PAYMENT_UNAVAILABLE_MESSAGE) }));

async function autopayAction({ request, context }: Route.ActionArgs) {
  const ctx = signedInTenant(context);
  const unit = tenantUnit(context);
  const self = `/customer-portal/units/${unit.lease.leaseId}/autopay`;
  const { formData, accepted } = await readCardForm(request, unit, self);
  if (!unit.settings.is_autopay_enabled) throw redirect(self, 303);
  if (formData.get("intent") === "cancel") {
    await unit.storage.cancelAutopay({ tenantId: ctx.session.tenantId, leaseId: unit.lease.leaseId });
    throw redirect("/customer-portal?done=autopay-off", { status: 303, headers: portalHeaders() });
  }
  const submission = parseWithZod(formData, { schema: autopaySchema(ctx.today, accepted) });
  if (submission.status !== "success") return cardFormErrors(submission);
  const refused = await savedCardRefusal(submission, submission.value.method, ctx, unit, accepted);
  if (refused) return refused;
  const method = submission.value.method;
  if (method.kind === "checkout") {
    // A new card without Stripe's fields (JavaScript off): saved on Stripe Checkout's card page (setup mode, decision 400).
    const started = await startHostedPageAutopay(ctx, unit, { tenantId: ctx.session.tenantId, path: self });
    if ("redirect" in started) throw redirect(started.redirect, { status: 303, headers: portalHeaders() });
    return cardFormErrors(submission, { formErrors: [started.message], fieldErrors: started.fieldErrors });
  }
  const outcome = await enrolAutopay(ctx, unit.storage, {
    tenantId: ctx.session.tenantId,
    leaseId: unit.lease.leaseId,
    method,
    phone: unit.location.phoneNumber,
    ip: context.clientIp,
  });
  if (!outcome.ok) {
    // The bank's check on the page (decision 405): the form comes back with what the script needs.
    if (outcome.authenticate) return cardFormAuthentication(submission, outcome.authenticate);
    return cardFormErrors(submission, { formErrors: [outcome.message], fieldErrors: outcome.fieldErrors });
  }
  throw redirect("/customer-portal?done=autopay-on", { status: 303, headers: portalHeaders() });
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Autopay | Customer Portal", description: "Set up or cancel autopay for your unit.", path: "/customer-portal" });

export default function Autopay({ loaderData, actionData }: Route.ComponentProps) {
  const accepted = loaderData.payment.kind === "cards" ? loaderData.payment.accepted : [];
  const schema = autopaySchema(loaderData.today, accepted);
  const [form, fields] = useForm({
    id: "autopay",
    lastResult: actionData?.result ?? loaderData.checkoutResult,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const { lease } = loaderData;
  const card = lease.autopay.card;
  return (
    <>
      <p>
        <Link to="/customer-portal">← My units</Link>
      </p>
      <h1>Autopay</h1>
      <p className="lead">
        Unit {lease.unitName} at {loaderData.locationName}. Autopay is{" "}
        <strong data-testid="autopay-status">
          {lease.autopay.enabled ? `on${card ? ` (${CARD_BRAND_LABELS[card.brand]} ending ${card.last4})` : ""}` : "off"}
        </strong>
        .
      </p>
      {loaderData.enabled && lease.autopay.enabled ? (
        // Autopay set up with us can always be cancelled here, even where cards are now taken elsewhere.
        <Form method="post" className="stack-form portal-cancel">
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="intent" value="cancel" />
          <p>Cancel autopay to stop the automatic charge on each due date. You will then need to pay each month yourself.</p>
          <SubmitButton pendingText="Cancelling…" className="button button--secondary">
            Cancel autopay
          </SubmitButton>
        </Form>
      ) : null}
      {loaderData.enabled && loaderData.payment.kind !== "cards" ? (
        <PayElsewhere payment={loaderData.payment} phone={loaderData.phone} locationName={loaderData.locationName} />
      ) : !loaderData.enabled ? (
        <CallOffice phone={loaderData.phone}>Autopay cannot be set up online right now. To set up or change autopay,</CallOffice>
      ) : (
        <>
          <h2>{lease.autopay.enabled ? "Change the autopay card" : "Set up autopay"}</h2>
          <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
            <CsrfInput token={loaderData.csrfToken} />
            <input type="hidden" name="intent" value="enrol" />
            {actionData ? <ErrorSummary errors={summaryErrors(form.allErrors, (["payment_method", "card_number", "exp_month", "exp_year", "cvv", "name_on_card", "billing_postal_code", "agree_terms"] as const).map((n) => fields[n]))} /> : null}
          <FormErrors id={form.errorId} errors={form.errors} />
            <PaymentMethodFields fields={fields} savedCards={loaderData.savedCards} today={loaderData.today} accepted={accepted} demonstration={loaderData.payment.kind === "cards" && loaderData.payment.demonstration} hosted={loaderData.payment.kind === "cards" && loaderData.payment.hosted} authenticate={authenticationOf(actionData)} allowSave={false} newCardLegend="Card for autopay" />
            <section className="portal-terms" aria-labelledby="autopay-terms">
              <h3 id="autopay-terms">Autopay terms</h3>
              <p>{loaderData.terms}</p>
            </section>
            <div className="checkbox-field">
              <input
                {...getInputProps(fields.agree_terms, { type: "checkbox" })}
                id="agree_terms"
                aria-describedby={fields.agree_terms.errorId}
                aria-invalid={fields.agree_terms.errors?.length ? true : undefined}
              />
              <label htmlFor="agree_terms">I have read and agree to the autopay terms</label>
            </div>
            <FieldErrors id={fields.agree_terms.errorId} errors={fields.agree_terms.errors} />
            <SubmitButton
              pendingText="Saving…"
              {...payButton(loaderData.payment, loaderData.savedCards.length, lease.autopay.enabled ? "Use this card for autopay" : "Turn on autopay", "Continue to secure card page")}
            />
          </Form>
        </>
      )}
    </>
  );
}
