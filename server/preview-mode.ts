/**
 * Preview mode (issue 24, docs/decisions/315-preview-mode.md, 316, 317, 351): a page of the public
 * site as a draft would make it, for the staff member who asked, never stored and never indexed.
 */
import { RouterContextProvider } from "react-router";
import type { NextFunction, Request, Response } from "express";
import type { Database } from "~/db/client.server";
import { readWebsite } from "~/db/queries/cached-reads.server";
import type { Website } from "~/db/queries/site.server";
import { isPreviewablePath, PREVIEW_CACHE_CONTROL, PREVIEW_FORM_REFUSED, PREVIEW_ROBOTS } from "~/domain/content/preview";
import { now as clockNow } from "~/platform/clock.server";
import { documentHtml } from "~/platform/document-html.server";
import { logger } from "~/platform/logger.server";
import { clearPreviewCookieHeader, hasPreviewCookie, PreviewApplyError, PreviewTimeoutError, readPreview, withDraftApplied } from "~/services/content/preview.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { resolveRedirect } from "~/services/site/redirects.server";
import { fetchRequest } from "./fetch-request";
import type { HandleRequest } from "./react-router-handler";
import { canonicalRedirect } from "./redirects";
import type { MatchedPage } from "./route-match";

/** What the preview middleware leaves in `res.locals.previewOn` and `res.locals.preview`. */
export interface PreviewLocals {
  draftId: number | null;
}

/**
 * A request with the preview cookie is a preview only with the staff session it was set in (valid,
 * `content.edit`); any other preview cookie is ignored and cleared. Such a request is never anonymous
 * (the staff cookie), so the page cache neither serves nor stores it. Decided before the security
 * headers, the host guard and the redirects, because a draft changes what each of them does (decision
 * 351): `previewOn` (preview is on: old domains as drafted) and `preview` (this page is previewed:
 * redirects, CSP and the page itself as drafted). The rental, reservation, payment and portal flows
 * and the console are never previewed.
 */
export function previewCookie(db: Database) {
  return async (req: Request, res: Response, next: NextFunction) => {
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
  };
}

/**
 * A form sent to a previewed page is refused (decision 316): nothing a visitor can do is done during
 * a preview. (Whether this request is a preview was decided before the security headers.)
 */
export function refuseFormsInPreview(req: Request, res: Response, next: NextFunction) {
  if (!res.locals.preview || req.method === "GET" || req.method === "HEAD") return next();
  sendPreviewPage(res, 409, "Forms are off in preview", PREVIEW_FORM_REFUSED);
}

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

/** A draft that cannot be applied (409) or a preview past its time (503): our own short page; true when answered. */
export function answerPreviewFailure(error: unknown, req: Request, res: Response, draftId: number | null): boolean {
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

/**
 * A previewed page (decisions 315, 351): everything that depends on the site's data is decided inside
 * one transaction that applies the draft — the redirect rules (then the one-spelling redirect, as for
 * the live site), the website row and so the CSP (the analytics provider), the page itself with the
 * operator's code as drafted — with the request context's database set to that transaction and no
 * site cache; the answer is buffered, then the transaction is rolled back. Never stored anywhere
 * (`no-store, private`, redirects too), never indexed; pages carry the banner.
 */
export function previewAnswer(deps: {
  db: Database;
  handleRequest: HandleRequest;
  /** Applies the security headers of the website given (as drafted). */
  applySecurityHeaders: (req: Request, res: Response, website: Website | null) => Promise<void>;
}) {
  const { db, handleRequest, applySecurityHeaders } = deps;
  return async function sendPreview(req: Request, res: Response, draftId: number | null) {
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
  };
}

/** Answers a previewed page (see `previewAnswer`). */
export type SendPreview = ReturnType<typeof previewAnswer>;
