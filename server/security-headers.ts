/**
 * The security headers of every answer (issue 8): the CSP with its per-request nonce, the
 * Permissions-Policy, and the rest of helmet's, chosen by the page a request renders (a payment page,
 * a page that takes a password, the console, or the website's analytics provider). Static files get
 * the same headers without a nonce (server.js mounts them before express.static).
 */
import crypto from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import helmet from "helmet";
import type { Website } from "~/db/queries/site.server";
import { CONSOLE_ROBOTS } from "~/domain/console/pages";
import { ANALYTICS_CSP_SOURCES, parseAnalyticsId, type AnalyticsProvider } from "~/domain/site/analytics";
import type { Env } from "~/platform/env.server";
import { hostedFieldsCspSources } from "~/platform/payments/gateway.server";
import { siteOriginFromConsole } from "~/services/site/origin.server";
import type { MatchedPage } from "./route-match";

/** A fresh CSP nonce for each answer (`res.locals.cspNonce`), for the few inline scripts and styles we render. */
export function cspNonce(_req: Request, res: Response, next: NextFunction) {
  res.locals.cspNonce = crypto.randomBytes(16).toString("base64");
  next();
}

const nonce = (_req: unknown, res: unknown) => `'nonce-${(res as Response).locals.cspNonce}'`;

/**
 * Browser features no page of ours uses, switched off for the page and anything it embeds (issue 19,
 * decision 194). `payment=()` too, on the payment pages as well: our card form is plain fields posted
 * to our server, not the Payment Request API. Helmet has no Permissions-Policy option, so it is set
 * here, with the other security headers, and stored with a cached page.
 */
export const PERMISSIONS_POLICY = [
  "accelerometer=()",
  "autoplay=()",
  "bluetooth=()",
  "browsing-topics=()",
  "camera=()",
  "display-capture=()",
  "encrypted-media=()",
  "geolocation=()",
  "gyroscope=()",
  "hid=()",
  "interest-cohort=()",
  "magnetometer=()",
  "microphone=()",
  "midi=()",
  "payment=()",
  "publickey-credentials-get=()",
  "screen-wake-lock=()",
  "serial=()",
  "usb=()",
  "xr-spatial-tracking=()",
].join(", ");

/**
 * The back office's pages: the same, except that they may ask for a passkey (WebAuthn's
 * `navigator.credentials.get`, decision 273) from this origin only; nothing they embed may.
 */
export const CONSOLE_PERMISSIONS_POLICY = PERMISSIONS_POLICY.replace("publickey-credentials-get=()", "publickey-credentials-get=(self)");

/**
 * The console's forms may also go to the public site (decision 450): "Preview the site" answers with a
 * redirect there, and a form's redirect is held to form-action too. Its configured origin, never the Host.
 */
const publicSiteSource = (_req: unknown, res: unknown) => siteOriginFromConsole((res as Response).locals.website as Website | null) ?? "'self'";

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The security headers this server sends, as the environment configures them: the operator's
 * CSP_EXTRA_SCRIPT_SRC, development's relaxed CSP, and HSTS with upgrade-insecure-requests on HTTPS
 * in production.
 */
export function securityHeadersOf(serverEnv: Pick<Env, "CSP_EXTRA_SCRIPT_SRC" | "NODE_ENV" | "secureCookies">) {
  const operatorScriptSources = (serverEnv.CSP_EXTRA_SCRIPT_SRC ?? "").split(/\s+/).filter(Boolean);
  const isDev = serverEnv.NODE_ENV === "development";
  const isHttpsProduction = serverEnv.secureCookies;

  /**
   * Security headers, with the extra CSP sources the website's analytics provider needs (if any) and the
   * operator's CSP_EXTRA_SCRIPT_SRC. Payment pages (`"payment"`) get neither: only our own scripts
   * ('self' and the nonce) — docs/decisions/075. Static files get no nonce.
   */
  function securityHeaders(provider: AnalyticsProvider | null | "payment", options: { nonce: boolean; permissions?: string; hostedFields?: boolean; console?: boolean } = { nonce: true }) {
    const headers = helmetHeaders(provider, options);
    const permissions = options.permissions ?? PERMISSIONS_POLICY;
    return (req: Request, res: Response, next: NextFunction) => {
      res.setHeader("Permissions-Policy", permissions);
      headers(req, res, next);
    };
  }

  function helmetHeaders(provider: AnalyticsProvider | null | "payment", options: { nonce: boolean; hostedFields?: boolean; console?: boolean }) {
    const payment = provider === "payment";
    const hosted = { scriptSrc: [] as string[], connectSrc: [] as string[], frameSrc: [] as string[], formAction: [] as string[], ...(payment && options.hostedFields ? hostedFieldsCspSources() : {}) };
    const extra =
      provider && !payment
        ? ANALYTICS_CSP_SOURCES[provider]
        : { scriptSrc: hosted.scriptSrc, connectSrc: hosted.connectSrc, imgSrc: [] as string[], frameSrc: hosted.frameSrc };
    const extraScriptSources = payment ? [] : operatorScriptSources;
    return helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          baseUri: ["'self'"],
          scriptSrc: isDev ? ["'self'", "'unsafe-inline'"] : ["'self'", ...(options.nonce ? [nonce] : []), ...extra.scriptSrc, ...extraScriptSources],
          styleSrc: isDev ? ["'self'", "'unsafe-inline'"] : ["'self'", ...(options.nonce ? [nonce] : [])],
          imgSrc: ["'self'", "data:", ...extra.imgSrc],
          fontSrc: ["'self'"],
          connectSrc: isDev ? ["'self'", "ws:"] : ["'self'", ...extra.connectSrc, ...extraScriptSources],
          frameSrc: extra.frameSrc.length ? (payment ? ["'self'", ...extra.frameSrc] : extra.frameSrc) : ["'self'"],
          formAction: ["'self'", ...hosted.formAction, ...(options.console ? [publicSiteSource] : [])],
          frameAncestors: ["'none'"],
          objectSrc: ["'none'"],
          upgradeInsecureRequests: isHttpsProduction ? [] : null,
        },
      },
      strictTransportSecurity: isHttpsProduction,
      crossOriginEmbedderPolicy: false,
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    });
  }
  /**
   * The same headers for static files (server.js serves them before this app): no nonce, since a
   * static file has no inline code of ours.
   */
  const staticFiles = securityHeaders(null, { nonce: false });

  const securityHeadersFor = {
    none: securityHeaders(null),
    gtag: securityHeaders("gtag"),
    gtm: securityHeaders("gtm"),
    // The payment pages, with Stripe's hosts when Stripe takes some location's cards (decision 383).
    payment: securityHeaders("payment", { nonce: true, hostedFields: true }),
    console: securityHeaders("payment", { nonce: true, permissions: CONSOLE_PERMISSIONS_POLICY, console: true }),
    // Pages that take a password or carry a token (decision 464): the payment pages' policy, no third party at all.
    password: securityHeaders("payment", { nonce: true }),
  };

  /** The headers of the page this request renders (`res.locals.page`), or of the website's analytics provider. */
  const forPage: Middleware = (req, res, next) => {
    const website = res.locals.website as Website | null;
    if ((res.locals.page as MatchedPage | undefined)?.paymentPage) return securityHeadersFor.payment(req, res, next);
    if ((res.locals.page as MatchedPage | undefined)?.passwordPage) return securityHeadersFor.password(req, res, next);
    // The back office: no operator or third-party code (the payment pages' strict policy), never indexed.
    if ((res.locals.page as MatchedPage | undefined)?.consolePage) {
      res.set("X-Robots-Tag", CONSOLE_ROBOTS);
      return securityHeadersFor.console(req, res, next);
    }
    const tag = parseAnalyticsId(website?.analyticsId);
    return securityHeadersFor[tag?.provider ?? "none"](req, res, next);
  };

  /** Applies the security headers (the CSP: analytics provider) of the website given, as drafted in preview. */
  function forWebsite(req: Request, res: Response, website: Website | null): Promise<void> {
    const tag = parseAnalyticsId(website?.analyticsId);
    return new Promise((resolve, reject) => securityHeadersFor[tag?.provider ?? "none"](req, res, (error?: unknown) => (error ? reject(error) : resolve())));
  }

  return {
    staticFiles,
    /** Without a website's analytics provider (a page when the website row could not be read). */
    none: securityHeadersFor.none,
    forPage,
    forWebsite,
  };
}
