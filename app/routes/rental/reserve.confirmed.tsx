import { data } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/reserve.confirmed";
import { HtmlContent } from "~/components/ui/html-content";
import { routeMeta } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { formatPhone, phoneHref } from "~/domain/shared/phone";
import { findAtAnyLocation } from "~/services/rental/storage-lookup.server";
import { now as clockNow } from "~/platform/clock.server";
import { loadRentalContext } from "~/services/rental/context.server";
import { unitDescription } from "~/domain/rental/rules";
import { sanitizeOperatorHtml } from "~/domain/content/sanitize.server";
import { notFound } from "~/services/web/responses.server";

/** The reservation's confirmation, by its unguessable confirmation code (post/redirect/get target). */
export async function loader({ params, context }: Route.LoaderArgs) {
  if (!/^[A-Za-z0-9_-]{8,40}$/.test(params.code)) throw notFound();
  const now = clockNow();
  const row = await findAtAnyLocation(context.db, (storage) => storage.getReservation({ confirmationCode: params.code, now }));
  if (!row) throw notFound();
  const ctx = await loadRentalContext(context.db, row.unitTypeId, now);
  if (!ctx) throw notFound();
  const r = await ctx.storage.getReservation({ confirmationCode: params.code, now });
  if (!r) throw notFound();
  return data(
    {
      status: r.status,
      firstName: r.firstName,
      email: r.email,
      unitName: r.unitName,
      unit: unitDescription(ctx.unitType),
      locationName: ctx.location.name,
      address: ctx.location.address,
      desiredMoveInDate: r.desiredMoveInDate,
      heldUntil: r.expiresAt.toLocaleString("en-US", { timeZone: ctx.location.timeZone, dateStyle: "full", timeStyle: "short" }),
      confirmationCode: r.confirmationCode,
      phone: formatPhone(ctx.location.phoneNumber),
      messageHtml: sanitizeOperatorHtml(ctx.location.reservationSuccessMessage),
      /** The full form made a portal account with the reservation (decision 135). */
      hasAccount: r.tenantId !== null,
    },
    { headers: { "Cache-Control": NO_STORE } },
  );
}

export const headers: Route.HeadersFunction = () => ({ "Cache-Control": NO_STORE });

export const meta: Route.MetaFunction = ({ matches }) => [
  ...routeMeta(matches, { title: "Your reservation", description: "Your storage unit reservation.", path: "/reserve" }),
  { name: "robots", content: "noindex" },
];

export default function ReserveConfirmed({ loaderData: r }: Route.ComponentProps) {
  return (
    <div className="container page page--narrow">
      <h1>{r.status === "active" ? "Reservation confirmed" : `This reservation is ${r.status}`}</h1>
      {r.status === "active" ? (
        <div className="alert alert--success" role="status">
          <HtmlContent html={r.messageHtml} />
        </div>
      ) : (
        <div className="alert alert--info" role="status">
          <p>
            The unit is no longer kept for you. Call <a href={phoneHref(r.phone)}>{r.phone}</a> and we will help you find another.
          </p>
        </div>
      )}
      <dl>
        <dt>Unit</dt>
        <dd>
          {r.unitName} ({r.unit}), {r.locationName}, {r.address}
        </dd>
        <dt>Desired move-in date</dt>
        <dd>{r.desiredMoveInDate}</dd>
        <dt>Kept for you until</dt>
        <dd>{r.heldUntil}</dd>
        <dt>Confirmation code</dt>
        <dd>
          <strong>{r.confirmationCode}</strong>
        </dd>
      </dl>
      <p>
        We have emailed this confirmation to {r.email}, with a link to cancel the reservation if your plans change. Questions? Call{" "}
        <a href={phoneHref(r.phone)}>{r.phone}</a>.
      </p>
      {r.hasAccount ? (
        <p data-testid="portal-account">
          Your customer portal account is ready: <Link to="/customer-portal/login">sign in</Link> with {r.email} and the password you chose.
        </p>
      ) : null}
    </div>
  );
}
