import type { EntryContext, RouterContextProvider } from "react-router";
import { isRouteErrorResponse, ServerRouter } from "react-router";
import { renderToPipeableStream, renderToString } from "react-dom/server";
import { NonceProvider } from "~/components/ui/nonce";
import { injectCustomCode } from "~/domain/site/custom-code";
import { analyticsSnippets, parseAnalyticsId } from "~/domain/site/analytics";
import { NO_STORE } from "~/domain/web/cache";
import { hadOutage, markOutage, outageLogFields, outageOf, rememberLayout, RETRY_AFTER, unavailablePageHtml } from "~/services/web/unavailable-page.server";
import { logger, logRequestError } from "~/platform/logger.server";
import { isPaymentRoute } from "~/domain/payments/pages";
import { isConsoleRoute } from "~/domain/console/pages";
import { documentHtml } from "~/platform/document-html.server";
import { rememberedRender, rememberRender, renderMemoKey } from "~/platform/render-memo.server";

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
  loadContext: RouterContextProvider,
) {
  const nonce = loadContext.cspNonce;
  // A loader or action could not reach the database or the storage software: 503 in the site's layout, never a 500 (issue 14).
  if (hadOutage(request)) return unavailableResponse(request, responseHeaders, nonce);
  const page = { request, responseHeaders, routerContext, nonce };
  if (!pageHydrates(routerContext)) {
    // No page-level Suspense and no client bundle to hand data to: React renders the document to one
    // string at once (decision 164: no byte encoding, chunk bookkeeping or stream in between). A render
    // error throws here, as the streaming renderer's onShellError would reject.
    // The same data rendered a moment ago (a rush): that page, with this answer's token and nonce (decision 330).
    const memoKey = renderMemoKey(request, responseStatusCode, routerContext, nonce);
    const remembered = memoKey ? rememberedRender(memoKey, nonce) : undefined;
    if (remembered !== undefined) {
      responseHeaders.set("X-Render-Memo", "hit");
      return documentResponse(page, responseStatusCode, remembered);
    }
    const rendered = renderToString(
      <NonceProvider value={nonce}>
        <ServerRouter context={withoutHydrationData(routerContext)} url={request.url} nonce={nonce} />
      </NonceProvider>,
    );
    // renderToString leaves out the doctype that the streaming renderer writes before <html>.
    const html = rendered.startsWith("<html") ? `<!DOCTYPE html>${rendered}` : rendered;
    if (memoKey) rememberRender(memoKey, html, nonce);
    return documentResponse(page, responseStatusCode, html);
  }
  return new Promise<Response>((resolve, reject) => {
    let status = responseStatusCode;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          pipe(htmlSink((rendered) => resolve(documentResponse(page, status, rendered)), reject));
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

/** The rendered document with the operator's custom code and analytics spliced in, as the response. */
function documentResponse(
  page: { request: Request; responseHeaders: Headers; routerContext: EntryContext; nonce: string },
  status: number,
  rendered: string,
): Response {
  const { request, responseHeaders, routerContext, nonce } = page;
  const rootData = routerContext.staticHandlerContext.loaderData["root"] as
    | { site?: { website: { customHeaderCode: string; customBodyCode: string; analyticsId: string | null } } | null }
    | undefined;
  // Payment pages load no operator code and no analytics tag (docs/decisions/075), by the route that
  // rendered them, whatever the path's spelling (decision 190).
  // The back office (issue 23) loads none either.
  const consolePage = isConsoleRoute(routerContext.staticHandlerContext.matches.map((match) => routerContext.routeModules[match.route.id]?.handle));
  const website = isPaymentRouteMatched(routerContext) || consolePage ? undefined : rootData?.site?.website;
  const analytics = analyticsSnippets(parseAnalyticsId(website?.analyticsId), nonce);
  const html = injectCustomCode(rendered, {
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
  if (status === 200 && request.method === "GET" && !consolePage) rememberLayout(html);
  const response = new Response(html, { headers: responseHeaders, status });
  documentHtml.set(response, html);
  return response;
}

/**
 * Collects what React writes, as one string: the part of a Node Writable that `pipe` uses (write,
 * end, destroy, on), without a stream in between (decision 164: a PassThrough cost a stream write,
 * a transform and a 'data' event per 4 kB). React writes bytes (Uint8Array) and, for long text,
 * strings; the page is their UTF-8 bytes in order, decoded once.
 */
function htmlSink(onEnd: (html: string) => void, onError: (error: unknown) => void) {
  const parts: Uint8Array[] = [];
  let done = false;
  const sink = {
    write(chunk: Uint8Array | string) {
      parts.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
      return true;
    },
    end() {
      if (done) return;
      done = true;
      try {
        onEnd(Buffer.concat(parts).toString("utf8"));
      } catch (error) {
        onError(error);
      }
    },
    destroy(error?: unknown) {
      if (done) return;
      done = true;
      onError(error ?? new Error("The page could not be rendered"));
    },
    on() {
      return sink;
    },
  };
  return sink as typeof sink & NodeJS.WritableStream;
}

/** Whether a matched route is a payment page's (`handle.paymentPage`). */
function isPaymentRouteMatched(routerContext: EntryContext): boolean {
  return isPaymentRoute(routerContext.staticHandlerContext.matches.map((match) => routerContext.routeModules[match.route.id]?.handle));
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
  // The database or the facility's software (SiteLink) unreachable: 503 with Retry-After, never a 500.
  if (outageOf(error)) {
    markOutage(request);
    const { what, reason } = outageLogFields(error);
    logger.warn({ method: request.method, path: new URL(request.url).pathname, reason }, `[${what}] unavailable: answered 503`);
    return;
  }
  logRequestError(error, { method: request.method, url: request.url });
}
