import { asc } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { locations } from "~/db/schema/location";
import type { LocationRef, StorageSoftware } from "./port";
import { createLocalAdapter } from "./local";
import { logger } from "~/logger.server";

export type { LocationRef };

/**
 * The one factory: the storage software of a location, picked by its `software` field.
 * Until the SiteLink adapter exists (no credentials or endpoint here), `sitelink` locations are served
 * by the built-in local adapter, as are `no_api` (coming-soon) ones. See docs/decisions/030-storage-software-port.md.
 */
export function storageFor(db: Database, location: LocationRef): StorageSoftware {
  switch (location.software) {
    case "sitelink":
    case "no_api":
      return createLocalAdapter(db, location);
  }
}

/** The line the server logs at start-up, or null when no SiteLink location is served locally. */
export function storageSoftwareNotice(list: ReadonlyArray<Pick<LocationRef, "name" | "software">>): string | null {
  const sitelink = list.filter((l) => l.software === "sitelink");
  if (!sitelink.length) return null;
  return `[storage-software] ${sitelink.map((l) => l.name).join(", ")}: software is "sitelink", served by the built-in local adapter (no SiteLink adapter configured).`;
}

let announced: Promise<void> | null = null;

/**
 * Says once per process, at server start-up (server/app.ts), which locations configured for SiteLink
 * are served by the local adapter. Never throws: a database that is not ready yet only skips the notice.
 */
export function announceStorageSoftware(db: Database, log: (line: string) => void = (line) => logger.info(line)): Promise<void> {
  announced ??= (async () => {
    try {
      const rows = await db
        .select({ name: locations.name, software: locations.software })
        .from(locations)
        .orderBy(asc(locations.id));
      const line = storageSoftwareNotice(rows);
      if (line) log(line);
    } catch (error) {
      log(`[storage-software] could not list locations at start-up: ${error instanceof Error ? error.message : String(error)}`);
    }
  })();
  return announced;
}
