/**
 * The page's answer, last in the stack: a previewed page (server/preview-mode.ts), a kept form
 * (server/kept-forms.ts), or the page React Router renders, sent with what the server adds to it (an
 * unforced redirect on a 404, the stale-data and 405 headers, no nonce in a page any cache may store).
 */
import { RouterContextProvider } from "react-router";
import { writeReadableStreamToWritable } from "@react-router/node";
import type { NextFunction, Request, Response } from "express";
import type { Database } from "~/db/client.server";
import type { Website } from "~/db/queries/site.server";
import type { SiteCache } from "~/db/site-cache.server";
import { documentHtml } from "~/platform/document-html.server";
import type { RenderPublicPage } from "~/services/content/page-diff.server";
import type { RedirectDecision } from "~/services/site/redirects.server";
import { fetchRequest } from "./fetch-request";
import type { KeptForms } from "./kept-forms";
import { withoutNonce } from "./page-cache";
import type { PreviewLocals, SendPreview } from "./preview-mode";
import type { HandleRequest } from "./react-router-handler";
import type { MatchedPage } from "./route-match";

export function pageAnswer(deps: {
  db: Database;
  siteCache: SiteCache;
  handleRequest: HandleRequest;
  renderPublicPage: RenderPublicPage;
  keptForms: KeptForms;
  sendPreview: SendPreview;
}) {
  const { db, siteCache, handleRequest, renderPublicPage, keptForms, sendPreview } = deps;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const preview = res.locals.preview as PreviewLocals | undefined;
      if (preview) return await sendPreview(req, res, preview.draftId);
      const keys = await keptForms.answerFromKept(req, res);
      if (!keys) return;
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
      keptForms.keepAnswer(keys, response, html, context.staleData, res.locals.body);
      if (html !== undefined) res.end(mayBeStoredByAnyCache(res) ? withoutNonceForCaches(res, html) : html);
      else if (response.body) await writeReadableStreamToWritable(response.body, res);
      else res.end();
    } catch (error) {
      next(error);
    }
  };
}

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
