import type { Route } from "./+types/rent.lease";
import { isSignedOnline } from "~/domain/rental/lease";
import { NO_STORE } from "~/domain/web/cache";
import { now as clockNow } from "~/platform/clock.server";
import { checkLeaseToken, getLeaseDocument, LEASE_LINK_DAYS, leaseTenantId } from "~/services/rental/lease-links.server";
import { getTenantSession } from "~/services/web/session.server";
import { notFound } from "~/services/web/responses.server";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const expiredPage = (nonce: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>This lease link has expired</title>
<style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#111}</style></head>
<body><main><h1>This lease link has expired</h1>
<p>For your security, links to a lease work for ${LEASE_LINK_DAYS} days. Your lease is still available:
<a href="/customer-portal/login">sign in to the customer portal</a> to open or print it.</p></main></body></html>`;

/**
 * The signed lease as a standalone printable HTML document (?download=1 saves it as a file). It opens
 * with a link token (leaseDocumentPath in move-in.server.ts: HMAC with an expiry inside, for the
 * confirmation page and the email), or without one for the signed-in tenant who holds the lease (the
 * portal). An expired link says so and sends the tenant to the portal (docs/decisions/078).
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const now = clockNow();
  const nonce = escape((context as { cspNonce?: string }).cspNonce ?? "");
  const link = checkLeaseToken(params.leaseId, url.searchParams.get("token"), now);
  if (link !== "ok") {
    if (!/^\d{1,9}$/.test(params.leaseId)) throw notFound();
    const session = await getTenantSession(context.db, request, now);
    const holder = session ? await leaseTenantId(context.db, Number(params.leaseId)) : null;
    if (!session || holder !== session.tenantId) {
      if (link === "expired") {
        return new Response(expiredPage(nonce), {
          status: 410,
          headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": NO_STORE, "X-Robots-Tag": "noindex" },
        });
      }
      throw notFound();
    }
  }
  const lease = await getLeaseDocument(context.db, Number(params.leaseId));
  if (!lease) throw notFound();
  const signedAt = lease.signedAt.toISOString().replace("T", " ").slice(0, 19) + " UTC";
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Rental agreement – unit ${escape(lease.unitName)}</title>
<style nonce="${nonce}">
body{font:16px/1.5 Georgia,serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#111}
.text{white-space:pre-wrap}
.sig{margin-top:2rem;border-top:1px solid #444;padding-top:1rem}
code{font-size:.85em;word-break:break-all}
@media print{body{margin:0}}
</style></head>
<body>
<p>Unit ${escape(lease.unitName)} · move-in ${escape(lease.moveInDate)}</p>
<div class="text">${escape(lease.text)}</div>
<div class="sig">
${
  isSignedOnline(lease)
    ? `<p><strong>Signed electronically by:</strong> ${escape(lease.signedName)}</p>
<p><strong>Signed at:</strong> ${escape(signedAt)} from IP address ${escape(lease.signedIp || "unknown")}</p>`
    : `<p><strong>Not signed online.</strong> This lease is signed at the office when you first come in (recorded ${escape(signedAt)}).</p>
<p>Tenant signature: ______________________________ Date: ______________</p>`
}
<p><strong>Fingerprint of the text (SHA-256):</strong> <code>${escape(lease.hash)}</code></p>
</div>
</body></html>`;
  return new Response(html, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": NO_STORE,
      "X-Robots-Tag": "noindex",
      ...(url.searchParams.get("download") === "1" ? { "Content-Disposition": `attachment; filename="lease-${lease.leaseId}.html"` } : {}),
    },
  });
}
