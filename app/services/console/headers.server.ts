/**
 * What every console route shares (issue 23): its answers are `no-store` (never in a browser's,
 * a CDN's or the page cache; server/page-cache.ts stores only `public` answers) and carry the
 * cookies the loader or action set.
 */
import { NO_STORE } from "~/domain/web/cache";
import { CONSOLE_ROBOTS } from "~/domain/console/pages";

/** Headers for a console loader's or action's answer: no-store, noindex, and the cookies given. */
export function consoleHeaders(...setCookies: Array<string | null | undefined>): Headers {
  const h = new Headers({ "Cache-Control": NO_STORE, "X-Robots-Tag": CONSOLE_ROBOTS });
  for (const c of setCookies) if (c) h.append("Set-Cookie", c);
  return h;
}

/** The `headers` export of console routes: no-store, noindex, the loader's and action's cookies. */
export function consoleRouteHeaders({ loaderHeaders, actionHeaders, errorHeaders }: { loaderHeaders: Headers; actionHeaders?: Headers | null; errorHeaders?: Headers | null }): Headers {
  const h = new Headers({ "Cache-Control": NO_STORE, "X-Robots-Tag": CONSOLE_ROBOTS });
  for (const source of [loaderHeaders, actionHeaders, errorHeaders]) for (const c of source?.getSetCookie() ?? []) h.append("Set-Cookie", c);
  return h;
}
