import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/pay";
import { paymentPageClientLoader } from "~/components/payments/page-guard";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import { routeMeta } from "~/components/ui/route-meta";
import { ErrorSummary, summaryErrors } from "~/components/ui/error-summary";
import { CsrfInput, FormErrors, SubmitButton } from "~/components/ui/form";
import { authenticationOf, CallOffice, PayElsewhere, payButton, PaymentMethodFields } from "~/components/portal/parts";
import { payLinkSchema } from "~/domain/portal/forms";
import { formatCents } from "~/domain/shared/money";
import { formatDate } from "~/domain/shared/calendar";
import { newIdempotencyKey, portalContext, portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { cardFormAuthentication, cardFormErrors } from "~/services/portal/card-forms.server";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";
import { notFound } from "~/services/web/responses.server";
import {
  lookUpPayLink,
  paidCookieHeader,
  paidHere,
  PAY_LINK_AMOUNT_CHANGED,
  PAY_LINK_EXPIRED_MESSAGE,
  PAY_LINK_USED_MESSAGE,
  payLinkCardPayment,
  payLinkPath,
  payLinkPostLimited,
  payLinkReceipt,
  payLinkUnit,
  payThroughLink,
} from "~/services/payments/pay-links.server";
import { PAYMENT_UNAVAILABLE_MESSAGE } from "~/db/unavailable";
import { HOSTED_PAGE_CANCELLED, expireCancelledHostedPages, formMessage, returnFromHostedPage, startHostedPagePayment } from "~/services/portal/hosted-payment.server";

/**
 * "Pay without a password" (decision 240): `/pay/{signed token}` shows only the location, the unit and
 * the amount due, and takes the payment with the portal's card form and payment service. A used or
 * expired link says so and points to sign-in; an unknown or tampered one is not found.
 */
export const handle = { enhanceForms: true, paymentPage: true } satisfies PaymentPageHandle & { enhanceForms: boolean };

/** A payment page: reached from a page that ran operator code, it loads as a new document (decision 075). */
export const clientLoader = ({ request, serverLoader }: Route.ClientLoaderArgs) => paymentPageClientLoader({ request, serverLoader });

const SIGN_IN = "/customer-portal/login";

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const ctx = await portalContext(context);
  let found = await lookUpPayLink(ctx.db, params.token, ctx.now);
  if (found.status === "unknown") throw notFound(portalHeaders());
  // Back from Stripe Checkout (JavaScript off, decision 400): recorded, then the confirmation; or the form's message.
  const url = new URL(request.url);
  const cancelled = url.searchParams.get("checkout") === "cancelled";
  // A cancel expires the hosted page at once; one paid meanwhile is taken as its return (decision 442).
  const cancelledUnit = cancelled ? await payLinkUnit(ctx, found.link) : null;
  const paidMeanwhile = cancelledUnit ? await expireCancelledHostedPages(ctx.db, cancelledUnit.location, { key: url.searchParams.get("payment"), tenantId: String(found.link.tenantId), now: ctx.now }) : null;
  const sessionId = url.searchParams.get("checkout_session") ?? paidMeanwhile;
  let notice: string | null = cancelled && !paidMeanwhile && found.status === "valid" ? HOSTED_PAGE_CANCELLED : null;
  if (sessionId) {
    const returned = await payLinkUnit(ctx, found.link);
    if (returned) {
      const back = await returnFromHostedPage(ctx, returned, { flow: "pay_link", sessionId, key: url.searchParams.get("payment"), tenantId: String(found.link.tenantId), linkId: found.link.id });
      if (back.kind === "receipt") throw redirect(payLinkPath(params.token), { headers: portalHeaders(await paidCookieHeader(found.link.id)) });
      notice = back.kind === "message" ? back.message : null;
      found = await lookUpPayLink(ctx.db, params.token, ctx.now);
      if (found.status === "unknown") throw notFound(portalHeaders());
    }
  }
  if (found.status === "used") {
    const receipt = (await paidHere(request, found.link.id)) ? await payLinkReceipt(ctx, found.link) : null;
    if (receipt) return data({ state: "paid" as const, receipt }, { headers: portalHeaders() });
    return data({ state: "used" as const, message: notice ?? PAY_LINK_USED_MESSAGE }, { status: 410, headers: portalHeaders() });
  }
  if (found.status === "expired") return data({ state: "expired" as const, message: notice ?? PAY_LINK_EXPIRED_MESSAGE }, { status: 410, headers: portalHeaders() });
  const unit = await payLinkUnit(ctx, found.link);
  if (!unit) throw notFound(portalHeaders());
  const [payment, csrf] = await Promise.all([payLinkCardPayment(unit), getCsrfToken(request)]);
  return data(
    {
      state: "valid" as const,
      locationName: unit.location.name,
      unitName: unit.lease.unitName,
      due: Math.max(0, unit.lease.balance),
      phone: unit.location.phoneNumber,
      enabled: unit.settings.is_payments_enabled && unit.lease.status === "active",
      payment,
      today: ctx.today,
      csrfToken: csrf.token,
      idempotencyKey: newIdempotencyKey(),
      // Only with a message (the page shows nothing else of the account).
      ...(notice ? { checkoutResult: formMessage(notice) } : {}),
    },
    { headers: portalHeaders(csrf.setCookie) },
  );
}

export const action = keepFormThroughOutage(payAction, (form) => ({ result: outageResult(form, PAYMENT_UNAVAILABLE_MESSAGE) }));

async function payAction({ request, context, params }: Route.ActionArgs) {
  const ctx = await portalContext(context);
  const self = payLinkPath(params.token);
  const found = await lookUpPayLink(ctx.db, params.token, ctx.now);
  if (found.status === "unknown") throw notFound(portalHeaders());
  const formData = await request.formData();
  await validateCsrf(request, formData);
  // Used or expired meanwhile: the page says so.
  if (found.status !== "valid") throw redirect(self, { status: 303, headers: portalHeaders() });
  const unit = await payLinkUnit(ctx, found.link);
  if (!unit) throw notFound(portalHeaders());
  const payment = await payLinkCardPayment(unit);
  // Where this location takes no card here (or payments are off), the page says where to pay.
  if (payment.kind !== "cards" || !unit.settings.is_payments_enabled || unit.lease.status !== "active") throw redirect(self, { status: 303, headers: portalHeaders() });
  const submission = parseWithZod(formData, { schema: payLinkSchema(ctx.today, payment.accepted) });
  const limited = await payLinkPostLimited(ctx.db, context.clientIp, ctx.now);
  if (limited) return cardFormErrors(submission, { formErrors: [limited] });
  if (submission.status !== "success") return cardFormErrors(submission);
  const method = submission.value.method;
  if (method.kind === "checkout") {
    // A new card without Stripe's fields (JavaScript off): on to Stripe Checkout for the balance due (decision 400).
    const due = Math.max(0, unit.lease.balance);
    if (due <= 0) return cardFormErrors(submission, { formErrors: ["There is nothing to pay: the balance due is $0.00."] });
    if (due !== submission.value.expectedAmount) return cardFormErrors(submission, { formErrors: [PAY_LINK_AMOUNT_CHANGED] });
    const started = await startHostedPagePayment(ctx, unit, {
      flow: "pay_link",
      tenantId: String(found.link.tenantId),
      amount: due,
      idempotencyKey: submission.value.idempotencyKey,
      saveCard: false,
      path: self,
      kept: {},
      tags: { gatehouse_link: String(found.link.id) },
    });
    if ("redirect" in started) throw redirect(started.redirect, { status: 303, headers: portalHeaders() });
    return cardFormErrors(submission, { formErrors: [started.message] });
  }
  const outcome = await payThroughLink(ctx, { signed: params.token, ...submission.value, method, ip: context.clientIp });
  if (outcome.ok) throw redirect(self, { status: 303, headers: portalHeaders(await paidCookieHeader(outcome.linkId)) });
  if (outcome.status !== "refused") throw redirect(self, { status: 303, headers: portalHeaders() });
  // The bank's check on the page (decision 405): the form comes back with what the script needs.
  if (outcome.authenticate) return cardFormAuthentication(submission, outcome.authenticate);
  return cardFormErrors(submission, { formErrors: [outcome.message], fieldErrors: outcome.fieldErrors });
}

export const headers: Route.HeadersFunction = (args) => {
  const h = portalRouteHeaders(args);
  h.set("X-Robots-Tag", "noindex");
  return h;
};

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Pay your storage bill", description: "Pay your storage bill by card.", path: "/customer-portal/login", noindex: true });

export default function PayLink({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.state === "paid") {
    const { receipt } = loaderData;
    return (
      <>
        <div className="alert alert--success" role="status">
          <h1>Thank you, your payment was received.</h1>
          <p>This link has now been used. A receipt was sent to the e-mail address the office has for you.</p>
        </div>
        <dl className="portal-facts portal-receipt">
          <div>
            <dt>Location</dt>
            <dd>{receipt.locationName}</dd>
          </div>
          <div>
            <dt>Unit</dt>
            <dd>{receipt.unitName}</dd>
          </div>
          <div>
            <dt>Amount paid</dt>
            <dd data-testid="receipt-amount">{formatCents(receipt.amount)}</dd>
          </div>
          <div>
            <dt>Date</dt>
            <dd>{receipt.date ? formatDate(receipt.date) : ""}</dd>
          </div>
          <div>
            <dt>Receipt number</dt>
            <dd data-testid="receipt-number">{receipt.receiptNumber}</dd>
          </div>
        </dl>
        <p>
          <Link to={SIGN_IN}>Sign in to the customer portal</Link> to see your account.
        </p>
      </>
    );
  }
  if (loaderData.state === "used" || loaderData.state === "expired") {
    return (
      <>
        <h1>{loaderData.state === "used" ? "This link has already been used" : "This link has expired"}</h1>
        <p data-testid="pay-link-state">{loaderData.message}</p>
        <p>
          <Link to={SIGN_IN}>Sign in to the customer portal</Link>
        </p>
      </>
    );
  }
  return <PayForm page={loaderData} result={actionData?.result ?? loaderData.checkoutResult ?? undefined} authenticate={authenticationOf(actionData)} />;
}

type ValidPage = Extract<Route.ComponentProps["loaderData"], { state: "valid" }>;

function PayForm({
  page,
  result,
  authenticate,
}: {
  page: ValidPage;
  result: Route.ComponentProps["actionData"] extends infer A ? (A extends { result: infer R } ? R : undefined) : undefined;
  authenticate: ReturnType<typeof authenticationOf>;
}) {
  const accepted = page.payment.kind === "cards" ? page.payment.accepted : [];
  const schema = payLinkSchema(page.today, accepted);
  const [form, fields] = useForm({
    id: "pay-link",
    lastResult: result,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
  return (
    <>
      <h1>Pay your storage bill</h1>
      <p className="lead">
        Unit <span data-testid="pay-link-unit">{page.unitName}</span> at <span data-testid="pay-link-location">{page.locationName}</span>. Amount due:{" "}
        <strong data-testid="balance-due">{formatCents(page.due)}</strong>.
      </p>
      {page.enabled && page.payment.kind !== "cards" ? (
        <PayElsewhere payment={page.payment} phone={page.phone} locationName={page.locationName} />
      ) : !page.enabled ? (
        <CallOffice phone={page.phone}>Online payments are not available right now. To pay your bill,</CallOffice>
      ) : page.due <= 0 ? (
        <p role="status">There is nothing to pay: the balance due is {formatCents(0)}.</p>
      ) : (
        <Form method="post" {...getFormProps(form)} noValidate className="stack-form">
          <CsrfInput token={page.csrfToken} />
          <input type="hidden" name="idempotency_key" value={page.idempotencyKey} />
          <input type="hidden" name="expected_amount" value={page.due} />
          {result ? <ErrorSummary errors={summaryErrors(form.allErrors, (["card_number", "exp_month", "exp_year", "cvv", "name_on_card", "billing_postal_code"] as const).map((n) => fields[n]))} /> : null}
          <FormErrors id={form.errorId} errors={form.errors} />
          <PaymentMethodFields fields={fields} savedCards={[]} today={page.today} allowSave={false} newCardLegend="Card" accepted={accepted} demonstration={page.payment.kind === "cards" && page.payment.demonstration} hosted={page.payment.kind === "cards" && page.payment.hosted} authenticate={authenticate} />
          <SubmitButton pendingText="Paying…" {...payButton(page.payment, 0, `Pay ${formatCents(page.due)}`)} />
        </Form>
      )}
      <p>
        Have a sign-in? <Link to={SIGN_IN}>Sign in to the customer portal</Link> instead.
      </p>
    </>
  );
}
