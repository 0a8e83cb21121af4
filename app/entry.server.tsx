import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext } from "react-router";
import { isRouteErrorResponse, ServerRouter } from "react-router";
import { renderToPipeableStream } from "react-dom/server";
import { NonceProvider } from "~/components/nonce";
import { injectCustomCode } from "~/domain/custom-code";
import { analyticsSnippets, parseAnalyticsId } from "~/domain/analytics";
import { NO_STORE } from "~/domain/cache";
import { isDatabaseUnavailable, outageReason } from "~/db/unavailable";
import { hadOutage, markOutage, rememberLayout, RETRY_AFTER, unavailablePageHtml } from "~/services/unavailable-page.server";
import { logger, logRequestError } from "~/logger.server";
import { isPaymentPage } from "~/domain/payment-pages";
import { documentHtml } from "~/document-html.server";

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
  // A loader or action could not reach the database: 503 in the site's layout, never a 500 (issue 14).
  if (hadOutage(request)) return unavailableResponse(request, responseHeaders, nonce);
  const context = pageHydrates(routerContext) ? routerContext : withoutHydrationData(routerContext);
  return new Promise<Response>((resolve, reject) => {
    let status = responseStatusCode;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={context} url={request.url} nonce={nonce} />
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
            // The header and footer of a good page are what the 503 page shows during an outage.
            if (status === 200 && request.method === "GET") rememberLayout(html);
            const response = new Response(html, { headers: responseHeaders, status });
            documentHtml.set(response, html);
            resolve(response);
          });
          body.on("error", reject);
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          status = 500;
          logRequestError(error, { method: request.method, url: request.url }, "render failed");
        },
      },
    );
    setTimeout(abort, streamTimeout + 1000);
  });
}

/** Whether a matched route asks for the React Router client bundle (root.tsx's `hydrate` handle). */
function pageHydrates(routerContext: EntryContext): boolean {
  return routerContext.staticHandlerContext.matches.some(
    (match) => (routerContext.routeModules[match.route.id]?.handle as { hydrate?: boolean } | undefined)?.hydrate === true,
  );
}

/**
 * A page that loads no React Router script needs no loader data in its HTML: without the handoff
 * stream, ServerRouter renders no `StreamTransfer` (turbo-stream encoded loader data the browser
 * would never read). In the production build the stream is created only when read (vite.config.ts,
 * `lazyHandoffStream`), so here the loader data is never encoded at all (docs/decisions/150).
 */
function withoutHydrationData(routerContext: EntryContext): EntryContext {
  const descriptor = Object.getOwnPropertyDescriptor(routerContext, "serverHandoffStream");
  // An eagerly created stream (development server): cancel it, so that its timer is cleared.
  if (descriptor && "value" in descriptor) (descriptor.value as ReadableStream | undefined)?.cancel().catch(() => {});
  Object.defineProperty(routerContext, "serverHandoffStream", { value: undefined, configurable: true, enumerable: true, writable: true });
  return routerContext;
}

function unavailableResponse(request: Request, responseHeaders: Headers, nonce: string): Response {
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  responseHeaders.set("Cache-Control", NO_STORE);
  responseHeaders.set("Retry-After", RETRY_AFTER);
  responseHeaders.delete("Set-Cookie");
  return new Response(unavailablePageHtml({ nonce, afterForm: request.method !== "GET" && request.method !== "HEAD" }), {
    status: 503,
    headers: responseHeaders,
  });
}

/** Data requests (client navigation with JavaScript): the same 503 status and Retry-After. */
export function handleDataRequest(response: Response, { request }: { request: Request }) {
  if (!hadOutage(request)) return response;
  const headers = new Headers(response.headers);
  headers.set("Retry-After", RETRY_AFTER);
  headers.set("Cache-Control", NO_STORE);
  return new Response(response.body, { status: 503, headers });
}

export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return;
  // A POST to a page without a form is the client's mistake (405 with Allow), not worth a log line.
  if (isRouteErrorResponse(error) && error.status === 405) return;
  if (isDatabaseUnavailable(error)) {
    markOutage(request);
    logger.warn({ method: request.method, path: new URL(request.url).pathname, reason: outageReason(error) }, "[db] unavailable: answered 503");
    return;
  }
  logRequestError(error, { method: request.method, url: request.url });
}
