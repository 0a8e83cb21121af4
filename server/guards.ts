/**
 * Express middleware that checks a request before any page code runs (issue 8): the host it names,
 * doubled slashes, the method, the body's type and size. Kept apart from the modules that need
 * the Vite build (server/react-router-handler.ts) so the tests can mount them on a plain Express app and send real HTTP requests.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { ALLOWED_METHODS, bodyLimitFor, collapseSlashes, isFormContentType } from "~/domain/web/request-rules";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small plain HTML page for refusals (no stack trace, no database read). */
export function sendPlainPage(res: Response, status: number, title: string, message: string, headers: Record<string, string> = {}) {
  res
    .status(status)
    .set({ "Cache-Control": "no-store", ...headers })
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="/">Go to the home page</a></p></main></body></html>`,
    );
}

/**
 * The request target (RFC 9112 §3.2), before anything else reads it (issue 19). Origin-form
 * ("/faqs?x") passes. Absolute-form ("http://host/path", which a server must accept) becomes
 * origin-form with its authority as the Host, as the RFC says, so the host check, the redirects and
 * the router see an ordinary request. Anything else (asterisk-form "*", authority-form, a bare word)
 * is answered 400 here: never a 500 with a stack trace, never a redirect built from it. Returns true
 * when it answered.
 */
export function refuseBadRequestTarget(req: IncomingMessage, res: ServerResponse): boolean {
  const target = req.url ?? "";
  if (target.startsWith("/")) return false;
  if (/^https?:\/\//i.test(target)) {
    try {
      const url = new URL(target);
      if (!url.username && !url.password && url.host) {
        req.url = url.pathname + url.search;
        req.headers.host = url.host;
        return false;
      }
    } catch {
      // not a URL: refused below
    }
  }
  req.resume();
  res.writeHead(400, {
    "Content-Type": "text/plain; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    Connection: "close",
  });
  res.end("Bad request: the request target must be a path (\"/...\").\n");
  return true;
}

/** The same, as the first Express middleware (the development server, which has no early hook). */
export function requestTargetGuard(req: Request, res: Response, next: NextFunction) {
  if (refuseBadRequestTarget(req, res)) return;
  if (!req.originalUrl.startsWith("/")) req.originalUrl = req.url;
  next();
}

/** The path part of the request target exactly as sent ("//faq?x" → "//faq"). */
function rawPath(req: Request): string {
  const url = req.originalUrl;
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/** GET/HEAD with doubled slashes ("//faq") → 301 to the single-slash path, query kept, before the redirect rules. */
export function collapseDoubleSlashes(req: Request, res: Response, next: NextFunction) {
  if (req.method !== "GET" && req.method !== "HEAD") return next();
  // Only an origin-form path: a redirect is never built from anything else (refuseBadRequestTarget).
  if (!req.originalUrl.startsWith("/")) return next();
  const collapsed = collapseSlashes(rawPath(req));
  if (collapsed === null || !collapsed.startsWith("/") || collapsed.startsWith("//")) return next();
  const q = req.originalUrl.indexOf("?");
  // A path starting "//" has the shape of a scheme-relative (off-site) link: its redirect is not
  // stored by anyone (issue 19); a doubled slash further in is an ordinary typo, cached for an hour.
  res.set("Cache-Control", rawPath(req).startsWith("//") ? "no-store" : "public, max-age=3600");
  return res.redirect(301, collapsed + (q === -1 ? "" : req.originalUrl.slice(q)));
}

/** Every Host and X-Forwarded-Host value the request carries. */
function requestHosts(req: Request): string[] {
  const forwarded = req.headers["x-forwarded-host"];
  const list = [req.headers.host ?? ""];
  for (const v of Array.isArray(forwarded) ? forwarded : forwarded ? [forwarded] : []) list.push(...v.split(",").map((s) => s.trim()));
  return list;
}

interface HostGuardOptions {
  isAllowed(host: string, req: Request, res: Response): boolean;
  /** The canonical origin ("https://www.example.com") for this request's website, or null when unknown. */
  canonicalOrigin(req: Request, res: Response): string | null;
  /** An old domain's permanent redirect (spec §2), when the host is one. */
  oldDomainRedirect?(host: string, req: Request, res: Response): Promise<string | null>;
  /** Cache-Control of an old domain's redirect (default `public, max-age=3600`; a preview's is never stored). */
  oldDomainCacheControl?(res: Response): string;
}

/**
 * Requests must name this website (Host and any X-Forwarded-Host). Old domains keep their 301s;
 * another host gets a 301 to the same path on the canonical origin (GET/HEAD) or a 400.
 */
export function hostGuard(options: HostGuardOptions) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const hosts = requestHosts(req);
      const bad = hosts.find((h) => !options.isAllowed(h, req, res));
      if (bad === undefined) return next();
      if (req.method === "GET" || req.method === "HEAD") {
        const old = hosts.length === 1 && options.oldDomainRedirect ? await options.oldDomainRedirect(bad, req, res) : null;
        if (old) {
          res.set("Cache-Control", options.oldDomainCacheControl?.(res) ?? "public, max-age=3600");
          return res.redirect(301, old);
        }
        const origin = options.canonicalOrigin(req, res);
        const path = collapseSlashes(rawPath(req)) ?? rawPath(req);
        const q = req.originalUrl.indexOf("?");
        if (origin && path.startsWith("/")) {
          res.set("Cache-Control", "no-store");
          return res.redirect(301, origin + path + (q === -1 ? "" : req.originalUrl.slice(q)));
        }
      }
      return sendPlainPage(res, 400, "Bad request", "This address does not belong to this website.");
    } catch (error) {
      next(error);
    }
  };
}

declare module "express-serve-static-core" {
  interface Locals {
    /** The request body, read (and size-checked) by bodyGuard; undefined for GET and HEAD. */
    body?: Buffer;
  }
}

/** What a body over its limit is told: an upload form's limit is in megabytes and a file is to blame. */
function tooLargeMessage(limit: number): string {
  return limit >= 1024 * 1024
    ? `This form can be at most ${Math.floor(limit / 1024 / 1024)} MB. Please choose a smaller file.`
    : `This form can be at most ${Math.floor(limit / 1024)} KB. Please shorten what you typed.`;
}

/**
 * Methods other than GET, HEAD and POST → 405 with Allow. A POST must carry a form (urlencoded or
 * multipart; else 415, or 400 when it has no body at all) no larger than its path's limit: a
 * Content-Length over the limit is refused with 413 before any byte is read, and a chunked body is
 * counted as it arrives and refused the moment it passes the limit. The body read is kept in
 * res.locals.body for the request handler.
 */
export function bodyGuard(
  options: { limitFor?: (pathname: string) => number; acceptsJson?: (pathname: string) => boolean; jsonOnly?: (pathname: string) => boolean } = {},
) {
  const limitFor = options.limitFor ?? bodyLimitFor;
  const jsonOnly = options.jsonOnly ?? (() => false);
  const acceptsJson = (path: string) => jsonOnly(path) || (options.acceptsJson?.(path) ?? false);
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    const allow = ALLOWED_METHODS.join(", ");
    const close = { Connection: "close" };
    if (req.method !== "POST") {
      req.resume();
      return sendPlainPage(res, 405, "Method not allowed", `This address answers ${allow} only.`, { Allow: allow, ...close });
    }
    const length = req.headers["content-length"];
    const chunked = /chunked/i.test(String(req.headers["transfer-encoding"] ?? ""));
    const declared = length === undefined ? null : Number(length);
    if (declared !== null && !Number.isSafeInteger(declared)) {
      return sendPlainPage(res, 400, "Bad request", "The request's Content-Length is not a number.", close);
    }
    if ((declared === null || declared === 0) && !chunked) {
      return sendPlainPage(res, 400, "Bad request", "This form arrived empty. Please go back and send it again.");
    }
    const json = /^application\/json\s*(;|$)/i.test(req.headers["content-type"] ?? "") && acceptsJson(rawPath(req));
    if (!json && jsonOnly(rawPath(req))) {
      req.resume();
      return sendPlainPage(res, 415, "Unsupported body", "This address accepts application/json only.", close);
    }
    if (!json && !isFormContentType(req.headers["content-type"])) {
      req.resume();
      return sendPlainPage(res, 415, "Unsupported form", "This address accepts web forms only (application/x-www-form-urlencoded or multipart/form-data).", close);
    }
    const limit = limitFor(rawPath(req));
    if (declared !== null && declared > limit) {
      return sendPlainPage(res, 413, "Form too large", tooLargeMessage(limit), close);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      req.off("data", onData).off("end", onEnd).off("error", onError);
      if (error) return next(error);
      res.locals.body = Buffer.concat(chunks, size);
      next();
    };
    const onData = (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        req.off("data", onData).off("end", onEnd).off("error", onError);
        req.pause();
        res.on("finish", () => req.socket?.destroySoon?.());
        return sendPlainPage(res, 413, "Form too large", tooLargeMessage(limit), close);
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = (error: unknown) => finish(error);
    req.on("data", onData).on("end", onEnd).on("error", onError);
  };
}

/**
 * A multipart body that does not parse is the client's mistake (400), not ours (500). Checked on
 * a copy so the handler reads the same bytes.
 */
async function isReadableForm(contentType: string, body: Buffer): Promise<boolean> {
  try {
    await new Request("http://body.invalid/", { method: "POST", headers: { "Content-Type": contentType }, body: new Uint8Array(body) }).formData();
    return true;
  } catch {
    return false;
  }
}

/** A multipart body that does not parse: 400, before any page code reads it (`isReadableForm`). */
export async function readableMultipart(req: Request, res: Response, next: NextFunction) {
  const body = res.locals.body;
  if (!body || !/^multipart\//i.test(req.headers["content-type"] ?? "")) return next();
  if (await isReadableForm(req.headers["content-type"]!, body)) return next();
  sendPlainPage(res, 400, "Bad request", "This form could not be read. Please go back and send it again.");
}
