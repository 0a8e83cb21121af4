/**
 * The console on an origin of its own (issue 36, docs/decisions/450-console-origin.md): Express
 * middleware, kept apart from its wiring (server/hosts.ts, which reads the website's origins) so a test can mount it on a
 * plain Express app.
 *
 * - On the public site's hosts, the staff cookie is taken out of the request before anything reads it,
 *   and `/admin…` is never served: a GET or HEAD is sent to the same path on the console's origin,
 *   anything else is answered 404.
 * - On the console's host, only the console: `/` goes to `/admin`; `/media/…` (the site's images the
 *   console shows) is served; any other path is sent to the public origin (GET, HEAD) or 404. Every
 *   request whose fetch metadata do not say it comes from the console itself is refused (403), unless
 *   it is a top-level navigation to a page (`consoleRequestAllowed`).
 * The redirects' addresses are the configured origins, never the Host header.
 */
import type { NextFunction, Request, Response } from "express";
import { consoleRequestAllowed, isConsolePath } from "~/domain/console/origin";
import { sendPlainPage } from "./guards";

interface ConsoleGateOptions {
  /** The console's configured origin for this request. */
  consoleOrigin: (req: Request, res: Response) => string;
  /** The public site's configured origin (null: no website yet). */
  publicOrigin: (req: Request, res: Response) => string | null;
  /** Whether the request's Host names the console. */
  isConsoleHost: (host: string | undefined, req: Request, res: Response) => boolean;
  /** The staff cookie's base name (`gh_staff`); its `__Host-` form is taken out too. */
  staffCookie: string;
}

/** A Cookie header without the named cookie (plain and `__Host-` forms); undefined when nothing is left. */
export function withoutCookie(header: string | undefined, base: string): string | undefined {
  if (!header) return header;
  const kept = header
    .split(";")
    .map((p) => p.trim())
    .filter((p) => p && !new RegExp(`^(?:__Host-)?${base}=`).test(p));
  return kept.length ? kept.join("; ") : undefined;
}

export function consoleGate(options: ConsoleGateOptions) {
  return (req: Request, res: Response, next: NextFunction) => {
    const q = req.originalUrl.indexOf("?");
    const pathname = q === -1 ? req.originalUrl : req.originalUrl.slice(0, q);
    const read = req.method === "GET" || req.method === "HEAD";
    if (!options.isConsoleHost(req.headers.host, req, res)) {
      // The public site never sees a staff session, whatever the browser sends.
      const cookie = withoutCookie(req.headers.cookie, options.staffCookie);
      if (cookie === undefined) delete req.headers.cookie;
      else req.headers.cookie = cookie;
      if (!isConsolePath(pathname)) return next();
      if (!read) return sendPlainPage(res, 404, "Page not found", "There is no page at this address.");
      res.set("Cache-Control", "no-store");
      return res.redirect(302, `${options.consoleOrigin(req, res)}${req.originalUrl}`);
    }
    res.locals.consoleHost = true;
    const consoleOrigin = options.consoleOrigin(req, res);
    const header = (name: string) => {
      const v = req.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const allowed = consoleRequestAllowed({
      method: req.method,
      secFetchSite: header("sec-fetch-site"),
      secFetchMode: header("sec-fetch-mode"),
      secFetchDest: header("sec-fetch-dest"),
      origin: header("origin"),
      consoleOrigin,
    });
    if (!allowed) {
      return sendPlainPage(res, 403, "Not allowed", "The back office answers only its own pages. Open it from its address.", { Vary: "Sec-Fetch-Site, Sec-Fetch-Mode, Sec-Fetch-Dest, Origin" });
    }
    if (isConsolePath(pathname) || pathname.startsWith("/media/")) return next();
    if (pathname === "/" && read) {
      res.set("Cache-Control", "no-store");
      return res.redirect(302, "/admin");
    }
    const publicOrigin = options.publicOrigin(req, res);
    if (!read || !publicOrigin) return sendPlainPage(res, 404, "Page not found", "The back office has no page at this address.");
    res.set("Cache-Control", "no-store");
    return res.redirect(302, `${publicOrigin}${req.originalUrl}`);
  };
}
