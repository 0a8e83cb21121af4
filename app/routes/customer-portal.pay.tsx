import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect } from "react-router";
import type { Route } from "./+types/customer-portal.pay";
import { paymentPageClientLoader } from "~/components/payment-page-guard";
import { routeMeta } from "~/components/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/checkout-error-summary";
import { CsrfInput, Field, FormErrors, SubmitButton } from "~/components/form";
import { CallOffice, PayElsewhere, PaymentMethodFields, PortalNav } from "~/components/portal";
import { paySchema, savedCardProblem } from "~/domain/portal-forms";
import { formatCents } from "~/domain/money";
import { formatDate } from "~/domain/billing";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { newIdempotencyKey, portalHeaders, portalRouteHeaders, portalCardPayment, requirePortalTenant, requirePortalUnit, usableSavedCards } from "~/services/portal.server";
import { payLease } from "~/services/portal-payments.server";
import portalCss from "~/styles/portal.css?url";
import { keepFormThroughOutage, outageResult } from "~/services/form-outage.server";
import { PAYMENT_UNAVAILABLE_MESSAGE } from "~/db/unavailable";

export const handle = { enhanceForms: true };

/** A payment page: reached from a page that ran operator code, it loads as a new document (decision 075). */
export const clientLoader = ({ request, serverLoader }: Route.ClientLoaderArgs) => paymentPageClientLoader({ request, serverLoader });
export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: portalCss }];

const HIDE = ["card_number", "cvv"];

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const ctx = await requirePortalTenant(context, request);
  const unit = await requirePortalUnit(ctx, ctx.session.tenantId, params.leaseId);
  const payment = portalCardPayment(unit.location);
  const [tenant, savedCards, csrf] = await Promise.all([ctx.storage.getTenant(ctx.session.tenantId), unit.storage.listSavedCards(ctx.session.tenantId), getCsrfToken(request)]);
  return data(
    {
      name: tenant ? `${tenant.firstName} ${tenant.lastName}` : "",
      csrfToken: csrf.token,
      enabled: ctx.settings.is_payments_enabled && unit.lease.status === "active",
      phone: unit.location.phoneNumber,
      locationName: unit.location.name,
      lease: unit.lease,
      savedCards: usableSavedCards(savedCards, payment),
      payment,
      today: ctx.today,
      idempotencyKey: newIdempotencyKey(),
    },
    { headers: portalHeaders(csrf.setCookie) },
  );
}

export const action = keepFormThroughOutage(payAction, (form) => ({ result: outageResult(form, PAYMENT_UNAVAILABLE_MESSAGE) }));

async function payAction({ request, context, params }: Route.ActionArgs) {
  const ctx = await requirePortalTenant(context, request);
  const unit = await requirePortalUnit(ctx, ctx.session.tenantId, params.leaseId);
  const formData = await request.formData();
  await validateCsrf(request, formData);
  // No card payment here for this location (external payment site, or no payment types): the page says where to pay.
  const payment = portalCardPayment(unit.location);
  if (payment.kind !== "cards" && formData.get("intent") !== "cancel") throw redirect(`/customer-portal/units/${unit.lease.leaseId}/pay`, 303);
  const accepted = payment.kind === "cards" ? payment.accepted : [];
  if (!ctx.settings.is_payments_enabled) throw redirect(`/customer-portal/units/${unit.lease.leaseId}/pay`, 303);
  const submission = parseWithZod(formData, { schema: paySchema(ctx.today, accepted) });
  if (submission.status !== "success") return data({ result: submission.reply({ hideFields: HIDE }) }, { status: 400, headers: portalHeaders() });
  const savedProblem = savedCardProblem(submission.value.method, await unit.storage.listSavedCards(ctx.session.tenantId), accepted);
  if (savedProblem) return data({ result: submission.reply({ fieldErrors: { payment_method: [savedProblem] }, hideFields: HIDE }) }, { status: 400, headers: portalHeaders() });
  const amount = submission.value.otherAmount ?? unit.lease.balance;
  if (amount <= 0) {
    return data({ result: submission.reply({ formErrors: ["There is no balance due. To pay ahead, choose another amount or pay months ahead."], hideFields: HIDE }) }, { status: 400, headers: portalHeaders() });
  }
  const outcome = await payLease(ctx, unit.storage, {
    tenantId: ctx.session.tenantId,
    leaseId: unit.lease.leaseId,
    amount,
    method: submission.value.method,
    idempotencyKey: submission.value.idempotencyKey,
    origin: ctx.origin,
    phone: unit.location.phoneNumber,
    ip: context.clientIp,
    prepayMonths: ctx.settings.is_prepayments_enabled ? ctx.settings.portal_prepay_months : 0,
  });
  if (!outcome.ok) {
    return data({ result: submission.reply({ formErrors: [outcome.message], fieldErrors: outcome.fieldErrors, hideFields: HIDE }) }, { status: 400, headers: portalHeaders() });
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
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  const { lease } = loaderData;
  const due = Math.max(0, lease.balance);
  const choice = typeof fields.amount_choice.initialValue === "string" ? fields.amount_choice.initialValue : due > 0 ? "balance" : "other";
  return (
    <div className="container page page--narrow portal">
      <PortalNav name={loaderData.name} csrfToken={loaderData.csrfToken} current="other" />
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
          <PaymentMethodFields fields={fields} savedCards={loaderData.savedCards} today={loaderData.today} accepted={accepted} />
          <SubmitButton pendingText="Paying…">Pay now</SubmitButton>
        </Form>
      )}
    </div>
  );
}
