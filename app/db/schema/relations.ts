import { relations } from "drizzle-orm";
import { accounts, contentItems } from "./account";
import { menus, navMenuItems } from "./menu";
import { websites, redirects, oldDomains } from "./website";
import {
  addresses,
  amenities,
  hoursBlocks,
  hoursItems,
  insurancePlans,
  locationImages,
  locations,
  paymentTypes,
  specialHours,
} from "./location";

export const accountsRelations = relations(accounts, ({ many }) => ({
  websites: many(websites),
  contentItems: many(contentItems),
  locations: many(locations),
}));
export const contentItemsRelations = relations(contentItems, ({ one }) => ({
  account: one(accounts, { fields: [contentItems.accountId], references: [accounts.id] }),
}));
export const websitesRelations = relations(websites, ({ one, many }) => ({
  account: one(accounts, { fields: [websites.accountId], references: [accounts.id] }),
  menus: many(menus),
  redirects: many(redirects),
  oldDomains: many(oldDomains),
}));
export const redirectsRelations = relations(redirects, ({ one }) => ({
  website: one(websites, { fields: [redirects.websiteId], references: [websites.id] }),
}));
export const oldDomainsRelations = relations(oldDomains, ({ one }) => ({
  website: one(websites, { fields: [oldDomains.websiteId], references: [websites.id] }),
  location: one(locations, { fields: [oldDomains.locationId], references: [locations.id] }),
}));
export const menusRelations = relations(menus, ({ one, many }) => ({
  website: one(websites, { fields: [menus.websiteId], references: [websites.id] }),
  navMenuItems: many(navMenuItems),
}));
export const navMenuItemsRelations = relations(navMenuItems, ({ one }) => ({
  menu: one(menus, { fields: [navMenuItems.menuId], references: [menus.id] }),
}));
export const locationsRelations = relations(locations, ({ one, many }) => ({
  account: one(accounts, { fields: [locations.accountId], references: [accounts.id] }),
  address: one(addresses),
  hoursBlocks: many(hoursBlocks),
  specialHours: many(specialHours),
  amenities: many(amenities),
  media: many(locationImages),
  insurancePlans: many(insurancePlans),
  paymentTypes: many(paymentTypes),
  unitTypes: many(unitTypes),
  units: many(units),
}));
export const specialHoursRelations = relations(specialHours, ({ one }) => ({
  location: one(locations, { fields: [specialHours.locationId], references: [locations.id] }),
}));
export const addressesRelations = relations(addresses, ({ one }) => ({
  location: one(locations, { fields: [addresses.locationId], references: [locations.id] }),
}));
export const hoursBlocksRelations = relations(hoursBlocks, ({ one, many }) => ({
  location: one(locations, { fields: [hoursBlocks.locationId], references: [locations.id] }),
  items: many(hoursItems),
}));
export const hoursItemsRelations = relations(hoursItems, ({ one }) => ({
  block: one(hoursBlocks, { fields: [hoursItems.hoursBlockId], references: [hoursBlocks.id] }),
}));
export const amenitiesRelations = relations(amenities, ({ one }) => ({
  location: one(locations, { fields: [amenities.locationId], references: [locations.id] }),
}));
export const locationImagesRelations = relations(locationImages, ({ one }) => ({
  location: one(locations, { fields: [locationImages.locationId], references: [locations.id] }),
}));
export const insurancePlansRelations = relations(insurancePlans, ({ one }) => ({
  location: one(locations, { fields: [insurancePlans.locationId], references: [locations.id] }),
}));
export const paymentTypesRelations = relations(paymentTypes, ({ one }) => ({
  location: one(locations, { fields: [paymentTypes.locationId], references: [locations.id] }),
}));

// Inventory, tenants, leases and billing.
import { unitTypes, units } from "./unit";
import { tenants } from "./tenant";
import { leases } from "./lease";
import { ledgerEntries, payments, savedCards } from "./billing";

export const unitTypesRelations = relations(unitTypes, ({ one, many }) => ({
  location: one(locations, { fields: [unitTypes.locationId], references: [locations.id] }),
  units: many(units),
}));
export const unitsRelations = relations(units, ({ one }) => ({
  unitType: one(unitTypes, { fields: [units.unitTypeId], references: [unitTypes.id] }),
  location: one(locations, { fields: [units.locationId], references: [locations.id] }),
}));
export const tenantsRelations = relations(tenants, ({ many }) => ({
  leases: many(leases),
  savedCards: many(savedCards),
  payments: many(payments),
}));
export const leasesRelations = relations(leases, ({ one, many }) => ({
  tenant: one(tenants, { fields: [leases.tenantId], references: [tenants.id] }),
  unit: one(units, { fields: [leases.unitId], references: [units.id] }),
  location: one(locations, { fields: [leases.locationId], references: [locations.id] }),
  insurancePlan: one(insurancePlans, { fields: [leases.insurancePlanId], references: [insurancePlans.id] }),
  ledgerEntries: many(ledgerEntries),
}));
export const ledgerEntriesRelations = relations(ledgerEntries, ({ one }) => ({
  lease: one(leases, { fields: [ledgerEntries.leaseId], references: [leases.id] }),
  payment: one(payments, { fields: [ledgerEntries.paymentId], references: [payments.id] }),
}));
export const paymentsRelations = relations(payments, ({ one }) => ({
  tenant: one(tenants, { fields: [payments.tenantId], references: [tenants.id] }),
  lease: one(leases, { fields: [payments.leaseId], references: [leases.id] }),
}));
export const savedCardsRelations = relations(savedCards, ({ one }) => ({
  tenant: one(tenants, { fields: [savedCards.tenantId], references: [tenants.id] }),
}));
