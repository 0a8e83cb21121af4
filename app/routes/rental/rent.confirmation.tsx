import { data, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/rent.confirmation";
import { RentalStepsNav } from "~/components/rental/steps-nav";
import { ChargesDueToday } from "~/components/rental/summary";
import { HtmlContent } from "~/components/ui/html-content";
import { routeMeta } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { formatCents } from "~/domain/shared/money";
import { formatPhone, phoneHref } from "~/domain/shared/phone";
import { CARD_BRAND_LABELS } from "~/domain/payments/cards";
import { now as clockNow } from "~/platform/clock.server";
import { siteOriginFor } from "~/services/site/origin.server";
import {
  confirmRental
} from "~/services/rental/move-in.server";
import { CONFIRMATION_HOURS, getRentalConfirmation, isConfirmationViewable } from "~/services/rental/confirmation.server";
import { getRental, readRentalId } from "~/services/rental/record.server";
import { loadRentalContext } from "~/services/rental/context.server";
import { rentalSuccessHtml, unitDescription } from "~/domain/rental/rules";
import { sanitizeOperatorHtml } from "~/domain/content/sanitize.server";
import rentalCss from "~/styles/rental.css?url";
import { notFound } from "~/services/web/responses.server";

/** How often the "we are confirming your rental" page reloads itself (meta refresh: works without JavaScript). */
const CONFIRMING_REFRESH_SECONDS = 5;

export const links: Route.LinksFunction = () => [{ rel: "stylesheet", href: rentalCss }];

const formatDay = (day: string) =>
  new Date(`${day}T12:00:00Z`).toLocaleDateString("en-US", { timeZone: "UTC", weekday: "long", month: "long", day: "numeric", year: "numeric" });

/**
 * The rental's confirmation (post/redirect/get target): only the browser that completed the rental
 * (its rental cookie) sees it, and only for CONFIRMATION_HOURS after the move-in; after that the
 * page says the link has expired and sends the tenant to the portal (docs/decisions/078).
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const now = clockNow();
  const ctx = await loadRentalContext(context.db, params.unitTypeId, now);
  if (!ctx) throw notFound();
  let rental = await getRental(context.db, await readRentalId(request), params.unitTypeId);
  if (rental?.status === "confirming") {
    // The facility's software has not confirmed the payment yet: read it back (never pay again).
    const outcome = await confirmRental(context.db, ctx, rental, { now, origin: await siteOriginFor(context) }).catch(() => ({ status: "pending" as const }));
    if (outcome.status === "pending") {
      return data(
        { expired: false as const, confirming: true as const, refreshSeconds: CONFIRMING_REFRESH_SECONDS, phone: formatPhone(ctx.location.phoneNumber) },
        { headers: { "Cache-Control": NO_STORE, Refresh: String(CONFIRMING_REFRESH_SECONDS) } },
      );
    }
    if (outcome.status === "not_completed") throw redirect(`/rent/${params.unitTypeId}?step=pay&retry=1`);
    rental = await getRental(context.db, rental.id, params.unitTypeId);
  }
  if (!rental?.completedLeaseId) throw redirect(`/rent/${params.unitTypeId}`);
  if (!(await isConfirmationViewable(ctx.storage, rental.completedLeaseId, now))) {
    return data({ expired: true as const, hours: CONFIRMATION_HOURS }, { status: 410, headers: { "Cache-Control": NO_STORE } });
  }
  const c = await getRentalConfirmation(ctx.storage, rental.completedLeaseId);
  if (!c) throw redirect(`/rent/${params.unitTypeId}`);
  return data(
    {
      expired: false as const,
      confirming: false as const,
      ...c,
      moveInDay: formatDay(c.moveInDate),
      // E-sign off at the location (decision 203): the lease is signed at the office.
      leaseSignedOnline: Boolean(rental.signedName),
      paidThroughDay: formatDay(c.paidThroughDate),
      nextDueDay: formatDay(c.nextDueDate),
      unit: unitDescription(ctx.unitType),
      locationName: ctx.location.name,
      address: ctx.location.address,
      phone: formatPhone(ctx.location.phoneNumber),
      successHtml: sanitizeOperatorHtml(rentalSuccessHtml(ctx.location.rentalSuccessMessage, c.gateCode)),
      cardLabel: c.payment ? (CARD_BRAND_LABELS[c.payment.cardBrand as keyof typeof CARD_BRAND_LABELS] ?? c.payment.cardBrand) : "",
    },
    { headers: { "Cache-Control": NO_STORE } },
  );
}

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": NO_STORE });

export const meta: Route.MetaFunction = ({ matches, params, loaderData }) => [
  ...routeMeta(matches, { title: loaderData && "confirming" in loaderData && loaderData.confirming ? "We are confirming your rental" : "Your rental is complete", description: "Your storage rental is confirmed.", path: `/rent/${params.unitTypeId}/confirmation` }),
  { name: "robots", content: "noindex" },
];

export default function RentConfirmation({ loaderData }: Route.ComponentProps) {
  if (loaderData.expired) {
    return (
      <div className="container page rental">
        <h1>This confirmation link has expired</h1>
        <p>
          For your security, the rental confirmation is shown for {loaderData.hours} hours after the rental, and only in the browser that made it.
        </p>
        <p>
          Your rental is not affected. <Link to="/customer-portal/login">Sign in to the customer portal</Link> with your email address and the
          password you chose to see your unit, pay your bill and open your signed lease. Your confirmation email has your gate code.
        </p>
      </div>
    );
  }
  if (loaderData.confirming) {
    return (
      <div className="container page rental">
        <meta httpEquiv="refresh" content={String(loaderData.refreshSeconds)} />
        <h1>We are confirming your rental</h1>
        <div className="notice" role="status" aria-live="polite">
          <p>
            Your payment has reached the facility's system and we are waiting for it to confirm your rental. Please do not pay again: this page
            checks every {loaderData.refreshSeconds} seconds and shows your confirmation and gate code as soon as it is ready.
          </p>
          <p>
            <a href="">Check again now</a>. If this takes more than a few minutes, call us at <a href={phoneHref(loaderData.phone)}>{loaderData.phone}</a>:
            you will not be charged twice.
          </p>
        </div>
      </div>
    );
  }
  const c = loaderData;
  return (
    <div className="container page rental">
      <RentalStepsNav current="done" furthest="done" basePath="" />
      <h1>Your rental is complete</h1>
      <div className="alert alert--success" role="status">
        <HtmlContent html={c.successHtml} />
      </div>
      {c.autopayNotSetUp ? (
        <div className="notice" data-testid="autopay-not-set-up">
          <p>{c.autopayNotSetUp}</p>
          <p>
            <Link to={c.autopayPath}>Set up autopay in the customer portal</Link>
          </p>
        </div>
      ) : null}
      <section className="confirmation-facts" aria-labelledby="facts-heading">
        <h2 id="facts-heading">Your unit</h2>
        <dl>
          <dt>Unit</dt>
          <dd>
            {c.unitName} ({c.unit}), {c.locationName}, {c.address}
          </dd>
          <dt>Gate code</dt>
          <dd>
            <strong data-testid="gate-code">{c.gateCode}</strong> — enter the digits and then press <strong>#</strong> ({c.gateCode}#)
          </dd>
          <dt>Move-in date</dt>
          <dd>{c.moveInDay}</dd>
          <dt>Paid through</dt>
          <dd>{c.paidThroughDay}</dd>
          <dt>Next payment due</dt>
          <dd>
            {c.nextDueDay} ({formatCents(c.monthlyRate)} rent{c.autopayEnabled ? ", paid by autopay" : ""})
          </dd>
        </dl>
      </section>
      <section aria-labelledby="receipt-heading">
        <h2 id="receipt-heading">Receipt</h2>
        <ChargesDueToday lines={c.lines} total={c.totalCharged} caption="Charged today" />
        {c.payment ? (
          <p>
            Paid {formatCents(c.payment.amount)} by {c.cardLabel} ending {c.payment.cardLast4}. Authorisation {c.payment.authReference}.
          </p>
        ) : null}
      </section>
      <section aria-labelledby="next-heading">
        <h2 id="next-heading">What next</h2>
        <ul>
          <li>
            <a href={c.leasePath} target="_blank" rel="noopener">
              {c.leaseSignedOnline ? "View or print your signed lease" : "View or print your lease"}
            </a>
            {c.leaseSignedOnline ? null : <> (you sign it at the office when you first come in)</>}
          </li>
          <li>
            Your account is ready: <Link to="/customer-portal/login">sign in to the customer portal</Link> with {c.email} and the password you chose to pay
            your bill or manage autopay.
          </li>
          <li>We have emailed this confirmation to {c.email}.</li>
          <li>
            Questions? Call <a href={phoneHref(c.phone)}>{c.phone}</a>.
          </li>
        </ul>
      </section>
    </div>
  );
}
