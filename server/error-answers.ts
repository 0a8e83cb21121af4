/**
 * What a request gets when something fails: the database cannot be reached (503 in the site's layout,
 * issue 14), or anything else (the last resort: 500, never a stack trace).
 */
import type { NextFunction, Request, Response } from "express";
import type { Website } from "~/db/queries/site.server";
import { isDatabaseUnavailable } from "~/db/unavailable";
import { logRequestError } from "~/platform/logger.server";
import { RETRY_AFTER, unavailablePageHtml } from "~/services/web/unavailable-page.server";
import { sendCached, staleCopy, type PageCache } from "./page-cache";
import { answerPreviewFailure, type PreviewLocals } from "./preview-mode";

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/** 503 in the site's layout with Retry-After, never a 500 (issue 14); a stored copy of the page when there is one. */
export function unavailableAnswer(pageCache: PageCache, securityHeaders: Middleware) {
  return function sendUnavailable(req: Request, res: Response) {
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
    return securityHeaders(req, res, send);
  };
}

/** Answers 503 when the database cannot be reached (see `unavailableAnswer`). */
export type SendUnavailable = ReturnType<typeof unavailableAnswer>;

/**
 * Last resort: never show a stack trace. An unreachable database is a 503; a preview's draft that
 * cannot be applied has its own page (`answerPreviewFailure`).
 */
export function lastResort(sendUnavailable: SendUnavailable) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
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
  };
}
