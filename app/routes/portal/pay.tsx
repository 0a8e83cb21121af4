import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/pay";
import { paymentPageClientLoader } from "~/components/payments/page-guard";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import { routeMeta } from "~/components/ui/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/ui/form";
import { authenticationOf, CallOffice, PayElsewhere, payButton, PaymentMethodFields } from "~/components/portal/parts";
import { paySchema } from "~/domain/portal/forms";
import { formatCents } from "~/domain/shared/money";
import { formatDate } from "~/domain/shared/calendar";
import { newIdempotencyKey, portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { payLease } from "~/services/portal/payments.server";
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
  // Back from Stripe Checkout (JavaScript off, decision 400): recorded, then the receipt; or the form's message.
  const checkoutResult = await hostedPageOnPortalPage(request, ctx, unit, "portal_pay");
  const { page, headers } = await cardPageData(request, ctx, unit);
  return data(
    {
      ...page,
      enabled: unit.settings.is_payments_enabled && unit.lease.status === "active",
      idempotencyKey: newIdempotencyKey(),
      checkoutResult,
    },
    { headers },
  );
}

export const action = keepFormThroughOutage(payAction, (form) => ({ result: outageResult(form, PAYMENT_UNAVAILABLE_MESSAGE) }));

async function payAction({ request, context }: Route.ActionArgs) {
  const ctx = signedInTenant(context);
  const unit = tenantUnit(context);
  const { formData, accepted } = await readCardForm(request, unit, `/customer-portal/units/${unit.lease.leaseId}/pay`);
  if (!unit.settings.is_payments_enabled) throw redirect(`/customer-portal/units/${unit.lease.leaseId}/pay`, 303);
  const submission = parseWithZod(formData, { schema: paySchema(ctx.today, accepted) });
  if (submission.status !== "success") return cardFormErrors(submission);
  const refused = await savedCardRefusal(submission, submission.value.method, ctx, unit, accepted);
  if (refused) return refused;
  const amount = submission.value.otherAmount ?? unit.lease.balance;
  if (amount <= 0) {
    return cardFormErrors(submission, { formErrors: ["There is no balance due. To pay ahead, choose another amount or pay months ahead."] });
  }
  const method = submission.value.method;
  if (method.kind === "checkout") {
    // A new card without Stripe's fields (JavaScript off): on to Stripe Checkout for this amount (decision 400).
    const started = await startHostedPagePayment(ctx, unit, {
      flow: "portal_pay",
      tenantId: ctx.session.tenantId,
      amount,
      idempotencyKey: submission.value.idempotencyKey,
      saveCard: method.saveCard,
      path: `/customer-portal/units/${unit.lease.leaseId}/pay`,
      kept: keptValues(formData, ["amount_choice", "other_amount", "save_card"]),
      tags: { gatehouse_choice: submission.value.otherAmount === null ? "balance" : "other" },
    });
    if ("redirect" in started) throw redirect(started.redirect, { status: 303, headers: portalHeaders() });
    return cardFormErrors(submission, { formErrors: [started.message], fieldErrors: started.fieldErrors });
  }
  const outcome = await payLease(ctx, unit.storage, {
    tenantId: ctx.session.tenantId,
    leaseId: unit.lease.leaseId,
    amount,
    method,
    idempotencyKey: submission.value.idempotencyKey,
    origin: ctx.origin,
    phone: unit.location.phoneNumber,
    ip: context.clientIp,
    prepayMonths: unit.settings.is_prepayments_enabled ? unit.settings.portal_prepay_months : 0,
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
  routeMeta(matches, { title: "Pay my bill | Customer Portal", description: "Pay your storage bill by card.", path: "/customer-portal" });

export default function Pay({ loaderData, actionData }: Route.ComponentProps) {
  const accepted = loaderData.payment.kind === "cards" ? loaderData.payment.accepted : [];
  const schema = paySchema(loaderData.today, accepted);
  const [form, fields] = useForm({
    id: "pay",
    lastResult: actionData?.result ?? loaderData.checkoutResult,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const { lease } = loaderData;
  const due = Math.max(0, lease.balance);
  const choice = typeof fields.amount_choice.initialValue === "string" ? fields.amount_choice.initialValue : due > 0 ? "balance" : "other";
  return (
    <>
      <p>
        <Link to="/customer-portal">← My units</Link>
      </p>
      <h1>Pay my bill</h1>
      <p className="lead">
        Unit {lease.unitName} at {loaderData.locationName}. Balance due: <strong data-testid="balance-due">{formatCents(due)}</strong>
        {lease.balance < 0 ? ` (you have a credit of ${formatCents(-lease.balance)})` : ""}. Paid through {formatDate(lease.paidThroughDate)}.
      </p>
      {loaderData.enabled && loaderData.payment.kind !== "cards" ? (
        <PayElsewhere payment={loaderData.payment} phone={loaderData.phone} locationName={loaderData.locationName} />
      ) : !loaderData.enabled ? (
        <CallOffice phone={loaderData.phone}>Online payments are not available right now. To pay your bill,</CallOffice>
      ) : (
        <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
          <CsrfInput token={loaderData.csrfToken} />
          <input type="hidden" name="idempotency_key" value={loaderData.idempotencyKey} />
          {actionData ? <ErrorSummary errors={summaryErrors(form.allErrors, (["amount_choice", "other_amount", "payment_method", "card_number", "exp_month", "exp_year", "cvv", "name_on_card", "billing_postal_code"] as const).map((n) => fields[n]))} /> : null}
          <FormErrors id={form.errorId} errors={form.errors} />
          <fieldset aria-describedby={fields.amount_choice.errorId}>
            <legend>Amount</legend>
            <div className="checkbox-field">
              <input type="radio" id="amount-balance" name={fields.amount_choice.name} value="balance" defaultChecked={choice === "balance"} disabled={due === 0} />
              <label htmlFor="amount-balance">The balance due: {formatCents(due)}</label>
            </div>
            <div className="checkbox-field">
              <input type="radio" id="amount-other" name={fields.amount_choice.name} value="other" defaultChecked={choice === "other"} />
              <label htmlFor="amount-other">Another amount</label>
            </div>
            <Field label="Other amount in dollars" meta={fields.other_amount} hint="For example 25.00. Only used when you choose another amount.">
              {(p) => <input {...getInputProps(fields.other_amount, { type: "text" })} {...p} inputMode="decimal" className="input--short" />}
            </Field>
          </fieldset>
          <PaymentMethodFields fields={fields} savedCards={loaderData.savedCards} today={loaderData.today} accepted={accepted} demonstration={loaderData.payment.kind === "cards" && loaderData.payment.demonstration} hosted={loaderData.payment.kind === "cards" && loaderData.payment.hosted} authenticate={authenticationOf(actionData)} />
          <SubmitButton pendingText="Paying…" {...payButton(loaderData.payment, loaderData.savedCards.length, "Pay now")} />
        </Form>
      )}
    </>
  );
}
