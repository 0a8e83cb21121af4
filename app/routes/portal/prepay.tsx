import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/prepay";
import { paymentPageClientLoader } from "~/components/payments/page-guard";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import { routeMeta } from "~/components/ui/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, FieldErrors, FormErrors, SubmitButton } from "~/components/ui/form";
import { authenticationOf, CallOffice, PayElsewhere, payButton, PaymentMethodFields } from "~/components/portal/parts";
import { prepaySchema } from "~/domain/portal/forms";
import { formatCents } from "~/domain/shared/money";
import { formatDate } from "~/domain/shared/calendar";
import { newIdempotencyKey, portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { prepayLease } from "~/services/portal/payments.server";
import type { PrepayOffer } from "~/storage-software/port";
import { signedInTenant, tenantUnit } from "~/services/portal/access.server";
import { cardFormAuthentication, cardFormErrors, cardPageData, readCardForm, savedCardRefusal } from "~/services/portal/card-forms.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";
import { hostedPageOnPortalPage, keptValues, startHostedPagePayment } from "~/services/portal/hosted-payment.server";
import { PAYMENT_UNAVAILABLE_MESSAGE } from "~/db/unavailable";

export const handle = { enhanceForms: true, paymentPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

/** A payment page: reached from a page that ran operator code, it loads as a new document (decision 075). */
export const clientLoader = ({ request, serverLoader }: Route.ClientLoaderArgs) => paymentPageClientLoader({ request, serverLoader });

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = signedInTenant(context);
  const unit = tenantUnit(context);
  const max = unit.settings.portal_prepay_months;
  const enabled = unit.settings.is_prepayments_enabled && unit.settings.is_payments_enabled && max > 0 && unit.lease.status === "active";
  // Back from Stripe Checkout (JavaScript off, decision 400): recorded, then the receipt; or the form's message.
  const checkoutResult = await hostedPageOnPortalPage(request, ctx, unit, "portal_prepay");
  const offers: PrepayOffer[] = [];
  if (enabled) for (let m = 1; m <= max; m++) offers.push((await unit.storage.quotePrepay(ctx.session.tenantId, unit.lease.leaseId, m))!);
  const { page, headers } = await cardPageData(request, ctx, unit);
  return data(
    {
      ...page,
      enabled,
      maxMonths: max,
      offers: offers.filter((o) => o.total > 0),
      idempotencyKey: newIdempotencyKey(),
      checkoutResult,
    },
    { headers },
  );
}

export const action = keepFormThroughOutage(prepayAction, (form) => ({ result: outageResult(form, PAYMENT_UNAVAILABLE_MESSAGE) }));

async function prepayAction({ request, context }: Route.ActionArgs) {
  const ctx = signedInTenant(context);
  const unit = tenantUnit(context);
  const { formData, accepted } = await readCardForm(request, unit, `/customer-portal/units/${unit.lease.leaseId}/prepay`);
  if (!unit.settings.is_prepayments_enabled || !unit.settings.is_payments_enabled) throw redirect(`/customer-portal/units/${unit.lease.leaseId}/prepay`, 303);
  const submission = parseWithZod(formData, { schema: prepaySchema(ctx.today, unit.settings.portal_prepay_months, accepted) });
  if (submission.status !== "success") return cardFormErrors(submission);
  const refused = await savedCardRefusal(submission, submission.value.method, ctx, unit, accepted);
  if (refused) return refused;
  const expected = Number(formData.get(`expected_total_${submission.value.months}`));
  const method = submission.value.method;
  if (method.kind === "checkout") {
    // A new card without Stripe's fields (JavaScript off): on to Stripe Checkout for the months' total (decision 400).
    const offer = await unit.storage.quotePrepay(ctx.session.tenantId, unit.lease.leaseId, submission.value.months);
    if (!offer || offer.total !== expected) return cardFormErrors(submission, { formErrors: ["The amount changed since you opened this page. Please check the new amount and try again."] });
    if (offer.total <= 0) return cardFormErrors(submission, { formErrors: ["Your credit already covers these months: there is nothing to pay."] });
    const started = await startHostedPagePayment(ctx, unit, {
      flow: "portal_prepay",
      tenantId: ctx.session.tenantId,
      amount: offer.total,
      idempotencyKey: submission.value.idempotencyKey,
      saveCard: method.saveCard,
      path: `/customer-portal/units/${unit.lease.leaseId}/prepay`,
      kept: keptValues(formData, ["months", "save_card"]),
      tags: { gatehouse_months: String(submission.value.months) },
    });
    if ("redirect" in started) throw redirect(started.redirect, { status: 303, headers: portalHeaders() });
    return cardFormErrors(submission, { formErrors: [started.message], fieldErrors: started.fieldErrors });
  }
  const outcome = await prepayLease(ctx, unit.storage, {
    tenantId: ctx.session.tenantId,
    leaseId: unit.lease.leaseId,
    months: submission.value.months,
    expectedTotal: Number.isInteger(expected) ? expected : -1,
    method,
    idempotencyKey: submission.value.idempotencyKey,
    origin: ctx.origin,
    phone: unit.location.phoneNumber,
    ip: context.clientIp,
  });
  if (!outcome.ok) {
    // The bank's check on the page (decision 405): the form comes back with what the script needs.
    if (outcome.authenticate) return cardFormAuthentication(submission, outcome.authenticate);
    return cardFormErrors(submission, { formErrors: [outcome.message], fieldErrors: outcome.fieldErrors });
  }
  throw redirect(`/customer-portal/receipts/${outcome.paymentId}?new=1`, { status: 303, headers: portalHeaders() });
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Pay months ahead | Customer Portal", description: "Pay your storage months ahead.", path: "/customer-portal" });

export default function Prepay({ loaderData, actionData }: Route.ComponentProps) {
  const accepted = loaderData.payment.kind === "cards" ? loaderData.payment.accepted : [];
  const schema = prepaySchema(loaderData.today, loaderData.maxMonths || 1, accepted);
  const [form, fields] = useForm({
    id: "prepay",
    lastResult: actionData?.result ?? loaderData.checkoutResult,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const { lease } = loaderData;
  const chosen = typeof fields.months.initialValue === "string" ? fields.months.initialValue : String(loaderData.offers[0]?.months ?? "");
  return (
    <>
      <p>
        <Link to="/customer-portal">← My units</Link>
      </p>
      <h1>Pay months ahead</h1>
      <p className="lead">
        Unit {lease.unitName} at {loaderData.locationName}. Paid through {formatDate(lease.paidThroughDate)}.
      </p>
      {loaderData.enabled && loaderData.payment.kind !== "cards" ? (
        <PayElsewhere payment={loaderData.payment} phone={loaderData.phone} locationName={loaderData.locationName} />
      ) : !loaderData.enabled ? (
        <CallOffice phone={loaderData.phone}>Paying ahead is not available online right now. To pay months ahead,</CallOffice>
      ) : loaderData.offers.length === 0 ? (
        <CallOffice phone={loaderData.phone}>Your credit already covers the next months. To pay further ahead,</CallOffice>
      ) : (
        <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="idempotency_key" value={loaderData.idempotencyKey} />
          {actionData ? <ErrorSummary errors={summaryErrors(form.allErrors, (["months", "payment_method", "card_number", "exp_month", "exp_year", "cvv", "name_on_card", "billing_postal_code"] as const).map((n) => fields[n]))} /> : null}
          <FormErrors id={form.errorId} errors={form.errors} />
          <fieldset className="portal-prepay" aria-describedby={fields.months.errorId}>
            <legend>How many months?</legend>
            {lease.balance > 0 ? <p className="field__hint">Each amount includes your balance due of {formatCents(lease.balance)}.</p> : null}
            {loaderData.offers.map((o) => (
              <div key={o.months} className="portal-prepay__option">
                <input type="hidden" name={`expected_total_${o.months}`} value={o.total} />
                <div className="checkbox-field">
                  <input type="radio" id={`months-${o.months}`} name={fields.months.name} value={String(o.months)} defaultChecked={chosen === String(o.months)} />
                  <label htmlFor={`months-${o.months}`}>
                    <strong>
                      {o.months} month{o.months === 1 ? "" : "s"}: {formatCents(o.total)}
                    </strong>{" "}
                    — paid through {formatDate(o.newPaidThroughDate)}
                  </label>
                </div>
                <details>
                  <summary>What this pays for</summary>
                  <ul className="portal-lines">
                    {o.balance !== 0 ? <li>{o.balance > 0 ? `Balance due now: ${formatCents(o.balance)}` : `Your credit: −${formatCents(-o.balance)}`}</li> : null}
                    {o.lines.map((l) => (
                      <li key={l.description}>
                        {l.description}: {formatCents(l.amount)}
                        {l.tax ? ` + tax ${formatCents(l.tax)}` : ""}
                      </li>
                    ))}
                  </ul>
                </details>
              </div>
            ))}
            <FieldErrors id={fields.months.errorId} errors={fields.months.errors} />
          </fieldset>
          <PaymentMethodFields fields={fields} savedCards={loaderData.savedCards} today={loaderData.today} accepted={accepted} demonstration={loaderData.payment.kind === "cards" && loaderData.payment.demonstration} hosted={loaderData.payment.kind === "cards" && loaderData.payment.hosted} authenticate={authenticationOf(actionData)} />
          <SubmitButton pendingText="Paying…" {...payButton(loaderData.payment, loaderData.savedCards.length, "Pay ahead now")} />
        </Form>
      )}
    </>
  );
}
