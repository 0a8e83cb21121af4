import "react-router";
import { createRequestHandler } from "@react-router/express";
import express, { type NextFunction, type Request, type Response } from "express";
import crypto from "node:crypto";
import helmet from "helmet";
import { getDatabase, type Database } from "~/db/client.server";
import { resolveRedirect } from "~/services/site-redirects.server";
import { getWebsite, type Website } from "~/db/queries/site.server";
import { ANALYTICS_CSP_SOURCES, parseAnalyticsId, type AnalyticsProvider } from "~/domain/analytics";
import { announceStorageSoftware } from "~/storage-software/index.server";
import { defaultPgliteDir } from "~/db/client.server";
import { startBillingSchedule } from "~/services/billing-run.server";
import { startHousekeeping } from "~/services/housekeeping.server";
import { isDatabaseUnavailable, outageReason } from "~/db/unavailable";
import { RETRY_AFTER, unavailablePageHtml } from "~/services/unavailable-page.server";
import { isStagingHost, STAGING_ROBOTS_HEADER } from "~/domain/staging";

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

const database = getDatabase();
const { db } = database;
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
const extraScriptSources = (process.env.CSP_EXTRA_SCRIPT_SRC ?? "").split(/\s+/).filter(Boolean);
const isDev = process.env.NODE_ENV === "development";
const isHttpsProduction = process.env.NODE_ENV === "production" && process.env.HTTPS !== "false";

/** Security headers, with the extra CSP sources the website's analytics provider needs (if any). */
function securityHeaders(provider: AnalyticsProvider | null) {
  const extra = provider ? ANALYTICS_CSP_SOURCES[provider] : { scriptSrc: [], connectSrc: [], imgSrc: [], frameSrc: [] };
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
};

// Liveness for load balancers and the test runner: answered before any database read.
app.get("/healthz", (_req, res) => {
  res.set("Cache-Control", "no-store").type("text/plain").send("ok");
});

// Readiness: 503 while the database cannot be reached, so a load balancer takes this process out.
app.get("/readyz", async (_req, res) => {
  res.set("Cache-Control", "no-store").type("text/plain");
  try {
    await Promise.race([database.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error("ping timeout")), 1_500).unref())]);
    res.send("ready");
  } catch (error) {
    res.status(503).set("Retry-After", RETRY_AFTER).send(`not ready: database unreachable (${outageReason(error)})`);
  }
});

/** 503 in the site's layout with Retry-After, never a 500 (issue 14). */
function sendUnavailable(req: Request, res: Response) {
  if (res.headersSent) return res.end();
  const website = res.locals.website as Website | null | undefined;
  const send = () =>
    res
      .status(503)
      .set("Retry-After", RETRY_AFTER)
      .set("Cache-Control", "no-store")
      .type("html")
      .send(unavailablePageHtml({ nonce: res.locals.cspNonce as string, afterForm: req.method === "POST", siteName: website?.websiteName }));
  // Security headers too (the website row, which picks them, may be what could not be read).
  return securityHeadersFor.none(req, res, send);
}

// The website row, read once per page request: it decides the CSP (analytics) and the redirects,
// and the loaders reuse it (context.website).
app.use(async (req, res, next) => {
  try {
    res.locals.website = await getWebsite(db);
    next();
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      console.warn(`[db] unavailable: ${req.method} answered 503 (${outageReason(error)})`);
      return sendUnavailable(req, res);
    }
    next(error);
  }
});

// The staging domain is never indexed: every response on it says so (decision 093).
app.use((req, res, next) => {
  const website = res.locals.website as Website | null;
  if (isStagingHost(req.headers.host, website?.stagingDomain)) res.set("X-Robots-Tag", STAGING_ROBOTS_HEADER);
  next();
});

app.use((req, res, next) => {
  const website = res.locals.website as Website | null;
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
app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
  if (isDatabaseUnavailable(error)) return sendUnavailable(req, res);
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


/** Closes the database pool (after the HTTP server has stopped taking requests). */
export async function shutdown(): Promise<void> {
  await database.close();
}
