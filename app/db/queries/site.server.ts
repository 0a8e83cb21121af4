import { and, asc, eq, inArray } from "drizzle-orm";
import { publishedLocation } from "./published-locations";
import type { Database } from "~/db/client.server";
import { accounts, locations, menus, navMenuItems, websites } from "~/db/schema";
import { buildMenuTree, type MenuItem } from "~/domain/site/menu";
import { parseAccountGlobalSettings } from "~/domain/shared/account-settings";
import { siteWidePaymentLink, withPayBillLink } from "~/domain/payments/pay-bill-link";

/** The operator's website. One operator per deployment: the first website row. */
export async function getWebsite(db: Database) {
  const [website] = await db.select().from(websites).orderBy(asc(websites.id)).limit(1);
  return website ?? null;
}
export type Website = NonNullable<Awaited<ReturnType<typeof getWebsite>>>;

export async function getAccount(db: Database, accountId: number) {
  const account = await db.query.accounts.findFirst({ where: eq(accounts.id, accountId) });
  if (!account) return null;
  return { ...account, globalSettings: parseAccountGlobalSettings(account.globalSettings) };
}

interface Menu {
  name: string;
  heading: string;
  items: MenuItem[];
}

/** Every menu of the website by name, each as a nested tree. */
async function getMenus(db: Database, websiteId: number): Promise<Record<string, Menu>> {
  const menuRows = await db.select().from(menus).where(eq(menus.websiteId, websiteId));
  if (menuRows.length === 0) return {};
  const itemRows = await db
    .select()
    .from(navMenuItems)
    .where(inArray(navMenuItems.menuId, menuRows.map((m) => m.id)));
  return Object.fromEntries(
    menuRows.map((m) => [
      m.name,
      { name: m.name, heading: m.heading, items: buildMenuTree(itemRows.filter((i) => i.menuId === m.id)) },
    ]),
  );
}

/**
 * What the layout of every page reads of each location (the `locations` cache tag, decision 570): the
 * draft's diff renders every page again only when a draft changes one of these (decision 631).
 */
export const LAYOUT_LOCATION_COLUMNS = {
  name: locations.name,
  urlSlug: locations.urlSlug,
  status: locations.status,
  phoneNumber: locations.phoneNumber,
  externalPaymentLink: locations.externalPaymentLink,
};

/**
 * Everything the page chrome (announcement bar, navbar, footer, styles) needs. `known` is the
 * website and account already read for this request (requireSite), so they are not read again.
 */
export async function getSiteLayout(
  db: Database,
  known?: { website: Website; account: NonNullable<Awaited<ReturnType<typeof getAccount>>> } | null,
) {
  const website = known ? known.website : await getWebsite(db);
  if (!website) return null;
  const [account, menuMap, locationRows] = await Promise.all([
    known ? known.account : getAccount(db, website.accountId),
    getMenus(db, website.id),
    db
      .select(LAYOUT_LOCATION_COLUMNS)
      .from(locations)
      .where(and(eq(locations.accountId, website.accountId), publishedLocation))
      .orderBy(asc(locations.id)),
  ]);
  if (!account) return null;
  // Pay Bill goes to the external payment site when every live location pays there (decision 090).
  const payLink = siteWidePaymentLink(locationRows);
  const menusWithPayBill = Object.fromEntries(
    Object.entries(menuMap).map(([name, menu]) => [name, { ...menu, items: withPayBillLink(menu.items, payLink) }]),
  );
  return {
    website: {
      websiteName: website.websiteName,
      domain: website.domain,
      analyticsId: website.analyticsId,
      logo: website.logo,
      footerLogo: website.footerLogo,
      globalStyles: website.globalStyles,
      navComponent: website.navComponent,
      footerComponent: website.footerComponent,
      customCss: website.customCss,
      customJs: website.customJs,
      customHeaderCode: website.customHeaderCode,
      customBodyCode: website.customBodyCode,
    },
    account: {
      name: account.name,
      tagline: account.tagline,
      isRentalsEnabled: account.globalSettings.is_rentals_enabled,
    },
    menus: menusWithPayBill,
    locations: locationRows.map(({ externalPaymentLink: _link, ...l }) => l),
    /** The shared contact phone number: the first location's (spec: the same for all locations). */
    phoneNumber: locationRows[0]?.phoneNumber ?? "",
  };
}
export type SiteLayout = NonNullable<Awaited<ReturnType<typeof getSiteLayout>>>;
