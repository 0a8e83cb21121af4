import type { Route } from "./+types/rent.lease";
import { NO_STORE } from "~/domain/cache";
import { getLeaseDocument, verifyLeaseToken } from "~/services/move-in.server";
import { notFound } from "~/services/http.server";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * The signed lease as a standalone printable HTML document (?download=1 saves it as a file). The link
 * carries an HMAC token (leaseDocumentPath in move-in.server.ts), so only whoever was given the link
 * (the tenant: confirmation page, email, portal) can open it.
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  if (!verifyLeaseToken(params.leaseId, url.searchParams.get("token"))) throw notFound();
  const lease = await getLeaseDocument(context.db, Number(params.leaseId));
  if (!lease) throw notFound();
  const nonce = escape((context as { cspNonce?: string }).cspNonce ?? "");
  const signedAt = lease.signedAt.toISOString().replace("T", " ").slice(0, 19) + " UTC";
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Rental agreement – unit ${escape(lease.unit.name)}</title>
<style nonce="${nonce}">
body{font:16px/1.5 Georgia,serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#111}
.text{white-space:pre-wrap}
.sig{margin-top:2rem;border-top:1px solid #444;padding-top:1rem}
code{font-size:.85em;word-break:break-all}
@media print{body{margin:0}}
</style></head>
<body>
<p>Unit ${escape(lease.unit.name)} · move-in ${escape(lease.moveInDate)}</p>
<div class="text">${escape(lease.leaseText)}</div>
<div class="sig">
<p><strong>Signed electronically by:</strong> ${escape(lease.signedName)}</p>
<p><strong>Signed at:</strong> ${escape(signedAt)} from IP address ${escape(lease.signedIp || "unknown")}</p>
<p><strong>Fingerprint of the text (SHA-256):</strong> <code>${escape(lease.leaseHash)}</code></p>
</div>
</body></html>`;
  return new Response(html, {
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": NO_STORE,
      "X-Robots-Tag": "noindex",
      ...(url.searchParams.get("download") === "1" ? { "Content-Disposition": `attachment; filename="lease-${lease.id}.html"` } : {}),
    },
  });
}
