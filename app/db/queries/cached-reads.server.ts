/**
 * The reads public pages make on every request, through the per-process site cache when the server
 * gave the request one (app/db/site-cache.server.ts, docs/decisions/120-site-cache.md). Every table
 * behind these reads has the `gatehouse_changed` trigger (migration 0003), so a change anywhere
 * drops them. Keys are fixed or per row id, never chosen by a visitor: the cache cannot grow.
 */
import type { Database } from "~/db/client.server";
import { cachedRead, type CacheContext } from "~/db/site-cache.server";
import type { ContentItemTag } from "~/db/schema";
import { getAccount, getSiteLayout, getWebsite, type Website } from "./site.server";
import { getLocationPageById, listLocations } from "./locations.server";
import { getContentItems, getPage } from "./content.server";
import { listUnitsLocations } from "./units-locations.server";
import { nextAvailabilityChange } from "./availability-changes.server";

type ReadContext = CacheContext & { db: Database };
type Account = NonNullable<Awaited<ReturnType<typeof getAccount>>>;

export const readWebsite = (ctx: ReadContext) => cachedRead(ctx, "website", () => getWebsite(ctx.db));

export const readAccount = (ctx: ReadContext, accountId: number) => cachedRead(ctx, `account:${accountId}`, () => getAccount(ctx.db, accountId));

/** The page chrome (null without a site). */
export const readSiteLayout = (ctx: ReadContext, known: { website: Website; account: Account } | null) =>
  known ? cachedRead(ctx, `layout:${known.website.id}`, () => getSiteLayout(ctx.db, known)) : Promise.resolve(null);

/** Every location of the account with its address, live ones first (shared: do not change the rows). */
export const readLocations = (ctx: ReadContext, accountId: number) => cachedRead(ctx, `locations:${accountId}`, () => listLocations(ctx.db, accountId));

/**
 * A location page's stored content by slug, or null. The slug is looked up in the account's location
 * list first, so an unknown slug costs no query and adds no entry.
 */
export async function readLocationPage(ctx: ReadContext, accountId: number, slug: string) {
  const lower = slug.toLowerCase();
  const found = (await readLocations(ctx, accountId)).find((l) => l.urlSlug === lower);
  if (!found) return null;
  return cachedRead(ctx, `locationPage:${found.id}`, () => getLocationPageById(ctx.db, found.id));
}

export const readContentItems = (ctx: ReadContext, accountId: number, tag: ContentItemTag) =>
  cachedRead(ctx, `content:${accountId}:${tag}`, () => getContentItems(ctx.db, accountId, tag));

/** A content page by its fixed slug (routes pass a literal, never a visitor's value). */
export const readPage = (ctx: ReadContext, accountId: number, slug: "portable-storage") =>
  cachedRead(ctx, `page:${accountId}:${slug}`, () => getPage(ctx.db, accountId, slug));

export const readUnitsLocations = (ctx: ReadContext, accountId: number) =>
  cachedRead(ctx, `unitsLocations:${accountId}`, () => listUnitsLocations(ctx.db, accountId));

/**
 * When availability next changes without a write (a hold or reservation running out): kept until
 * that moment or the next change, whichever comes first.
 */
export const readNextAvailabilityChange = (ctx: ReadContext) =>
  cachedRead(ctx, "nextAvailabilityChange", () => nextAvailabilityChange(ctx.db), {
    validUntil: (at) => at ?? Number.POSITIVE_INFINITY,
  });
