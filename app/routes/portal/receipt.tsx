import { data } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/receipt";
import { routeMeta } from "~/components/ui/route-meta";
import { formatCents } from "~/domain/shared/money";
import { formatDate } from "~/domain/shared/calendar";
import { CARD_BRAND_LABELS, type CardBrand } from "~/domain/payments/cards";
import { portalHeaders, portalRouteHeaders } from "~/services/portal/context.server";
import { storageFor } from "~/storage-software/index.server";
import type { Receipt } from "~/storage-software/port";
import { signedInTenant } from "~/services/portal/access.server";
import { notFound } from "~/services/web/responses.server";

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const ctx = signedInTenant(context);
  const tenantId = ctx.session.tenantId;
  let receipt: Receipt | null = null;
  let locationName = "";
  for (const location of ctx.locations) {
    receipt = await storageFor(ctx.db, location).getReceipt(tenantId, params.paymentId);
    if (receipt) {
      locationName = location.name;
      break;
    }
  }
  if (!receipt) throw notFound(portalHeaders());
  const tenant = await ctx.storage.getTenant(tenantId);
  return data(
    {
      email: tenant?.email ?? "",
      receipt,
      locationName,
      isNew: new URL(request.url).searchParams.get("new") === "1",
    },
    { headers: portalHeaders() },
  );
}

export const headers: Route.HeadersFunction = portalRouteHeaders;

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, { title: "Payment receipt | Customer Portal", description: "Your payment receipt.", path: "/customer-portal" });

export default function ReceiptPage({ loaderData }: Route.ComponentProps) {
  const { receipt } = loaderData;
  const brand = CARD_BRAND_LABELS[receipt.payment.cardBrand as CardBrand] ?? receipt.payment.cardBrand;
  return (
    <>
      {loaderData.isNew ? (
        <div className="alert alert--success" role="status">
          <h2>Thank you, your payment was received.</h2>
          <p>A copy of this receipt was sent to {loaderData.email}.</p>
        </div>
      ) : null}
      <h1>Receipt</h1>
      <dl className="portal-facts portal-receipt">
        <div>
          <dt>Amount paid</dt>
          <dd data-testid="receipt-amount">{formatCents(receipt.payment.amount)}</dd>
        </div>
        <div>
          <dt>Date</dt>
          <dd>{receipt.entryDate ? formatDate(receipt.entryDate) : ""}</dd>
        </div>
        <div>
          <dt>For</dt>
          <dd>
            Unit {receipt.unitName} at {loaderData.locationName}: {receipt.description}
          </dd>
        </div>
        <div>
          <dt>Card</dt>
          <dd>
            {brand} ending {receipt.payment.cardLast4}
          </dd>
        </div>
        <div>
          <dt>Authorisation</dt>
          <dd>{receipt.payment.authReference}</dd>
        </div>
        <div>
          <dt>Receipt number</dt>
          <dd>{receipt.payment.id}</dd>
        </div>
        <div>
          <dt>Balance now</dt>
          <dd data-testid="balance-now">
            {formatCents(Math.max(0, receipt.balance))}
            {receipt.balance < 0 ? ` (credit ${formatCents(-receipt.balance)})` : ""}
          </dd>
        </div>
        <div>
          <dt>Paid through</dt>
          <dd data-testid="paid-through">{formatDate(receipt.paidThroughDate)}</dd>
        </div>
      </dl>
      <p>
        <Link to="/customer-portal">Back to my units</Link>
      </p>
    </>
  );
}
