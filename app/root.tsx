import {
  data,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useMatches,
  useRouteError,
  useRouteLoaderData,
  type HeadersFunction,
  type LinksFunction,
} from "react-router";
import type { Route } from "./+types/root";
import appCss from "~/styles/app.css?url";
import { readSiteLayout } from "~/db/queries/cached-reads.server";
import { getSite } from "~/services/site/context.server";
import { publicOrigin } from "~/services/site/origin.server";
import { hostedFieldsClientConfig } from "~/platform/payments/gateway.server";
import { globalStylesToCss } from "~/domain/site/website-settings";
import { SiteHeader, SiteFooter } from "~/components/site/chrome";
import { ErrorPage } from "~/components/ui/error-page";
import { useNonce } from "~/components/ui/nonce";
import formEnhanceScript from "~/components/ui/form-enhance.js?raw";
import { CONTENT_CACHE, NO_STORE } from "~/domain/web/cache";
import { isPasswordRoute, isPaymentRoute, PAYMENT_PAGE_ATTRIBUTE, type PaymentPageHandle } from "~/domain/payments/pages";
// Notes whether the document this tab loaded was a payment page, for the payment pages' client guard.
import "~/components/payments/page-guard";
import { isStagingHost } from "~/domain/site/staging";
import { isConsoleRoute } from "~/domain/console/pages";
import { PreviewBanner } from "~/components/content/preview-banner";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: appCss },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export async function loader({ context, request }: Route.LoaderArgs) {
  // The back office (issue 23) draws its own layout: none of the site's header, footer or operator code.
  if (context.consolePage === true) return data({ site: null, isStaging: false, globalCss: "", preview: null, hostedFields: null });
  const known = await getSite(context);
  const layout = await readSiteLayout(context, known);
  // Canonical, Open Graph and JSON-LD URLs start from the configured origin, never the request's host.
  // Payment pages are not even sent the operator's code (it would sit in the page's data): decision 075.
  // The server decided from the matched route (decision 190).
  // Pages that take a password or carry a token are first-party only as well (decision 464).
  const { site, globalCss } = layout ? siteData(layout, context.paymentPage === true || context.passwordPage === true) : { site: null, globalCss: "" };
  // The staging copy of the site is never indexed (decision 093; the server also sends X-Robots-Tag).
  const isStaging = isStagingHost(new URL(request.url).host, known?.website.stagingDomain);
  // Preview mode (decision 315): the server renders this page with the draft applied; the banner says so.
  const preview = context.preview ?? null;
  // Payment pages: Stripe.js's address and the publishable key, for a form with Stripe's fields (decision 390).
  const hostedFields = context.paymentPage === true ? hostedFieldsClientConfig() : null;
  return data({ site, isStaging, globalCss, preview, hostedFields });
}

type SiteLayout = NonNullable<Awaited<ReturnType<typeof readSiteLayout>>>;

function buildSiteData(layout: SiteLayout, paymentPage: boolean) {
  const site = {
    ...layout,
    website: {
      ...layout.website,
      origin: publicOrigin(layout.website),
      ...(paymentPage ? { analyticsId: null, customCss: "", customJs: "", customHeaderCode: "", customBodyCode: "" } : {}),
    },
  };
  return { site, globalCss: globalStylesToCss(site.website.globalStyles) };
}

/**
 * The site part of the root's data, built once per layout (the site cache's shared rows, kept until a
 * change drops them) and kind of page (issue 22, decision 421): the same object for every request
 * meanwhile, so the render memo's key keeps its JSON (app/platform/render-memo.server.ts) and the global CSS is
 * written once. Without the site cache every request has its own layout, and so its own copy. Never
 * change the objects: they are shared.
 */
const builtSiteData = new WeakMap<SiteLayout, Map<boolean, ReturnType<typeof buildSiteData>>>();
function siteData(layout: SiteLayout, paymentPage: boolean) {
  let byKind = builtSiteData.get(layout);
  if (!byKind) builtSiteData.set(layout, (byKind = new Map()));
  let built = byKind.get(paymentPage);
  if (!built) byKind.set(paymentPage, (built = buildSiteData(layout, paymentPage)));
  return built;
}

/**
 * Pages inherit the deepest route's Cache-Control; content pages are CDN-cacheable by default.
 * An error page rendered by the root boundary is never stored (unless the error says otherwise).
 */
export const headers: HeadersFunction = ({ loaderHeaders, errorHeaders }) => {
  const h = new Headers();
  h.set(
    "Cache-Control",
    errorHeaders ? (errorHeaders.get("Cache-Control") ?? NO_STORE) : (loaderHeaders.get("Cache-Control") ?? CONTENT_CACHE),
  );
  return h;
};

/** Error pages rendered by the root boundary still get a title (routes' own meta covers the rest). */
export const meta: Route.MetaFunction = ({ error, loaderData }) => {
  if (!error) return [];
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const name = loaderData?.site?.website.websiteName;
  const title = status === 404 ? "Page not found" : "Something went wrong";
  return [{ title: name ? `${title} | ${name}` : title }, { name: "robots", content: "noindex" }];
};

/**
 * Route handles may ask for the small form script (`enhanceForms`, docs/decisions/130) or for the React
 * Router client bundle (`hydrate`; no page does: the bundle alone is over the 90 kB budget of issue 10).
 * Every other page is plain server-rendered HTML.
 */
export interface RouteHandle extends PaymentPageHandle {
  hydrate?: boolean;
  enhanceForms?: boolean;
}

function useHandleFlag(flag: Exclude<keyof RouteHandle, "paymentPage" | "passwordPage">) {
  return useMatches().some((m) => (m.handle as RouteHandle | undefined)?.[flag] === true);
}

export function Layout({ children }: { children: React.ReactNode }) {
  const rootData = useRouteLoaderData<typeof loader>("root");
  const nonce = useNonce();
  const hydrate = useHandleFlag("hydrate");
  const enhanceForms = useHandleFlag("enhanceForms") && !hydrate;
  // Payment pages: none of the operator's code (custom CSS, custom JS; entry.server leaves out the
  // header and body code and the analytics tag) — docs/decisions/075, decided by the matched route (190).
  const paymentPage = isPaymentRoute(useMatches().map((m) => m.handle));
  const consolePage = isConsoleRoute(useMatches().map((m) => m.handle));
  const passwordPage = isPasswordRoute(useMatches().map((m) => m.handle));
  const operatorCode = !paymentPage && !consolePage && !passwordPage;
  const site = consolePage ? null : rootData?.site;
  return (
    <html lang="en" {...(paymentPage ? { [PAYMENT_PAGE_ATTRIBUTE]: "" } : {})}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {rootData?.isStaging || consolePage || rootData?.preview ? <meta name="robots" content="noindex, nofollow" /> : null}
        <Meta />
        <Links />
        {rootData?.globalCss ? <style nonce={nonce} dangerouslySetInnerHTML={{ __html: rootData.globalCss }} /> : null}
        {operatorCode && site?.website.customCss ? (
          <style nonce={nonce} dangerouslySetInnerHTML={{ __html: site.website.customCss.replace(/<\/style/gi, "<\\/style") }} />
        ) : null}
      </head>
      <body>
        {consolePage ? (
          children
        ) : (
          <>
            <a className="skip-link" href="#main">
              Skip to main content
            </a>
            {rootData?.preview ? <PreviewBanner returnTo={rootData.preview.returnTo} /> : null}
            {site ? <SiteHeader site={site} /> : null}
            <main id="main" tabIndex={-1}>
              {children}
            </main>
            {site ? <SiteFooter site={site} /> : null}
          </>
        )}
        {hydrate ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : null}
        {enhanceForms ? <script nonce={nonce} dangerouslySetInnerHTML={{ __html: formEnhanceScript }} /> : null}
        {operatorCode && site?.website.customJs ? (
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: site.website.customJs.replace(/<\/script/gi, "<\\/script") }} />
        ) : null}
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  // On the server, entry.server.tsx's handleError has logged it (without query strings or SQL params).
  if (!isRouteErrorResponse(error) && typeof document !== "undefined") console.error(error);
  return <ErrorPage status={status} />;
}
