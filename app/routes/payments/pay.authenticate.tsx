import { data, Form, redirect, useRouteLoaderData } from "react-router";
import type { Route } from "./+types/pay.authenticate";
import { useNonce } from "~/components/ui/nonce";
import { paymentPageClientLoader } from "~/components/payments/page-guard";
import type { PaymentPageHandle } from "~/domain/payments/pages";
import stripeBankCheckScript from "~/components/payments/stripe-bank-check.js?raw";
import { Link } from "~/components/ui/link";
import { routeMeta } from "~/components/ui/route-meta";
import { CsrfInput, SubmitButton } from "~/components/ui/form";
import { formatCents } from "~/domain/shared/money";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { notFound } from "~/services/web/responses.server";
import { portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { authenticationInPage, authenticationPage, startAuthentication } from "~/services/payments/authentication.server";
import { siteOriginFor } from "~/services/site/origin.server";
import { now } from "~/platform/clock.server";

/**
 * A payment the tenant's bank wants confirmed (3-D Secure), from the e-mailed link (decision 395):
 * the location, the unit and the amount, and a button on to the bank's page (the processor's
 * authentication page, JavaScript or not), which sends the tenant back here; the payment is then
 * checked with the processor and recorded once.
 */
const SIGN_IN = "/customer-portal/login";

/**
 * With JavaScript on (decision 405) the check runs on this page: Stripe.js with the PaymentIntent's
 * client secret (in the form's data, read by the page's script; the page is no-store). That makes it a
 * payment page (decision 190): no operator code, the strict CSP with Stripe's hosts.
 */
export const handle = { paymentPage: true } satisfies PaymentPageHandle;

/** A payment page: reached from a page that ran operator code, it loads as a new document (decision 075). */
export const clientLoader = ({ request, serverLoader }: Route.ClientLoaderArgs) => paymentPageClientLoader({ request, serverLoader });

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const returned = new URL(request.url).searchParams.has("payment_intent");
  const at = now();
  const page = await authenticationPage(context.db, { signed: params.token, returned, now: at });
  if (page.state === "unknown") throw notFound(portalHeaders());
  const csrf = await getCsrfToken(request);
  const inPage = page.state === "open" ? await authenticationInPage(context.db, { signed: params.token, now: at }) : null;
  return data({ page, csrfToken: csrf.token, inPage }, { status: page.state === "expired" ? 410 : 200, headers: portalHeaders(csrf.setCookie) });
}

export async function action({ request, context, params }: Route.ActionArgs) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const started = await startAuthentication(context.db, { signed: params.token, origin: await siteOriginFor(context), ip: context.clientIp, now: now() });
  if (started.kind === "unknown") throw notFound(portalHeaders());
  if (started.kind === "redirect") throw redirect(started.url, { status: 303, headers: portalHeaders() });
  return data({ message: started.message }, { headers: portalHeaders() });
}

export const headers: Route.HeadersFunction = (args) => {
  const h = portalRouteHeaders(args);
  h.set("X-Robots-Tag", "noindex");
  return h;
};

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Confirm your payment", description: "Confirm your storage payment with your bank.", path: "/customer-portal/login", noindex: true });

export default function ConfirmPayment({ loaderData, actionData }: Route.ComponentProps) {
  const { page } = loaderData;
  if (page.state === "expired") {
    return (
      <>
        <h1>This link has expired</h1>
        <p>Nothing was charged. Please sign in to the customer portal to pay, or call the office.</p>
        <p>
          <Link to={SIGN_IN}>Sign in to the customer portal</Link>
        </p>
      </>
    );
  }
  const facts = (
    <dl className="portal-facts">
      <div>
        <dt>Location</dt>
        <dd data-testid="authenticate-location">{page.locationName}</dd>
      </div>
      <div>
        <dt>Unit</dt>
        <dd data-testid="authenticate-unit">{page.unitName}</dd>
      </div>
      <div>
        <dt>Amount</dt>
        <dd data-testid="authenticate-amount">{formatCents(page.amount)}</dd>
      </div>
    </dl>
  );
  if (page.state === "paid") {
    return (
      <>
        <div className="alert alert--success" role="status">
          <h1>Thank you, your payment was received.</h1>
        </div>
        {facts}
        <p>
          <Link to={SIGN_IN}>Sign in to the customer portal</Link> to see your account.
        </p>
      </>
    );
  }
  const message = actionData?.message ?? page.message;
  return (
    <>
      <h1>Confirm your payment</h1>
      <p className="lead">Your bank asks you to confirm this payment. Nothing has been charged yet.</p>
      {facts}
      <p id="authenticate-message" className={message ? "alert alert--error" : undefined} role="alert">
        {message ?? ""}
      </p>
      <BankCheckForm csrfToken={loaderData.csrfToken} inPage={actionData ? null : loaderData.inPage} />
      <p>
        Or <Link to={SIGN_IN}>sign in to the customer portal</Link> to pay with another card.
      </p>
    </>
  );
}

/**
 * The button: to the bank's page (the action), or with JavaScript on and Stripe.js on the page, the
 * bank's check right here (stripe-bank-check.js, decision 405).
 */
function BankCheckForm({ csrfToken, inPage }: { csrfToken: string; inPage: { clientSecret: string; paymentMethod: string | null } | null }) {
  const config = useRouteLoaderData<{ hostedFields?: { publishableKey: string; jsUrl: string } | null }>("root")?.hostedFields ?? null;
  const nonce = useNonce();
  const check =
    config && inPage
      ? {
          "data-bank-check": "",
          "data-stripe-key": config.publishableKey,
          "data-client-secret": inPage.clientSecret,
          "data-error-id": "authenticate-message",
          ...(inPage.paymentMethod ? { "data-payment-method": inPage.paymentMethod } : {}),
        }
      : {};
  return (
    <>
      <Form method="post" reloadDocument className="stack-form" {...check}>
        <CsrfInput token={csrfToken} />
        <SubmitButton pendingText="Opening your bank's page…">Confirm with your bank</SubmitButton>
      </Form>
      {config && inPage ? (
        <>
          <script src={config.jsUrl} nonce={nonce} />
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: stripeBankCheckScript }} />
        </>
      ) : null}
    </>
  );
}
