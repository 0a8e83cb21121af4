import { data } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/_index";
import { routeMeta } from "~/components/ui/route-meta";
import { CallOffice, type PortalPageHandle } from "~/components/portal/parts";
import { formatCents } from "~/domain/shared/money";
import { formatDate } from "~/domain/shared/calendar";
import { CARD_BRAND_LABELS } from "~/domain/payments/cards";
import { phoneHref } from "~/domain/shared/phone";
import { externalPaymentLink } from "~/domain/payments/pay-bill-link";
import { officeInstructions } from "~/domain/portal/office-instructions";
import { settingsForLocation, type AccountGlobalSettings } from "~/domain/shared/account-settings";
import { listPortalUnits, portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { storageFor } from "~/storage-software/index.server";
import { signedInTenant } from "~/services/portal/access.server";

/** The portal's navigation marks "My units"; the units' table needs the wide page (decision 225). */
export const handle = { portalNav: "dashboard", portalWide: true } satisfies PortalPageHandle;

const DONE: Record<string, string> = {
  "autopay-on": "Autopay is on. Your card will be charged on each due date.",
  "autopay-off": "Autopay is off. Please pay each month before the due date.",
  "move-out": "Your move-out notice has been recorded.",
};

/** What a unit's portal section offers, from the settings at its location. */
function portalFlags(settings: AccountGlobalSettings) {
  return {
    payments: settings.is_payments_enabled,
    prepay: settings.is_prepayments_enabled && settings.is_payments_enabled && settings.portal_prepay_months > 0,
    autopay: settings.is_autopay_enabled,
    moveOut: settings.is_move_out_enabled,
    protectionPlans: settings.is_protection_plans_enabled,
  };
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = signedInTenant(context);
  const tenantId = ctx.session.tenantId;
  const units = await listPortalUnits(ctx, tenantId);
  const withLedgers = await Promise.all(
    units.map(async ({ lease, location }) => {
      // The location's own global_settings over the account's (decision 201).
      const settings = settingsForLocation(ctx.settings, location.globalSettings);
      return {
      lease,
      location: {
        name: location.name,
        urlSlug: location.urlSlug,
        phone: location.phoneNumber,
        externalPaymentLink: externalPaymentLink(location.externalPaymentLink),
      },
      ledger: (await storageFor(ctx.db, location).getLedger(tenantId, lease.leaseId)) ?? [],
      flags: portalFlags(settings),
      officeInstructions: officeInstructions(settings),
      };
    }),
  );
  const done = new URL(request.url).searchParams.get("done");
  return data(
    {
      phone: ctx.phone,
      units: withLedgers,
      done: done ? (DONE[done] ?? null) : null,
    },
    { headers: portalHeaders() },
  );
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "My units | Customer Portal", description: "Your units, balance, ledger and payments.", path: "/customer-portal" });

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <h1>My units</h1>
      {loaderData.done ? (
        <div className="alert alert--success" role="status">
          <p>{loaderData.done}</p>
        </div>
      ) : null}
      {loaderData.units.length === 0 ? (
        <CallOffice phone={loaderData.phone}>There are no units on your account yet.</CallOffice>
      ) : null}
      {loaderData.units.map(({ lease, location, ledger, flags, officeInstructions }) => {
        const base = `/customer-portal/units/${lease.leaseId}`;
        const active = lease.status === "active";
        return (
          <section key={lease.leaseId} className="portal-unit" aria-labelledby={`unit-${lease.leaseId}`}>
            <h2 id={`unit-${lease.leaseId}`}>
              Unit {lease.unitName} at {location.name}
            </h2>
            {lease.autopayDecline ? (
              <div className="alert alert--error" role="alert">
                <p>
                  Your autopay payment of {formatCents(lease.autopayDecline.amount)} was declined: {lease.autopayDecline.reason} Please pay your
                  balance{flags.autopay ? " or change your autopay card" : ""}.
                </p>
              </div>
            ) : null}
            {active && lease.autopay.notSetUp ? (
              <div className="notice" data-testid="autopay-not-set-up">
                <p>
                  Autopay is not on yet. You chose autopay when you rented, but it could not be turned on with your rental.{" "}
                  {flags.autopay ? <Link to={`${base}/autopay`}>Set up autopay</Link> : "Please call the office to set it up."}
                </p>
              </div>
            ) : null}
            <dl className="portal-facts">
              <div>
                <dt>Location</dt>
                <dd>
                  <Link to={`/locations/${location.urlSlug}`}>{location.name}</Link>
                </dd>
              </div>
              <div>
                <dt>Unit</dt>
                <dd>
                  {lease.unitName} ({lease.width}′ × {lease.length}′ {lease.unitTypeName})
                </dd>
              </div>
              <div>
                <dt>Monthly rate</dt>
                <dd>{formatCents(lease.monthlyRate)}</dd>
              </div>
              <div>
                <dt>Paid through</dt>
                <dd>{formatDate(lease.paidThroughDate)}</dd>
              </div>
              <div>
                <dt>Balance due</dt>
                <dd className="portal-balance" data-testid="balance">
                  {formatCents(Math.max(0, lease.balance))}
                  {lease.balance < 0 ? ` (credit ${formatCents(-lease.balance)})` : ""}
                </dd>
              </div>
              <div>
                <dt>Next due date</dt>
                <dd>{formatDate(lease.nextDueDate)}</dd>
              </div>
              <div>
                <dt>Autopay</dt>
                <dd data-testid="autopay">
                  {lease.autopay.enabled
                    ? `On${lease.autopay.card ? ` — ${CARD_BRAND_LABELS[lease.autopay.card.brand]} ending ${lease.autopay.card.last4}` : ""}`
                    : "Off"}
                </dd>
              </div>
              <div>
                <dt>Gate code</dt>
                <dd>
                  <strong className="portal-gate">{lease.gateCode}#</strong>
                  <span className="portal-gate__hint"> Enter the digits of your gate code at the keypad, then press the # sign.</span>
                </dd>
              </div>
              <div>
                <dt>Lease</dt>
                <dd>
                  {/* Opens for the signed-in holder without a link token (docs/decisions/078). */}
                  <a href={`/rent/lease/${lease.leaseId}`} target="_blank" rel="noopener">
                    View or print your signed lease
                  </a>
                </dd>
              </div>
              {lease.moveOutDate ? (
                <div>
                  <dt>Move-out date</dt>
                  <dd>{formatDate(lease.moveOutDate)} (notice given)</dd>
                </div>
              ) : null}
              {flags.protectionPlans ? (
                <div>
                  <dt>Protection plan</dt>
                  <dd>
                    {lease.insuranceCoverage
                      ? `${formatCents(lease.insuranceCoverage)} coverage, ${formatCents(lease.insurancePremium)} a month`
                      : "None"}
                  </dd>
                </div>
              ) : null}
            </dl>

            {active && location.externalPaymentLink ? (
              <div className="portal-external-pay">
                <p>
                  Payments and autopay for {location.name} are handled on our payment site.
                </p>
                <ul className="portal-actions">
                  <li>
                    <a className="button button--primary" href={location.externalPaymentLink} data-testid="external-pay">
                      Pay my bill<span className="visually-hidden"> for unit {lease.unitName} on our payment site</span>
                    </a>
                  </li>
                  {flags.moveOut ? (
                    <li>
                      <Link className="button button--secondary" to={`${base}/move-out`}>
                        Give move-out notice
                      </Link>
                    </li>
                  ) : null}
                </ul>
              </div>
            ) : active ? (
              <ul className="portal-actions">
                {flags.payments ? (
                  <li>
                    <Link className="button button--primary" to={`${base}/pay`}>
                      Pay my bill
                    </Link>
                  </li>
                ) : null}
                {flags.prepay ? (
                  <li>
                    <Link className="button button--secondary" to={`${base}/prepay`}>
                      Pay months ahead
                    </Link>
                  </li>
                ) : null}
                {flags.autopay ? (
                  <li>
                    <Link className="button button--secondary" to={`${base}/autopay`}>
                      {lease.autopay.enabled ? "Manage autopay" : "Set up autopay"}
                    </Link>
                  </li>
                ) : null}
                {flags.moveOut ? (
                  <li>
                    <Link className="button button--secondary" to={`${base}/move-out`}>
                      Give move-out notice
                    </Link>
                  </li>
                ) : null}
              </ul>
            ) : null}
            <div className="portal-office-notes">
              {!flags.payments ? <CallOffice phone={location.phone}>Online payments are not available right now. To pay your bill,</CallOffice> : null}
              {!flags.autopay ? <CallOffice phone={location.phone}>Autopay cannot be set up online. To set it up or change it,</CallOffice> : null}
              {!flags.prepay && flags.payments ? <CallOffice phone={location.phone}>To pay months ahead,</CallOffice> : null}
              {!flags.moveOut ? <CallOffice phone={location.phone}>To give notice that you are moving out,</CallOffice> : null}
              {!flags.protectionPlans ? <CallOffice phone={location.phone}>To add or change a protection plan,</CallOffice> : null}
            </div>
            {officeInstructions.length ? (
              <section className="portal-office-instructions" aria-labelledby={`office-${lease.leaseId}`} data-testid="office-instructions">
                <h3 id={`office-${lease.leaseId}`}>At the {location.name} office</h3>
                <dl>
                  {officeInstructions.map((i) => (
                    <div key={i.key}>
                      <dt>{i.heading}</dt>
                      <dd>
                        {i.text} Questions? Call <a href={phoneHref(location.phone)}>{location.phone}</a>.
                      </dd>
                    </div>
                  ))}
                </dl>
              </section>
            ) : null}

            <h3>Ledger</h3>
            <div className="table-scroll">
              <table className="data-table portal-ledger">
                <caption className="visually-hidden">Charges and payments of unit {lease.unitName}, with the running balance</caption>
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Description</th>
                    <th scope="col" className="num">
                      Charge
                    </th>
                    <th scope="col" className="num">
                      Payment
                    </th>
                    <th scope="col" className="num">
                      Balance
                    </th>
                    <th scope="col">Receipt</th>
                  </tr>
                </thead>
                <tbody>
                  {ledger.map((l) => (
                    <tr key={l.id}>
                      <td>{formatDate(l.entryDate)}</td>
                      <td>
                        {l.description}
                        {l.tax ? <span className="portal-tax"> (incl. tax {formatCents(l.tax)})</span> : null}
                      </td>
                      <td className="num">{l.kind === "charge" ? formatCents(l.amount + l.tax) : ""}</td>
                      <td className="num">{l.kind !== "charge" ? formatCents(l.amount) : ""}</td>
                      <td className="num">{formatCents(l.runningBalance)}</td>
                      <td>{l.paymentId ? <Link to={`/customer-portal/receipts/${l.paymentId}`}>Receipt</Link> : null}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        );
      })}
      <p className="portal-help">
        Questions about your bill? Call us at <a href={phoneHref(loaderData.phone)}>{loaderData.phone}</a>.
      </p>
    </>
  );
}
