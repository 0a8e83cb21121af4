import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext } from "react-router";
import { ServerRouter } from "react-router";
import { renderToPipeableStream } from "react-dom/server";
import { NonceProvider } from "~/components/nonce";
import { injectCustomCode } from "~/domain/custom-code";
import { analyticsSnippets, parseAnalyticsId } from "~/domain/analytics";
import { NO_STORE } from "~/domain/cache";
import { isPaymentPage } from "~/domain/payment-pages";

export const streamTimeout = 5_000;

/**
 * Renders the whole document before sending it (no streaming: pages are small, and the operator's
 * custom header and body code is spliced into the finished HTML, with our CSP nonce on its scripts).
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce;
  return new Promise<Response>((resolve, reject) => {
    let status = responseStatusCode;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          const chunks: Buffer[] = [];
          const body = new PassThrough();
          body.on("data", (chunk: Buffer) => chunks.push(chunk));
          body.on("end", () => {
            const rootData = routerContext.staticHandlerContext.loaderData["root"] as
              | {
                  site?: {
                    website: { customHeaderCode: string; customBodyCode: string; analyticsId: string | null };
                  } | null;
                }
              | undefined;
            // Payment pages load no operator code and no analytics tag (docs/decisions/075).
            const website = isPaymentPage(new URL(request.url).pathname) ? undefined : rootData?.site?.website;
            const analytics = analyticsSnippets(parseAnalyticsId(website?.analyticsId), nonce);
            const html = injectCustomCode(Buffer.concat(chunks).toString("utf8"), {
              head: website?.customHeaderCode ?? "",
              body: website?.customBodyCode ?? "",
              analyticsHead: analytics.head,
              analyticsBody: analytics.body,
              nonce,
            });
            responseHeaders.set("Content-Type", "text/html; charset=utf-8");
            // Error pages (404, 500 …) are never stored by browsers or CDNs.
            if (status >= 400) responseHeaders.set("Cache-Control", NO_STORE);
            resolve(new Response(html, { headers: responseHeaders, status }));
          });
          body.on("error", reject);
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          status = 500;
          console.error(error);
        },
      },
    );
    setTimeout(abort, streamTimeout + 1000);
  });
}

export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return;
  console.error(error);
}
