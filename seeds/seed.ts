import { and, eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import {
  accounts,
  addresses,
  amenities,
  contentItems,
  hoursBlocks,
  hoursItems,
  insurancePlans,
  locationImages,
  locations,
  menus,
  navMenuItems,
  oldDomains,
  pages,
  paymentTypes,
  redirects,
  websites,
} from "~/db/schema";
import { locationSlug } from "~/domain/shared/slug";
import { bareHostname, normalizePath, parseRedirectsText } from "~/domain/site/redirects";
import { saveOldDomain, saveRedirect } from "~/services/content/redirects.server";
import * as operator from "./operator";
import { checkSeedRecord } from "./validate";
import { seedDemoUnits } from "./demo-units";
import { disablePublishedDemoPassword, seedDemoTenant } from "./demo-tenant";
import { rawEnv, type EnvSource } from "~/platform/env.server";

interface SeedReport {
  created: string[];
}

/**
 * Seeds the operator's data. Idempotent: each record is looked up by its natural key (client code,
 * slug, menu name, content title, redirect path, hostname) and only created when missing, so a second
 * run changes nothing.
 */
export async function seedDatabase(db: Database, options: { env?: EnvSource } = {}): Promise<SeedReport> {
  const report: SeedReport = { created: [] };
  await db.transaction(async (tx) => {
    const accountId = await seedAccount(tx, report);
    const websiteId = await seedWebsite(tx, accountId, report);
    const locationIds = new Map<string, number>();
    for (const loc of operator.locations) {
      const { id, slug } = await seedLocation(tx, accountId, loc, report);
      locationIds.set(slug, id);
    }
    report.created.push(...(await seedDemoUnits(tx, accountId)));
    report.created.push(...(await seedDemoTenant(tx, accountId, { env: options.env })));
    report.created.push(...(await disablePublishedDemoPassword(tx, accountId, options.env ?? rawEnv())));
    await seedMenus(tx, websiteId, report);
    await seedContent(tx, accountId, report);
    const haveRedirects = new Set(
      (await tx.select({ fromPath: redirects.fromPath }).from(redirects).where(eq(redirects.websiteId, websiteId))).map(
        (r) => r.fromPath,
      ),
    );
    for (const rule of parseRedirectsText(operator.website.redirects)) {
      if (haveRedirects.has(normalizePath(rule.fromPath))) continue;
      await saveRedirect(tx, checkSeedRecord("redirect", { websiteId, ...rule }, rule.fromPath));
      report.created.push(`redirect ${rule.fromPath}`);
    }
    for (const d of operator.oldDomains) {
      const locationId = locationIds.get(d.locationSlug);
      if (!locationId) throw new Error(`Old domain ${d.hostname} points at unknown location ${d.locationSlug}`);
      const found = await tx.query.oldDomains.findFirst({ where: eq(oldDomains.hostname, bareHostname(d.hostname)) });
      if (found) continue;
      await saveOldDomain(tx, checkSeedRecord("oldDomain", { websiteId, hostname: d.hostname, locationId }, d.hostname));
      report.created.push(`old domain ${d.hostname}`);
    }
  });
  return report;
}

async function seedAccount(tx: Transaction, report: SeedReport): Promise<number> {
  const found = await tx.query.accounts.findFirst({ where: eq(accounts.clientCode, operator.account.clientCode) });
  if (found) return found.id;
  const [row] = await tx.insert(accounts).values(checkSeedRecord("account", operator.account, operator.account.name)).returning({ id: accounts.id });
  report.created.push(`account ${operator.account.clientCode}`);
  return row!.id;
}

async function seedWebsite(tx: Transaction, accountId: number, report: SeedReport): Promise<number> {
  const found = await tx.query.websites.findFirst({ where: eq(websites.accountId, accountId) });
  if (found) return found.id;
  const [row] = await tx
    .insert(websites)
    .values(checkSeedRecord("website", { ...operator.website, accountId }, operator.website.domain))
    .returning({ id: websites.id });
  report.created.push(`website ${operator.website.domain}`);
  return row!.id;
}

async function seedLocation(
  tx: Transaction,
  accountId: number,
  loc: operator.SeedLocation,
  report: SeedReport,
): Promise<{ id: number; slug: string }> {
  const slug = locationSlug(loc.address);
  const found = await tx.query.locations.findFirst({ where: eq(locations.urlSlug, slug) });
  if (found) return { id: found.id, slug };
  const extras = operator.locationExtras(loc);
  const [row] = await tx
    .insert(locations)
    .values(checkSeedRecord("location", {
      accountId,
      name: loc.name,
      urlSlug: slug,
      status: loc.status,
      software: loc.software,
      metaDescription: loc.metaDescription,
      chargesToShowAtCheckout: JSON.stringify(loc.charges),
      ...loc.social,
      googleReviewLink: loc.status === "Live" ? "https://search.google.com/local/writereview?placeid=DEMO" : null, // DEMO
      ...extras,
    }, loc.name))
    .returning({ id: locations.id });
  const locationId = row!.id;
  await tx.insert(addresses).values(checkSeedRecord("address", { locationId, ...loc.address, country: "US" }, `${loc.name}'s address`));
  for (const [type, items] of [
    ["gate", loc.gateHours],
    ["office", loc.officeHours],
  ] as const) {
    const [block] = await tx
      .insert(hoursBlocks)
      .values({ locationId, type, isAvailable: true, displayText: type === "gate" ? "Gate hours" : "Office hours" })
      .returning({ id: hoursBlocks.id });
    await tx.insert(hoursItems).values(
      items.map((item) =>
        checkSeedRecord(
          "hoursItem",
          {
            hoursBlockId: block!.id,
            days: item.days,
            open: item.open,
            close: item.close,
            isOpen24Hours: item.isOpen24Hours ?? false,
            isClosed: item.isClosed ?? false,
            idJsonFormattedText: JSON.stringify(item),
          },
          `${loc.name}, ${type} hours ${item.days}`,
        ),
      ),
    );
  }
  if (loc.amenities.length) {
    await tx.insert(amenities).values(loc.amenities.map((label, index) => checkSeedRecord("amenity", { locationId, label, index }, `${loc.name}: ${label}`)));
  }
  await tx.insert(locationImages).values({
    locationId,
    index: 0,
    width: extras.mainImage.width,
    height: extras.mainImage.height,
    type: "image",
    alt: extras.mainImage.alt,
    src: extras.mainImage.src,
    title: extras.mainImage.title,
    fileName: extras.mainImage.file_name,
    fileType: extras.mainImage.file_type,
    fileBaseUrl: extras.mainImage.file_base_url,
  });
  if (loc.insurance) {
    await tx.insert(insurancePlans).values(
      operator.insuranceTiers.map((t) => ({ ...t, locationId, siteId: slug })),
    );
  }
  if (loc.paymentTypes) {
    await tx.insert(paymentTypes).values(operator.cardPaymentTypes.map((p) => ({ ...p, locationId })));
  }
  report.created.push(`location ${slug}`);
  return { id: locationId, slug };
}

async function seedMenus(tx: Transaction, websiteId: number, report: SeedReport) {
  for (const menu of operator.menus) {
    const found = await tx.query.menus.findFirst({
      where: and(eq(menus.websiteId, websiteId), eq(menus.name, menu.name)),
    });
    if (found) continue;
    const [row] = await tx
      .insert(menus)
      .values(checkSeedRecord("menu", { websiteId, name: menu.name, heading: menu.heading }, menu.name))
      .returning({ id: menus.id });
    const insertItems = async (items: operator.SeedMenuItem[], parentId: number | null) => {
      for (const [index, item] of items.entries()) {
        const [inserted] = await tx
          .insert(navMenuItems)
          .values(
            checkSeedRecord(
              "menuItem",
              { menuId: row!.id, parentId, name: item.name, url: item.url, index, isInternal: item.isInternal ?? true, isTargetBlank: item.isTargetBlank ?? false },
              `${menu.name}: ${item.name}`,
            ),
          )
          .returning({ id: navMenuItems.id });
        if (item.children) await insertItems(item.children, inserted!.id);
      }
    };
    await insertItems(menu.items, null);
    report.created.push(`menu ${menu.name}`);
  }
}

async function seedContent(tx: Transaction, accountId: number, report: SeedReport) {
  const existing = await tx
    .select({ title: contentItems.title, tag: contentItems.tag })
    .from(contentItems)
    .where(eq(contentItems.accountId, accountId));
  const have = new Set(existing.map((e) => `${e.tag}\u0000${e.title}`));
  const wanted = [
    ...operator.faqs.map(([title, content], index) => ({ title, content, index, tag: "FAQ" as const })),
    ...operator.storageTips.map(([title, content], index) => ({ title, content, index, tag: "Storage Tip" as const })),
  ].filter((c) => !have.has(`${c.tag}\u0000${c.title}`));
  if (wanted.length) {
    await tx.insert(contentItems).values(wanted.map((c) => checkSeedRecord("contentItem", { ...c, accountId }, c.title)));
    report.created.push(`${wanted.length} content items`);
  }
  const page = await tx.query.pages.findFirst({
    where: and(eq(pages.accountId, accountId), eq(pages.slug, operator.portableStoragePage.slug)),
  });
  if (!page) {
    await tx.insert(pages).values(checkSeedRecord("page", { ...operator.portableStoragePage, accountId }, operator.portableStoragePage.slug));
    report.created.push("page portable-storage");
  }
}
