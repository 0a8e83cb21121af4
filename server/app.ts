import "react-router";
import { createRequestHandler } from "@react-router/express";
import express, { type NextFunction, type Request, type Response } from "express";
import crypto from "node:crypto";
import helmet from "helmet";
import { getDatabase, type Database } from "~/db/client.server";
import { resolveRedirect } from "~/services/site-redirects.server";
import { getWebsite, type Website } from "~/db/queries/site.server";
import { ANALYTICS_CSP_SOURCES, parseAnalyticsId, type AnalyticsProvider } from "~/domain/analytics";
import { isPaymentPage } from "~/domain/payment-pages";
import { announceStorageSoftware } from "~/storage-software/index.server";
import { defaultPgliteDir } from "~/db/client.server";
import { startBillingSchedule } from "~/services/billing-run.server";
import { startHousekeeping } from "~/services/housekeeping.server";

declare module "react-router" {
  interface AppLoadContext {
    db: Database;
    /** Per-request CSP nonce for the few inline scripts and styles we render. */
    cspNonce: string;
    /** The client's IP address (behind the configured proxies). */
    clientIp: string;
    /** The website row the server read for this request (undefined: not read yet). */
    website?: Website | null;
  }
}

const { db } = getDatabase();
void announceStorageSoftware(db);
// The daily billing run (docs/decisions/053-billing-run.md); safe with several processes.
startBillingSchedule(db, { pgliteDir: process.env.DATABASE_URL ? null : defaultPgliteDir() });
// Expired reservations and idle checkouts are released every few minutes (docs/decisions/042-reservations.md).
startHousekeeping(db);

export const app = express();

app.use((_req, res, next) => {
  res.locals.cspNonce = crypto.randomBytes(16).toString("base64");
  next();
});

const nonce = (_req: unknown, res: unknown) => `'nonce-${(res as Response).locals.cspNonce}'`;
const operatorScriptSources = (process.env.CSP_EXTRA_SCRIPT_SRC ?? "").split(/\s+/).filter(Boolean);
const isDev = process.env.NODE_ENV === "development";
const isHttpsProduction = process.env.NODE_ENV === "production" && process.env.HTTPS !== "false";

/**
 * Security headers, with the extra CSP sources the website's analytics provider needs (if any) and the
 * operator's CSP_EXTRA_SCRIPT_SRC. Payment pages (`"payment"`) get neither: only our own scripts
 * ('self' and the nonce) — docs/decisions/075.
 */
function securityHeaders(provider: AnalyticsProvider | null | "payment") {
  const payment = provider === "payment";
  const extra = provider && !payment ? ANALYTICS_CSP_SOURCES[provider] : { scriptSrc: [], connectSrc: [], imgSrc: [], frameSrc: [] };
  const extraScriptSources = payment ? [] : operatorScriptSources;
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        scriptSrc: isDev ? ["'self'", "'unsafe-inline'"] : ["'self'", nonce, ...extra.scriptSrc, ...extraScriptSources],
        styleSrc: isDev ? ["'self'", "'unsafe-inline'"] : ["'self'", nonce],
        imgSrc: ["'self'", "data:", ...extra.imgSrc],
        fontSrc: ["'self'"],
        connectSrc: isDev ? ["'self'", "ws:"] : ["'self'", ...extra.connectSrc, ...extraScriptSources],
        frameSrc: extra.frameSrc.length ? extra.frameSrc : ["'self'"],
        formAction: ["'self'"],
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
const securityHeadersFor = {
  none: securityHeaders(null),
  gtag: securityHeaders("gtag"),
  gtm: securityHeaders("gtm"),
  payment: securityHeaders("payment"),
};

// Liveness for load balancers and the test runner: answered before any database read.
app.get("/healthz", (_req, res) => {
  res.set("Cache-Control", "no-store").type("text/plain").send("ok");
});

// The website row, read once per page request: it decides the CSP (analytics) and the redirects,
// and the loaders reuse it (context.website).
app.use(async (_req, res, next) => {
  try {
    res.locals.website = await getWebsite(db);
    next();
  } catch (error) {
    next(error);
  }
});

app.use((req, res, next) => {
  const website = res.locals.website as Website | null;
  if (isPaymentPage(req.path)) return securityHeadersFor.payment(req, res, next);
  const tag = parseAnalyticsId(website?.analyticsId);
  return securityHeadersFor[tag?.provider ?? "none"](req, res, next);
});

// Permanent redirects (spec §2): old domains and old paths, before any page renders.
app.use(async (req, res, next) => {
  if (req.method !== "GET" && req.method !== "HEAD") return next();
  try {
    const url = new URL(req.originalUrl, "http://placeholder");
    const found = await resolveRedirect(
      db,
      { host: req.headers.host, pathname: url.pathname, search: url.search },
      res.locals.website as Website | null,
    );
    if (!found) return next();
    res.set("Cache-Control", "public, max-age=3600");
    return res.redirect(found.status, found.location);
  } catch (error) {
    next(error);
  }
});

app.use(
  createRequestHandler({
    build: () => import("virtual:react-router/server-build"),
    getLoadContext(req, res) {
      return { db, cspNonce: res.locals.cspNonce as string, clientIp: req.ip ?? "", website: res.locals.website as Website | null };
    },
  }),
);

// Last resort: never show a stack trace.
app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
  console.error(error);
  if (res.headersSent) return;
  res
    .status(500)
    .set("Cache-Control", "no-store")
    .type("html")
    .send(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Something went wrong</title></head><body><main><h1>Something went wrong</h1><p>Sorry, we could not show this page. Please try again in a moment, or call the office.</p><p><a href="/">Go to the home page</a></p></main></body></html>',
    );
});

