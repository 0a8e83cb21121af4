import { data, type RouterContextProvider } from "react-router";
import { readAccount, readWebsite } from "~/db/queries/cached-reads.server";
import { NO_STORE } from "~/domain/web/cache";

const perRequest = new WeakMap<Readonly<RouterContextProvider>, ReturnType<typeof load>>();

async function load(context: Readonly<RouterContextProvider>) {
  // The server's middleware has read the website row for this request already (CSP, redirects).
  const website = context.website !== undefined ? context.website : await readWebsite(context);
  if (!website) return null;
  const account = await readAccount(context, website.accountId);
  if (!account) return null;
  return { website, account };
}

/** The website and account of this request (null when not seeded), read once however many loaders ask. */
export function getSite(context: Readonly<RouterContextProvider>) {
  let pending = perRequest.get(context);
  if (!pending) {
    pending = load(context);
    perRequest.set(context, pending);
  }
  return pending;
}

/**
 * The website and account of this request, read once per request however many loaders ask.
 * A database with no operator data (not seeded) answers 503 rather than a crash.
 */
export async function requireSite(context: Readonly<RouterContextProvider>) {
  const site = await getSite(context);
  if (!site) {
    throw data({ message: "The site has no operator data yet. Run npm run db:seed." }, { status: 503, headers: { "Cache-Control": NO_STORE } });
  }
  return site;
}
