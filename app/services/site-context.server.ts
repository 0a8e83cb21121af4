import { data, type AppLoadContext } from "react-router";
import { getAccount, getWebsite } from "~/db/queries/site.server";
import { NO_STORE } from "~/domain/cache";

const perRequest = new WeakMap<AppLoadContext, ReturnType<typeof load>>();

async function load(context: AppLoadContext) {
  const website = await getWebsite(context.db);
  if (!website) return null;
  const account = await getAccount(context.db, website.accountId);
  if (!account) return null;
  return { website, account };
}

/**
 * The website and account of this request, read once per request however many loaders ask.
 * A database with no operator data (not seeded) answers 503 rather than a crash.
 */
export async function requireSite(context: AppLoadContext) {
  let pending = perRequest.get(context);
  if (!pending) {
    pending = load(context);
    perRequest.set(context, pending);
  }
  const site = await pending;
  if (!site) {
    throw data({ message: "The site has no operator data yet. Run npm run db:seed." }, { status: 503, headers: { "Cache-Control": NO_STORE } });
  }
  return site;
}
