/**
 * The one rule for which locations the public site shows (issue 40, decision 620): a location added
 * from the console exists in the live tables from the moment it is saved (so its hours, photos,
 * storage software and go-live check can be set up), but stays off the public site until the draft
 * that sets `is_published` is published. Every public read of locations goes through this condition;
 * preview applies the draft first, so it shows the new location (tests/unit/published-locations.test.ts
 * checks the public reads use it).
 */
import { eq } from "drizzle-orm";
import { locations } from "~/db/schema/location";

export const publishedLocation = eq(locations.isPublished, true);
