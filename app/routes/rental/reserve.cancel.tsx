import { data, Form, redirect } from "react-router";
import type { Route } from "./+types/reserve.cancel";
import { CsrfInput, SubmitButton } from "~/components/ui/form";
import { routeMeta } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { formatPhone, phoneHref } from "~/domain/shared/phone";
import { findAtAnyLocation } from "~/services/rental/storage-lookup.server";
import { now as clockNow } from "~/platform/clock.server";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { loadRentalContext } from "~/services/rental/context.server";
import { sha256 } from "~/services/rental/record.server";
import { notFound } from "~/services/web/responses.server";

/**
 * Cancel a reservation from the link in its email. The GET only shows a button (mail scanners that
 * follow links cancel nothing); the POST cancels when the token's hash matches.
 */
async function find(context: Route.LoaderArgs["context"], reservationId: string, token: string | null) {
  if (!/^\d{1,9}$/.test(reservationId) || !token || token.length > 100) throw notFound();
  const row = await findAtAnyLocation(context.db, (storage) => storage.getReservation({ id: reservationId, now: clockNow() }));
  if (!row || row.cancelTokenHash !== sha256(token)) throw notFound();
  const ctx = await loadRentalContext(context.db, row.unitTypeId, clockNow());
  if (!ctx) throw notFound();
  const r = await ctx.storage.getReservation({ id: reservationId, now: clockNow() });
  if (!r) throw notFound();
  return { ctx, r };
}

export async function loader({ params, request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const token = url.searchParams.get("token");
  const { ctx, r } = await find(context, params.reservationId, token);
  const csrf = await getCsrfToken(request);
  return data(
    {
      csrfToken: csrf.token,
      token: token!,
      status: r.status,
      justCancelled: url.searchParams.get("done") === "1",
      unitName: r.unitName,
      locationName: ctx.location.name,
      desiredMoveInDate: r.desiredMoveInDate,
      phone: formatPhone(ctx.location.phoneNumber),
    },
    { headers: { "Cache-Control": NO_STORE, ...(csrf.setCookie ? { "Set-Cookie": csrf.setCookie } : {}) } },
  );
}

export async function action({ params, request, context }: Route.ActionArgs) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const token = String(formData.get("token") ?? "");
  const { ctx } = await find(context, params.reservationId, token);
  await ctx.storage.cancelReservation({ id: params.reservationId, cancelTokenHash: sha256(token), now: clockNow() });
  throw redirect(`/reserve/cancel/${params.reservationId}?token=${encodeURIComponent(token)}&done=1`, 303);
}

export const headers: Route.HeadersFunction = ({ loaderHeaders }) => ({
  "Cache-Control": NO_STORE,
  ...(loaderHeaders.get("Set-Cookie") ? { "Set-Cookie": loaderHeaders.get("Set-Cookie")! } : {}),
});

export const meta: Route.MetaFunction = ({ matches }) => [
  ...routeMeta(matches, { title: "Cancel your reservation", description: "Cancel a storage unit reservation.", path: "/reserve/cancel" }),
  { name: "robots", content: "noindex" },
];

export default function ReserveCancel({ loaderData: d }: Route.ComponentProps) {
  return (
    <div className="container page page--narrow">
      <h1>{d.status === "cancelled" ? "Your reservation is cancelled" : "Cancel your reservation"}</h1>
      {d.status === "cancelled" ? (
        <div className="alert alert--success" role="status">
          <p>
            {d.justCancelled ? "Done. " : ""}Unit {d.unitName} at {d.locationName} is no longer reserved for you. Nothing was charged.
          </p>
        </div>
      ) : d.status === "active" ? (
        <>
          <p>
            Unit {d.unitName} at {d.locationName} is reserved for you, with a desired move-in date of {d.desiredMoveInDate}.
          </p>
          <Form method="post">
            <CsrfInput token={d.csrfToken} />
            <input type="hidden" name="token" value={d.token} />
            <SubmitButton pendingText="Cancelling…">Cancel my reservation</SubmitButton>
          </Form>
        </>
      ) : (
        <p>This reservation has {d.status === "expired" ? "expired" : `been ${d.status}`}: there is nothing to cancel.</p>
      )}
      <p>
        Questions? Call <a href={phoneHref(d.phone)}>{d.phone}</a>.
      </p>
    </div>
  );
}
