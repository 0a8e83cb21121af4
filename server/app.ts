/**
 * The Express app that server.js runs (built by Vite): what this process starts, and the middleware
 * every request goes through, in order. Each piece is a module of its own beside this one.
 */
import express from "express";
import { getDatabase, defaultPgliteDir } from "~/db/client.server";
import { usePgliteAppRole } from "~/db/roles.server";
import { STRIPE_WEBHOOK_PATH } from "~/domain/web/request-rules";
import { envOrExit } from "~/platform/env.server";
import { logger } from "~/platform/logger.server";
import { startPublishScheduler } from "~/services/content/publish.server";
import { startHousekeeping } from "~/services/jobs/housekeeping.server";
import { startEmailDelivery } from "~/services/mail/outbox.server";
import { startBillingSchedule } from "~/services/payments/billing-run.server";
import { announceStaffCommand, STAFF_COMMAND_PATH, staffCommandFile } from "~/services/staff/command.server";
import { announceStorageSoftware, stopSiteLinkSync } from "~/storage-software/index.server";
import { cachesOf } from "./caches";
import { lastResort, unavailableAnswer } from "./error-answers";
import { bodyGuard, collapseDoubleSlashes, readableMultipart, requestTargetGuard } from "./guards";
import { liveness, readiness } from "./health";
import { consoleOriginGate, siteHostGuard, stagingNotIndexed } from "./hosts";
import { keptFormsOf } from "./kept-forms";
import { pageAnswer } from "./page-answer";
import { previewAnswer, previewCookie, refuseFormsInPreview } from "./preview-mode";
import { reactRouterOf } from "./react-router-handler";
import { oneSpelling, redirectRules } from "./redirects";
import { cspNonce, securityHeadersOf } from "./security-headers";
import { sharedCacheHeaders } from "./shared-cache";
import { staffCommand } from "./staff-command";
import { testHooksOf } from "./test-hooks";
import { readWebsiteRow } from "./website-row";

export { CONSOLE_PERMISSIONS_POLICY, PERMISSIONS_POLICY } from "./security-headers";

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

// The page, site and form caches, dropped together on every change (server/caches.ts).
const caches = cachesOf(database, serverEnv);
export const { pageCache, siteCache, servePageCacheHit } = caches;
const securityHeaders = securityHeadersOf(serverEnv);
/** The security headers for static files (server.js serves them before this app): no nonce. */
export const staticSecurityHeaders = securityHeaders.staticFiles;
const testHooks = testHooksOf(serverEnv);
const { handleRequest, matchRoute, renderPublicPage } = reactRouterOf(serverEnv.NODE_ENV);
/** The draft diff's renderer (decision 318), for the check that the diff leaves out only pages that do not change (tests/integration/content/preview.test.ts, decision 661). */
export { renderPublicPage };
const sendUnavailable = unavailableAnswer(pageCache, securityHeaders.none);

export const app = express();
// No "X-Powered-By: Express" on any answer (server.js's own app drops it too); routes match their
// path exactly (so "/READYZ" and "/readyz/" are not the readiness check, issue 19).
app.disable("x-powered-by");
app.set("case sensitive routing", true);
app.set("strict routing", true);
// The request target before anything reads it (server.js checks it first too): origin-form, or
// absolute-form made origin-form; anything else 400 (issue 19).
app.use(requestTargetGuard);
app.use(cspNonce);
app.post(STAFF_COMMAND_PATH, staffCommand(db, staffCommandSecret));
app.get("/healthz", liveness);
// The browser tests' hooks (JSON, only with E2E_HOOKS=1 under NODE_ENV=test or the test runner, decision 432).
testHooks.countQueriesPerUrl(app);
// Only on the exact path (case-sensitive, strict routing above): deploy/nginx.conf keeps "/readyz" for
// the monitor, and every other spelling is an ordinary unknown page (404), never the check (issue 19).
app.get("/readyz", readiness(database));
app.use(caches.dropAfterWrites(testHooks.isHooksPath));
// Nothing the cache in front may store while this process is behind on changes (decision 710).
app.use(caches.sharedCacheGuard());
app.use(caches.storedPages());
app.use(readWebsiteRow({ db, siteCache, sendUnavailable }));
// Cache tags on what a shared cache in front may store; nothing personal stored there (decision 572).
app.use(sharedCacheHeaders({ db, siteCache }));
// Before the host guard, the redirects and React Router.
app.use(consoleOriginGate());
app.use(stagingNotIndexed);
app.use(matchRoute);
// Before the security headers, the host guard and the redirects: a draft changes what each does (decision 351).
app.use(previewCookie(db));
app.use(securityHeaders.forPage);
// Doubled slashes ("//faq") collapse before the redirect rules, so //faq ends at /faqs.
app.use(collapseDoubleSlashes);
app.use(siteHostGuard({ db, siteCache }));
// Methods, body type and size (docs/decisions/063-request-guards.md): before any body is parsed.
// JSON only at Stripe's webhook endpoint (what Stripe posts; its signature is the only gate, decision
// 431) and at the browser tests' hooks; every other POST is a form.
app.use(bodyGuard({ jsonOnly: (path) => path === STRIPE_WEBHOOK_PATH, acceptsJson: testHooks.isHooksPath }));
app.use(readableMultipart);
app.use(refuseFormsInPreview);
app.use(redirectRules({ db, siteCache }));
app.use(oneSpelling);
const sendPreview = previewAnswer({ db, handleRequest, applySecurityHeaders: securityHeaders.forWebsite });
const keptForms = keptFormsOf({ db, siteCache, formPages: caches.formPages, pageCacheOn: caches.pageCacheOn });
app.use(pageAnswer({ db, siteCache, handleRequest, renderPublicPage, keptForms, sendPreview }));
app.use(lastResort(sendUnavailable));

/** Closes the database pool (after the HTTP server has stopped taking requests). */
export async function shutdown(): Promise<void> {
  await caches.stopListening();
  // Another process takes the SiteLink sync over at its next check (decision 480).
  await stopSiteLinkSync();
  await database.close();
}
