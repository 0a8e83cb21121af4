import "react-router";
import { createRequestHandler, RouterContextProvider } from "react-router";
import { writeReadableStreamToWritable } from "@react-router/node";
import express, { type NextFunction, type Request, type Response } from "express";
import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import helmet from "helmet";
import { countQueries, getDatabase, trackWrites, type Database } from "~/db/client.server";
import { usePgliteAppRole } from "~/db/roles.server";
import { resolveOldDomain, resolveRedirect, type RedirectDecision } from "~/services/site/redirects.server";
import { consoleOrigin, isConsoleHost, isSiteHost, publicOrigin, siteOriginFromConsole } from "~/services/site/origin.server";
import { consoleGate } from "./console-gate";
import { bodyGuard, collapseDoubleSlashes, hostGuard, isReadableForm, refuseBadRequestTarget, requestTargetGuard, sendPlainPage } from "./guards";
import { matchPage, routeTree, type MatchedPage } from "./route-match";
import type { RouteObject, ServerBuild } from "react-router";
import type { Website } from "~/db/queries/site.server";
import { readNextAvailabilityChange, readWebsite } from "~/db/queries/cached-reads.server";
import { SiteCache } from "~/db/site-cache.server";
import { ANALYTICS_CSP_SOURCES, parseAnalyticsId, type AnalyticsProvider } from "~/domain/site/analytics";
import { announceStorageSoftware, stopSiteLinkSync } from "~/storage-software/index.server";
import { defaultPgliteDir } from "~/db/client.server";
import { startBillingSchedule } from "~/services/payments/billing-run.server";
import { startHousekeeping } from "~/services/jobs/housekeeping.server";
import { startPublishScheduler } from "~/services/content/publish.server";
import { isDatabaseBusy, isDatabaseUnavailable, outageReason } from "~/db/unavailable";
import { RETRY_AFTER, unavailablePageHtml } from "~/services/web/unavailable-page.server";
import { PageCache, pageCacheMiddleware, sendCached, serveHit, staleCopy, withoutNonce } from "./page-cache";
import { busySignInKey, csrfFieldValue, escapeAttribute, fillFormPage, FormPageCache, formPageKey, occursOnce, soldOutAnswerKey, type KeptFormPage } from "./form-page-cache";
import { passwordChecksBusy } from "~/platform/password.server";
import { PASSWORD_BUSY_MESSAGE } from "~/services/web/form-outage.server";
import { signInSchema } from "~/domain/portal/forms";
import { startEmailDelivery } from "~/services/mail/outbox.server";
import { logger, logRequestError } from "~/platform/logger.server";
import { documentHtml } from "~/platform/document-html.server";
import { envOrExit } from "~/platform/env.server";
import { hostedFieldsCspSources } from "~/platform/payments/gateway.server";
import { isStagingHost, STAGING_ROBOTS_HEADER } from "~/domain/site/staging";
import { STRIPE_WEBHOOK_PATH } from "~/domain/web/request-rules";
import { CONSOLE_ROBOTS } from "~/domain/console/pages";
import { testHooksEnabled } from "~/testing/hooks.server";
import { announceStaffCommand, answerStaffCommand, commandRequestAllowed, STAFF_COMMAND_PATH, staffCommandFile } from "~/services/staff/command.server";
import { clearPreviewCookieHeader, hasPreviewCookie, PreviewApplyError, PreviewTimeoutError, readPreview, withDraftApplied } from "~/services/content/preview.server";
import type { RenderPublicPage } from "~/services/content/page-diff.server";
import { anonymousCsrfOfForm, csrfCookie, CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { isPreviewablePath, PREVIEW_CACHE_CONTROL, PREVIEW_FORM_REFUSED, PREVIEW_ROBOTS } from "~/domain/content/preview";
import { now as clockNow } from "~/platform/clock.server";

// What the server gives every loader, action and middleware, as fields of React Router's request
// context (its documented migration from AppLoadContext; typed values of our own middleware use
// createContext, e.g. app/services/portal/access.server.ts).
declare module "react-router" {
  interface RouterContextProvider {
    db: Database;
    /** Per-request CSP nonce for the few inline scripts and styles we render. */
    cspNonce: string;
    /** The client's IP address (behind the configured proxies). */
    clientIp: string;
    /** The website row the server read for this request (undefined: not read yet). */
    website?: Website | null;
    /** The per-process cache of layout, settings and redirects (absent: every read goes to the database). */
    siteCache?: SiteCache;
    /** Set when a read fell back to a value kept from before a database outage: the page is not stored. */
    staleData?: boolean;
    /** The matched route is a payment page's (`handle.paymentPage`, decision 190): no operator code. */
    paymentPage?: boolean;
    /** The matched route is a console page's (`handle.consolePage`, issue 23): no operator code, no site chrome. */
    consolePage?: boolean;
    /** The matched route takes a password or carries a token (`handle.passwordPage`, decision 464): no operator code. */
    passwordPage?: boolean;
    /**
     * Set only while a page is rendered in preview (issue 24, decision 315): what the banner's "Leave
     * preview" form needs. The root layout draws the banner when it is there.
     */
    preview?: { csrfToken: string; returnTo: string };
    /** Console pages only: renders a public path through this app on a given database, without HTTP (the draft's diff, decision 318). */
    renderPublicPage?: RenderPublicPage;
  }
}

// Refuse to start on a configuration that cannot work (e.g. production on PostgreSQL without SESSION_SECRET).
/** The environment, checked before anything else runs (a bad value: a clear message, exit 1). server.js reads its settings from here too. */
export const serverEnv = envOrExit();
const database = getDatabase();
// PGlite: the server works as the app's role that db:setup made, which cannot change the audit trail
// (decision 462; on PostgreSQL, DATABASE_URL is that role). The first statement on its one connection.
if (database.driver === "pglite") usePgliteAppRole(database).catch((error: unknown) => logger.warn({ err: error }, "[db] could not work as the app's role"));
// The pool's connections opened now, not in the first rush (decision 205); an unreachable database is
// no reason not to start.
void database.warm?.();
const { db } = database;
void announceStorageSoftware(db);
// The daily billing run (docs/decisions/053-billing-run.md); safe with several processes.
startBillingSchedule(db, { pgliteDir: serverEnv.DATABASE_URL ? null : defaultPgliteDir() });
// Expired reservations and idle checkouts are released every few minutes (docs/decisions/042-reservations.md).
startHousekeeping(db);
// Scheduled publishes of the website's changesets (issue 24, decision 313); safe with several processes.
startPublishScheduler(db);
// Unsent mail is retried with backoff until sent or two days old (docs/decisions/070-outbox-delivery.md).
startEmailDelivery(db);
// `npm run staff:invite` asks this server when it runs (decision 249): a command file beside the
// database with this process's port and a fresh secret.
const staffCommandSecret = announceStaffCommand(staffCommandFile(defaultPgliteDir()), serverEnv.PORT ?? 3000);

export const app = express();
// No "X-Powered-By: Express" on any answer (server.js's own app drops it too); routes match their
// path exactly (so "/READYZ" and "/readyz/" are not the readiness check, issue 19).
app.disable("x-powered-by");
app.set("case sensitive routing", true);
app.set("strict routing", true);
// The request target before anything reads it (server.js checks it first too): origin-form, or
// absolute-form made origin-form; anything else 400 (issue 19).
app.use(requestTargetGuard);

app.use((_req, res, next) => {
  res.locals.cspNonce = crypto.randomBytes(16).toString("base64");
  next();
});

const nonce = (_req: unknown, res: unknown) => `'nonce-${(res as Response).locals.cspNonce}'`;
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
export const staticSecurityHeaders = securityHeaders(null, { nonce: false });

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

// The staff invite command's endpoint (decision 249): loopback only, no proxy headers, the secret of
// the command file. Anything else is answered as if the path did not exist.
app.post(STAFF_COMMAND_PATH, (req, res, next) => {
  if (!commandRequestAllowed({ remoteAddress: req.socket.remoteAddress, headers: req.headers, secret: staffCommandSecret })) return next();
  answerStaffCommand(db, req, res).catch(next);
});

// Liveness for load balancers and the test runner: answered before any database read.
app.get("/healthz", (_req, res) => {
  res.set("Cache-Control", "no-store").type("text/plain").send("ok");
});

// The browser tests' hooks (JSON, only with E2E_HOOKS=1 under NODE_ENV=test or the test runner, decision 432).
const testHooksOn = testHooksEnabled(serverEnv);

// Test hook (issue 10): how many statements each recent request for a URL sent (oldest first), the
// page cache's storing step included. A GET, so asking does not drop the caches as a POST hook would.
if (testHooksOn) {
  const counts = new Map<string, Array<{ count: number; statements: string[] }>>();
  app.get("/__test/query-count", (req, res) => {
    res.set("Cache-Control", "no-store").json(counts.get(String(req.query.url ?? "")) ?? []);
  });
  app.use((req, _res, next) => {
    const counter = { count: 0, statements: [] as string[] };
    if (counts.size > 200) counts.clear();
    const list = counts.get(req.originalUrl) ?? [];
    if (list.length < 50) list.push(counter);
    counts.set(req.originalUrl, list);
    countQueries.run(counter, next);
  });
}

// Readiness: 503 while the database cannot be reached, so a load balancer takes this process out.
// Only on the exact path (case-sensitive, strict routing above): deploy/nginx.conf keeps "/readyz" for
// the monitor, and every other spelling is an ordinary unknown page (404), never the check (issue 19).
// The same rule as every request (decision 205): a busy pool waits its turn like a visitor does, and
// only a database that cannot be reached, or a connection queue past its stated bounds, answers 503.
// The ping bounds itself (queue wait, connect timeout, a 1 s statement). The answer never names the
// database's host or port; the log line says why.
app.get("/readyz", async (req, res) => {
  res.set("Cache-Control", "no-store").type("text/plain");
  try {
    await database.ping();
    res.send("ready");
  } catch (error) {
    const what = isDatabaseBusy(error) ? "database busy" : "database unreachable";
    logger.warn({ method: req.method, reason: outageReason(error) }, `[db] ${what}: readiness answered 503`);
    res.status(503).set("Retry-After", RETRY_AFTER).send(`not ready: ${what}`);
  }
});

// The page cache (issue 10, docs/decisions/081-page-cache.md): anonymous GETs of public pages are
// served from memory without a database read. The site cache (decision 120): the layout, settings,
// redirect rules and other operator-edited rows every render reads. Both are dropped whole on every
// write of this process and on the database's change notification (other processes, scripts, the
// seed), and when the listening connection is made (again): a change may have been missed meanwhile.
export const pageCache = new PageCache();
export const siteCache = new SiteCache();
// The rental form as a visitor without cookies first sees it, rendered once for many (decision 330).
const formPages = new FormPageCache();
const pageCacheOn = serverEnv.PAGE_CACHE !== "off";
const invalidateCaches = () => {
  pageCache.invalidate();
  siteCache.invalidate();
  formPages.invalidate();
};
const stopListening = database.listen("gatehouse_changed", invalidateCaches, invalidateCaches);
// This process's own writes, seen by its next request: a form request that sent a statement changing
// a table a public page reads drops both caches when it finishes (issue 19, decision 191). A refused
// request (405, 415, 400, a form with errors) wrote nothing and drops nothing; the notification
// above still covers every write, this process's included.
app.use((req, res, next) => {
  // A GET that writes (a rental page releasing expired reservations) is left to the notification,
  // which comes only for rows that really changed (migration 0006): its sweep statement is sent on
  // every view, mostly changing nothing.
  if (req.method === "GET" || req.method === "HEAD") return next();
  // The browser tests' hooks (test builds only) may change what a page shows outside the database
  // (the clock, a simulator): they always drop the caches, as every POST used to.
  const tracker = { wrote: testHooksOn && req.path === "/__test/hooks" };
  res.on("finish", () => {
    if (tracker.wrote) invalidateCaches();
  });
  trackWrites.run(tracker, next);
});
app.use(
  pageCacheMiddleware(pageCache, {
    enabled: () => pageCacheOn,
    nextChange: () => readNextAvailabilityChange({ db, siteCache }),
  }),
);
/**
 * server.js calls this first for every request, before Express, compression and the static files:
 * a stored page is answered straight from memory (true), anything else goes on through the stack.
 */
export function servePageCacheHit(req: IncomingMessage, res: ServerResponse): boolean {
  if (refuseBadRequestTarget(req, res)) return true;
  return pageCacheOn && serveHit(pageCache, req, res);
}

/** 503 in the site's layout with Retry-After, never a 500 (issue 14); a stored copy of the page when there is one. */
function sendUnavailable(req: Request, res: Response) {
  if (res.headersSent) return res.end();
  const copy = staleCopy(pageCache, req);
  if (copy) return sendCached(req, res, copy, { stale: true });
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
    const read: { db: Database; siteCache: SiteCache; staleData?: boolean } = { db, siteCache };
    res.locals.website = await readWebsite(read);
    res.locals.staleData = read.staleData === true;
    next();
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      logger.warn({ method: req.method, reason: outageReason(error) }, "[db] unavailable: answered 503");
      return sendUnavailable(req, res);
    }
    next(error);
  }
});

// The console on an origin of its own (issue 36, decision 450): the public hosts never see the staff
// cookie and send /admin… to the console's origin; the console's host serves the console only and
// refuses what its own pages did not ask for (fetch metadata). Before the host guard, the redirects and React Router.
app.use(
  consoleGate({
    consoleOrigin: (_req, res) => consoleOrigin(res.locals.website as Website | null),
    publicOrigin: (_req, res) => siteOriginFromConsole(res.locals.website as Website | null),
    isConsoleHost: (host, _req, res) => isConsoleHost(host, res.locals.website as Website | null),
    staffCookie: "gh_staff",
  }),
);

// The staging domain is never indexed: every response on it says so (decision 093).
app.use((req, res, next) => {
  const website = res.locals.website as Website | null;
  if (isStagingHost(req.headers.host, website?.stagingDomain)) res.set("X-Robots-Tag", STAGING_ROBOTS_HEADER);
  next();
});

// Which route renders this request (decision 190): a payment route gets the payment headers whatever
// the spelling of its path, and React Router's context says so to the root loader.
let builtRoutes: RouteObject[] | undefined;
async function routesOfBuild(): Promise<RouteObject[]> {
  if (builtRoutes) return builtRoutes;
  const tree = routeTree(((await loadBuild()) as ServerBuild).routes);
  if (!import.meta.env.DEV) builtRoutes = tree;
  return tree;
}
app.use(async (req, res, next) => {
  try {
    res.locals.page = matchPage(await routesOfBuild(), req.originalUrl);
    next();
  } catch (error) {
    next(error);
  }
});

// Preview mode (issue 24, docs/decisions/315-preview-mode.md, 316, 317, 351). A request with the
// preview cookie is a preview only with the staff session it was set in (valid, `content.edit`); any
// other preview cookie is ignored and cleared. Such a request is never anonymous (the staff cookie), so
// the page cache neither serves nor stores it. Decided here, before the security headers, the host
// guard and the redirects, because a draft changes what each of them does (decision 351):
// `previewOn` (preview is on: old domains as drafted) and `preview` (this page is previewed: redirects,
// CSP and the page itself as drafted). The rental, reservation, payment and portal flows and the
// console are never previewed.
app.use(async (req, res, next) => {
  if (!hasPreviewCookie(req.headers.cookie)) return next();
  const website = res.locals.website as Website | null;
  const page = res.locals.page as MatchedPage | undefined;
  if (!website || page?.consolePage) return next();
  try {
    const request = new globalThis.Request("http://localhost/", { headers: { cookie: req.headers.cookie ?? "" } });
    const found = await readPreview(db, request, { accountId: website.accountId, now: clockNow(), ip: req.ip || null });
    if (found.state === "ignored") {
      res.append("Set-Cookie", await clearPreviewCookieHeader());
      return next();
    }
    if (found.state === "off" || page?.paymentPage) return next();
    res.locals.previewOn = { draftId: found.draftId };
    const pathname = new URL(req.originalUrl, "http://placeholder").pathname;
    if (isPreviewablePath(pathname)) res.locals.preview = { draftId: found.draftId };
    next();
  } catch (error) {
    next(error);
  }
});

app.use((req, res, next) => {
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
});

// Doubled slashes ("//faq") collapse before the redirect rules, so //faq ends at /faqs.
app.use(collapseDoubleSlashes);

// Only requests for this website (docs/decisions/060-configured-origin-and-hosts.md): old domains
// keep their 301s, other hosts go to the same path on the canonical origin (or 400).
app.use(
  hostGuard({
    isAllowed: (host, _req, res) => isSiteHost(host, res.locals.website as Website | null),
    canonicalOrigin: (_req, res) => {
      const website = res.locals.website as Website | null;
      return website ? publicOrigin(website) : null;
    },
    oldDomainRedirect: async (host, req, res) => {
      const search = req.originalUrl.includes("?") ? req.originalUrl.slice(req.originalUrl.indexOf("?")) : "";
      // In preview, the old domains as drafted (decision 351): read in a rolled-back transaction, no site cache.
      const draftId = (res.locals.previewOn as PreviewLocals | undefined)?.draftId;
      const found =
        draftId == null
          ? await resolveOldDomain(db, { host, search }, res.locals.website as Website | null, { siteCache })
          : await withDraftApplied(db, draftId, async (tx) => resolveOldDomain(tx, { host, search }, await readWebsite({ db: tx })));
      return found?.location ?? null;
    },
    oldDomainCacheControl: (res) => {
      if (!res.locals.previewOn) return "public, max-age=3600";
      res.set("X-Robots-Tag", PREVIEW_ROBOTS);
      return PREVIEW_CACHE_CONTROL;
    },
  }),
);

// Methods, body type and size (docs/decisions/063-request-guards.md): before any body is parsed.
// JSON only at Stripe's webhook endpoint (what Stripe posts; its signature is the only gate, decision
// 431) and at the browser tests' hooks; every other POST is a form.
app.use(bodyGuard({ jsonOnly: (path) => path === STRIPE_WEBHOOK_PATH, acceptsJson: (path) => testHooksOn && path === "/__test/hooks" }));
app.use(async (req, res, next) => {
  const body = res.locals.body;
  if (!body || !/^multipart\//i.test(req.headers["content-type"] ?? "")) return next();
  if (await isReadableForm(req.headers["content-type"]!, body)) return next();
  sendPlainPage(res, 400, "Bad request", "This form could not be read. Please go back and send it again.");
});

// A form sent to a previewed page is refused (decision 316): nothing a visitor can do is done during
// a preview. (Whether this request is a preview was decided before the security headers, below.)
app.use((req, res, next) => {
  if (!res.locals.preview || req.method === "GET" || req.method === "HEAD") return next();
  sendPreviewPage(res, 409, "Forms are off in preview", PREVIEW_FORM_REFUSED);
});

/** A short page of our own for a previewed request that cannot be answered (never stored, never indexed). */
function sendPreviewPage(res: Response, status: number, title: string, message: string) {
  res
    .status(status)
    .set({ "Cache-Control": PREVIEW_CACHE_CONTROL, "X-Robots-Tag": PREVIEW_ROBOTS })
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1><p>${message}</p><p><a href="/admin/preview">Leave preview</a> · <a href="/admin/changes">Changes waiting to be published</a></p></main></body></html>`,
    );
}

// Permanent redirects (spec §2): old paths, before any page renders.
// A previewed page's redirects are the draft's, decided in its transaction (sendPreview, decision 351).
app.use(async (req, res, next) => {
  if ((req.method !== "GET" && req.method !== "HEAD") || res.locals.preview) return next();
  try {
    const url = new URL(req.originalUrl, "http://placeholder");
    const found = await resolveRedirect(
      db,
      { host: req.headers.host, pathname: url.pathname, search: url.search },
      res.locals.website as Website | null,
      { siteCache },
    );
    if (!found) return next();
    // Not forced: the page at this path wins; only a 404 is redirected (after rendering, below).
    if (!found.forced) {
      res.locals.unforcedRedirect = found;
      return next();
    }
    res.set("Cache-Control", "public, max-age=3600");
    return res.redirect(found.status, found.location);
  } catch (error) {
    next(error);
  }
});

// One spelling per page (decision 190): a path React Router would render under another spelling
// ("/RENT/12/", "/Customer-Portal/units/2/pay") is sent to the route table's own, query kept: 301 for
// GET and HEAD, 308 (method and body kept) for a form.
// A previewed page: after the draft's redirects, in sendPreview.
function canonicalRedirect(req: Request, res: Response): { status: number; location: string } | null {
  const canonical = (res.locals.page as MatchedPage | undefined)?.canonicalPath;
  if (!canonical) return null;
  const q = req.originalUrl.indexOf("?");
  const read = req.method === "GET" || req.method === "HEAD";
  return { status: read ? 301 : 308, location: canonical + (q === -1 ? "" : req.originalUrl.slice(q)) };
}
app.use((req, res, next) => {
  const found = res.locals.preview ? null : canonicalRedirect(req, res);
  if (!found) return next();
  res.set("Cache-Control", found.status === 301 ? "public, max-age=3600" : "no-store");
  return res.redirect(found.status, found.location);
});

// React Router. Our own small adapter (after @react-router/express) so the request body is the one
// bodyGuard read and counted, not the socket.
// Given the build as a function, React Router derives its routes and static handler again on every
// request (so the dev server's edits show); given the object, once. The build of a production process
// never changes: there the handler is made once, on the first request (decision 164).
const loadBuild = () => import("virtual:react-router/server-build");
let builtHandler: ReturnType<typeof createRequestHandler> | undefined;
const handleRequest: ReturnType<typeof createRequestHandler> = import.meta.env.DEV
  ? createRequestHandler(loadBuild, serverEnv.NODE_ENV)
  : async (request, context) => {
      builtHandler ??= createRequestHandler(await loadBuild(), serverEnv.NODE_ENV);
      return builtHandler(request, context);
    };

function fetchRequest(req: Request, res: Response): globalThis.Request {
  const headers = new Headers();
  for (const [key, values] of Object.entries(req.headers)) {
    if (values === undefined) continue;
    for (const value of Array.isArray(values) ? values : [values]) headers.append(key, value);
  }
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const url = new URL(`${req.protocol}://${req.headers.host ?? "localhost"}${req.originalUrl}`);
  const body = res.locals.body;
  return new globalThis.Request(url.href, {
    method: req.method,
    headers,
    signal: controller.signal,
    ...(req.method !== "GET" && req.method !== "HEAD" ? { body: body ? new Uint8Array(body) : null } : {}),
  });
}

/**
 * Renders a public path through React Router on the database given (live, or a preview transaction),
 * without HTTP: the draft's diff (decision 318). No site cache: what the database says now.
 */
const renderPublicPage: RenderPublicPage = async (path, renderDb) => {
  const website = await readWebsite({ db: renderDb });
  const url = new URL(path, website ? publicOrigin(website) : "http://localhost");
  const page = matchPage(await routesOfBuild(), `${url.pathname}${url.search}`);
  const context = Object.assign(new RouterContextProvider(), {
    db: renderDb,
    cspNonce: crypto.randomBytes(16).toString("base64"),
    clientIp: "127.0.0.1",
    website,
    siteCache: undefined,
    staleData: false,
    paymentPage: page.paymentPage === true,
    consolePage: page.consolePage === true,
  });
  const response = await handleRequest(new globalThis.Request(url.href), context);
  const html = documentHtml.get(response);
  return { status: response.status, body: html ?? (await response.text()) };
};

/** A draft that cannot be applied (409) or a preview past its time (503): our own short page; true when answered. */
function answerPreviewFailure(error: unknown, req: Request, res: Response, draftId: number | null): boolean {
  if (error instanceof PreviewApplyError) {
    logger.warn({ err: error.cause, draftId }, "[preview] the draft cannot be applied");
    sendPreviewPage(res, 409, "This draft cannot be previewed", "One of its changes no longer fits the live site. Open the changes waiting to be published to fix or discard it.");
    return true;
  }
  if (error instanceof PreviewTimeoutError) {
    logger.warn({ draftId, url: req.originalUrl }, "[preview] took too long: rolled back");
    sendPreviewPage(res, 503, "The preview took too long", "Please try again in a moment.");
    return true;
  }
  return false;
}

/** What the preview middleware leaves in `res.locals.previewOn` and `res.locals.preview`. */
interface PreviewLocals {
  draftId: number | null;
}

/** Applies the security headers (the CSP: analytics provider) of the website given, as drafted in preview. */
function applySecurityHeaders(req: Request, res: Response, website: Website | null): Promise<void> {
  const tag = parseAnalyticsId(website?.analyticsId);
  return new Promise((resolve, reject) => securityHeadersFor[tag?.provider ?? "none"](req, res, (error?: unknown) => (error ? reject(error) : resolve())));
}

/**
 * A previewed page (decisions 315, 351): everything that depends on the site's data is decided inside
 * one transaction that applies the draft — the redirect rules (then the one-spelling redirect, as for
 * the live site), the website row and so the CSP (the analytics provider), the page itself with the
 * operator's code as drafted — with the request context's database set to that transaction and no
 * site cache; the answer is buffered, then the transaction is rolled back. Never stored anywhere
 * (`no-store, private`, redirects too), never indexed; pages carry the banner.
 */
async function sendPreview(req: Request, res: Response, draftId: number | null) {
  const request = fetchRequest(req, res);
  const url = new URL(req.originalUrl, "http://placeholder");
  const answer = async (renderDb: Database, website: Website | null) => {
    const rule = await resolveRedirect(renderDb, { host: req.headers.host, pathname: url.pathname, search: url.search }, website);
    const moved = (rule?.forced ? rule : null) ?? canonicalRedirect(req, res);
    if (moved) return { website, moved } as const;
    const csrf = await getCsrfToken(request);
    const context = Object.assign(new RouterContextProvider(), {
      db: renderDb,
      cspNonce: res.locals.cspNonce as string,
      clientIp: req.ip ?? "",
      website,
      siteCache: undefined,
      staleData: false,
      paymentPage: false,
      consolePage: false,
      preview: { csrfToken: csrf.token, returnTo: req.originalUrl },
    });
    const response = await handleRequest(request, context);
    // A rule that is not forced moves only a path where no page answers.
    if (rule && response.status === 404) {
      await response.body?.cancel();
      return { website, moved: rule } as const;
    }
    const html = documentHtml.get(response);
    const body = html !== undefined ? Buffer.from(html, "utf8") : Buffer.from(await response.arrayBuffer());
    return { website, rendered: { response, body, setCookie: csrf.setCookie } } as const;
  };
  let out: Awaited<ReturnType<typeof answer>>;
  try {
    out =
      draftId === null
        ? await answer(db, res.locals.website as Website | null)
        : await withDraftApplied(db, draftId, async (tx) => answer(tx, await readWebsite({ db: tx })));
  } catch (error) {
    if (answerPreviewFailure(error, req, res, draftId)) return;
    throw error;
  }
  if (res.destroyed || res.writableEnded) return;
  await applySecurityHeaders(req, res, out.website);
  if (out.moved) {
    res.set("Cache-Control", PREVIEW_CACHE_CONTROL).set("X-Robots-Tag", PREVIEW_ROBOTS);
    return res.redirect(out.moved.status, out.moved.location);
  }
  const { response, body, setCookie } = out.rendered;
  if (setCookie) res.append("Set-Cookie", setCookie);
  res.statusMessage = response.statusText;
  res.status(response.status);
  for (const [key, value] of response.headers.entries()) res.append(key, value);
  res.set("Cache-Control", PREVIEW_CACHE_CONTROL).set("X-Robots-Tag", PREVIEW_ROBOTS);
  res.removeHeader("ETag");
  res.end(req.method === "HEAD" ? undefined : body);
}

app.use(async (req, res, next) => {
  try {
    const preview = res.locals.preview as PreviewLocals | undefined;
    if (preview) return await sendPreview(req, res, preview.draftId);
    const nonce = res.locals.cspNonce as string;
    // Kept pages (decisions 330, 426, 428): never from data kept through an outage, never without a nonce.
    const keeping = pageCacheOn && res.locals.staleData !== true && nonce?.length >= 16;
    /** Sends a kept page with this answer's token and nonce (and typed value, and CSRF cookie), saying so. */
    const sendKept = (page: KeptFormPage, token: string, extra: { typed?: string; setCookie?: string } = {}) => {
      formPages.hits++;
      res.status(page.status);
      for (const [key, value] of page.headers) res.append(key, value);
      if (extra.setCookie) res.append("Set-Cookie", extra.setCookie);
      res.set("X-Form-Page", "kept");
      res.end(fillFormPage(page, token, nonce, extra.typed));
    };
    // A visitor without cookies opening a rental form: the form rendered once, with this answer's own
    // CSRF token, cookie and nonce (decision 330).
    const formKey = keeping ? formPageKey(req) : null;
    const kept = formKey ? formPages.get(formKey) : undefined;
    if (kept) {
      const csrf = await getCsrfToken(fetchRequest(req, res));
      if (csrf.setCookie) return sendKept(kept, csrf.token, { setCookie: csrf.setCookie });
    }
    // A visitor with no session or checkout sending the details step of a unit type whose last
    // answer to such a visitor was "sold out": that answer again, with their own token and this
    // answer's nonce, without React Router or the database (decision 426).
    const answerKey = keeping ? soldOutAnswerKey(req, csrfCookie().name) : null;
    const keptAnswer = answerKey ? formPages.get(answerKey) : undefined;
    if (keptAnswer) {
      const form = formOf(res.locals.body);
      const csrf = form?.get("intent") === "details" ? await anonymousCsrfOfForm(req.headers.cookie, form.get(CSRF_FIELD)) : null;
      if (csrf) return sendKept(keptAnswer, csrf.token);
    }
    // A visitor with no session signing in while the hashing threads are too busy to check a password
    // within the bound: the kept "busy" page with their own token, nonce and e-mail, without React
    // Router (decision 428) — the page the whole sign-in gives then, which counts and reads nothing.
    const signInKey = keeping ? busySignInKey(req, csrfCookie().name) : null;
    const busyPage = signInKey && passwordChecksBusy() ? formPages.get(signInKey) : undefined;
    if (busyPage) {
      const form = formOf(res.locals.body);
      const email = form?.get("email");
      const valid = form && email && signInSchema.safeParse({ email, password: form.get("password"), redirectTo: form.get("redirectTo") ?? undefined }).success;
      const csrf = valid ? await anonymousCsrfOfForm(req.headers.cookie, form.get(CSRF_FIELD)) : null;
      if (csrf && email) return sendKept(busyPage, csrf.token, { typed: `value="${escapeAttribute(email)}"` });
    }
    const formGeneration = formPages.generation;
    const consolePage = (res.locals.page as MatchedPage | undefined)?.consolePage === true;
    const context = Object.assign(new RouterContextProvider(), {
      db,
      cspNonce: res.locals.cspNonce as string,
      clientIp: req.ip ?? "",
      website: res.locals.website as Website | null,
      siteCache,
      staleData: res.locals.staleData === true,
      paymentPage: (res.locals.page as MatchedPage | undefined)?.paymentPage === true,
      passwordPage: (res.locals.page as MatchedPage | undefined)?.passwordPage === true,
      consolePage,
      ...(consolePage ? { renderPublicPage } : {}),
    });
    const response = await handleRequest(fetchRequest(req, res), context);
    if (res.destroyed || res.writableEnded) {
      await response.body?.cancel();
      return;
    }
    // A redirect rule that is not forced: no page answered here, so the old path moves on.
    const unforced = res.locals.unforcedRedirect as RedirectDecision | undefined;
    if (unforced && response.status === 404) {
      await response.body?.cancel();
      res.set("Cache-Control", "public, max-age=3600");
      return res.redirect(unforced.status, unforced.location);
    }
    res.statusMessage = response.statusText;
    res.status(response.status);
    for (const [key, value] of response.headers.entries()) res.append(key, value);
    // Rendered from values kept from before a database outage: shown, never stored.
    if (context.staleData) res.set("Cache-Control", "no-store").set("X-Page-Cache", "stale");
    // React Router answers 405 for a POST to a page with no form; say what the page does accept.
    if (response.status === 405 && !response.headers.has("Allow")) res.set("Allow", "GET, HEAD");
    // A document entry.server.tsx rendered: its HTML string, without reading the web stream back.
    const html = documentHtml.get(response);
    if (formKey && html !== undefined && response.status === 200 && !context.staleData) keepFormPage(formKey, formGeneration, response, html, nonce);
    if (answerKey && html !== undefined && response.status === 409 && !context.staleData) keepSoldOutAnswer(answerKey, formGeneration, response, html, nonce);
    if (signInKey && html !== undefined && response.status === 429 && !context.staleData) keepBusySignIn(signInKey, formGeneration, response, html, nonce, res.locals.body);
    if (html !== undefined) res.end(mayBeStoredByAnyCache(res) ? withoutNonceForCaches(res, html) : html);
    else if (response.body) await writeReadableStreamToWritable(response.body, res);
    else res.end();
  } catch (error) {
    next(error);
  }
});

/**
 * Whether an answer may be stored by any cache on the way (issue 36, decision 461): a 200 whose
 * Cache-Control says `public` (or gives shared caches an `s-maxage`) and that sets no cookie.
 */
function mayBeStoredByAnyCache(res: Response): boolean {
  const cacheControl = String(res.getHeader("Cache-Control") ?? "");
  if (res.statusCode !== 200 || res.getHeader("Set-Cookie") !== undefined) return false;
  if (/\b(?:no-store|private)\b/i.test(cacheControl) || !/\b(?:public|s-maxage)\b/i.test(cacheControl)) return false;
  return /^text\/html/i.test(String(res.getHeader("Content-Type") ?? ""));
}

/**
 * A page any cache may store carries hashes, never a nonce, from its first answer (issue 36, decision
 * 461): a shared cache (a CDN, a proxy) that kept the first answer would otherwise hand one nonce to
 * every later visitor, and a nonce known in advance protects nothing. The same rewrite the page cache
 * makes before storing (decision 081): each inline script and style that carried this answer's nonce
 * is allowed by its SHA-256 hash instead.
 */
function withoutNonceForCaches(res: Response, html: string): string {
  const csp = res.getHeader("Content-Security-Policy");
  if (typeof csp !== "string") return html;
  const cleaned = withoutNonce(html, csp);
  res.setHeader("Content-Security-Policy", cleaned.csp);
  return cleaned.html;
}

/** Keeps a rendered rental form (decision 330) when it is one: a CSRF field and its cookie, the nonce in it. */
function keepFormPage(key: string, generation: number, response: globalThis.Response, html: string, nonce: string) {
  const token = csrfFieldValue(html, CSRF_FIELD);
  if (!token || !response.headers.has("Set-Cookie") || !html.includes(nonce)) return;
  const headers = [...response.headers.entries()].filter(([name]) => name.toLowerCase() !== "set-cookie");
  void readNextAvailabilityChange({ db, siteCache }).then(
    (nextChange) => formPages.set(key, generation, { status: response.status, headers, html, token, nonce }, nextChange),
    () => undefined,
  );
}

/** The urlencoded form the body guard read (res.locals.body), or null. */
function formOf(body: unknown): URLSearchParams | null {
  return Buffer.isBuffer(body) ? new URLSearchParams(body.toString("utf8")) : null;
}

/**
 * Keeps the answer a new visitor's details step got when the unit type could not be rented (decision
 * 426): a 409 from the step's first check (sold out, coming soon, …), which reads no field, so it is
 * the same page for every such visitor apart from the token and the nonce. Not a page that sets a cookie.
 */
function keepSoldOutAnswer(key: string, generation: number, response: globalThis.Response, html: string, nonce: string) {
  if (response.headers.has("Set-Cookie") || !html.includes(nonce)) return;
  const token = csrfFieldValue(html, CSRF_FIELD);
  const headers = [...response.headers.entries()];
  void readNextAvailabilityChange({ db, siteCache }).then(
    (nextChange) => formPages.set(key, generation, { status: response.status, headers, html, token, nonce }, nextChange),
    () => undefined,
  );
}

/**
 * Keeps the page a sign-in got when the hashing threads were too busy (decision 428): a 429 with the
 * busy message (not the rate limit's), no Set-Cookie, the visitor's e-mail once in it (the only thing
 * typed that the page shows; the password never is), so it can be filled in for the next visitor.
 */
function keepBusySignIn(key: string, generation: number, response: globalThis.Response, html: string, nonce: string, body: unknown) {
  if (response.headers.has("Set-Cookie") || !html.includes(nonce) || !html.includes(PASSWORD_BUSY_MESSAGE)) return;
  const email = formOf(body)?.get("email");
  const typed = `value="${escapeAttribute(email ?? "")}"`;
  if (!email || !occursOnce(html, typed)) return;
  const token = csrfFieldValue(html, CSRF_FIELD);
  if (!token) return;
  const headers = [...response.headers.entries()];
  formPages.set(key, generation, { status: response.status, headers, html, token, nonce, typed }, null);
}

// Last resort: never show a stack trace.
app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
  if (isDatabaseUnavailable(error)) return sendUnavailable(req, res);
  // An old domain resolved in preview (the host guard) with a draft that cannot be applied.
  if (!res.headersSent && answerPreviewFailure(error, req, res, (res.locals.previewOn as PreviewLocals | undefined)?.draftId ?? null)) return;
  logRequestError(error, { method: req.method, url: req.originalUrl });
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
  await stopListening();
  // Another process takes the SiteLink sync over at its next check (decision 480).
  await stopSiteLinkSync();
  await database.close();
}
