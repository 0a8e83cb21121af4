import type { Database } from "~/db/client.server";
import type { Software } from "~/db/schema/location";
import type { StorageSoftware } from "./port";
import { createLocalAdapter } from "./local";

export interface LocationRef {
  id: number;
  name: string;
  software: Software;
  status: "Live" | "Coming Soon";
}

/**
 * The one factory: the storage software of a location, picked by its `software` field.
 * Until the SiteLink adapter exists (no credentials or endpoint here), `sitelink` locations are served
 * by the built-in local adapter, as are `no_api` (coming-soon) ones. See docs/decisions/003-storage-software.md.
 */
export function storageFor(db: Database, location: LocationRef): StorageSoftware {
  switch (location.software) {
    case "sitelink":
    case "no_api":
      return createLocalAdapter(db, location);
  }
}

let logged = false;
/** Says once, at start-up, which locations configured for SiteLink are served by the local adapter. */
export function logStorageSoftwareChoice(locations: LocationRef[]): void {
  if (logged) return;
  logged = true;
  const sitelink = locations.filter((l) => l.software === "sitelink");
  if (sitelink.length) {
    console.warn(
      `[storage-software] ${sitelink.map((l) => l.name).join(", ")}: software is "sitelink", served by the built-in local adapter (no SiteLink adapter configured).`,
    );
  }
}
