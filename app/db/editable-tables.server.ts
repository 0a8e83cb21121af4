/**
 * Each editable entity's table (issue 24): the database side of app/domain/editable-content.ts.
 * Only app/services/content/changesets.server.ts (and the publish) reads this map: everything else edits
 * through a changeset.
 */
import type { PgTable } from "drizzle-orm/pg-core";
import type { EditableEntityName } from "~/domain/content/editable";
import {
  accounts,
  addresses,
  amenities,
  contentItems,
  hoursBlocks,
  hoursItems,
  locationImages,
  locations,
  menus,
  navMenuItems,
  oldDomains,
  pages,
  redirects,
  specialHours,
  unitTypes,
  websites,
} from "~/db/schema";

export const EDITABLE_TABLES = {
  website: websites,
  account: accounts,
  menu: menus,
  menuItem: navMenuItems,
  page: pages,
  contentItem: contentItems,
  redirect: redirects,
  oldDomain: oldDomains,
  location: locations,
  address: addresses,
  hoursBlock: hoursBlocks,
  hoursItem: hoursItems,
  specialHours,
  amenity: amenities,
  locationImage: locationImages,
  unitType: unitTypes,
} satisfies Record<EditableEntityName, PgTable>;

