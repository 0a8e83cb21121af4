/**
 * The SiteLink adapter (issue 11 §3): the StorageSoftware port on SiteLink's CallCenterWs SOAP
 * service (docs: the SiteLink study; decisions 110-113).
 *
 * Parts: inventory and holds (./inventory.ts, ./holds.ts, ./sync.ts) here; rentals and tenants
 * (move-in, reservations, journal, reconciliation, ledgers, payments, autopay, move-out) in their
 * own modules, wired below. Nothing outside app/storage-software/ imports this file: callers get
 * the adapter from `storageFor` (../index.server.ts).
 */
import type { Database } from "~/db/client.server";
import { logger } from "~/platform/logger.server";
import type { StorageSoftware } from "../port";
import type { LocationRef } from "../port";
import { createSiteLinkClient, type SiteLinkCall, type SiteLinkLog } from "./client";
import type { OperationContract } from "./contract";
import contractJson from "./operations.json";
import { goLiveState } from "./go-live";
import { siteLinkHolds } from "./holds";
import { siteLinkInventory } from "./inventory";
import type { MoveInGateway } from "./move-in";
import { siteLinkRentals } from "./rentals";
import { siteLinkReservations } from "./reservations";
import { siteLinkTenants } from "./tenants";
import { siteLinkOfficeTenants } from "./office-tenants";
import type { SiteLinkSettings } from "./settings";

/** The checked-in operation contract (operations.json). */
const operationContract = contractJson as unknown as OperationContract;

interface SiteLinkAdapterOptions {
  settings: SiteLinkSettings;
  /** The clock (the caller passes the app's, FAKE_NOW aware; adapters may not import services). */
  now?: () => Date;
  fetch?: typeof fetch;
  log?: SiteLinkLog;
  contract?: OperationContract;
  /** Our payment gateway (the app's): charges under option B ("gateway"), refunds, autopay tokens. */
  gateway?: MoveInGateway;
}


/** What every part of the adapter is built from. */
interface SiteLinkDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
  settings: SiteLinkSettings;
  now: () => Date;
  log: SiteLinkLog;
}

export function siteLinkDeps(db: Database, location: LocationRef, options: SiteLinkAdapterOptions): SiteLinkDeps {
  const log = options.log ?? logger;
  const client = createSiteLinkClient({
    endpoint: options.settings.endpoint,
    credentials: options.settings.credentials,
    contract: options.contract ?? operationContract,
    readTimeoutMs: options.settings.readTimeoutMs,
    writeTimeoutMs: options.settings.writeTimeoutMs,
    fetch: options.fetch,
    log,
  });
  return { db, location, call: client.call, settings: options.settings, now: options.now ?? (() => new Date()), log };
}

export function createSiteLinkAdapter(db: Database, location: LocationRef, options: SiteLinkAdapterOptions): StorageSoftware {
  const deps = siteLinkDeps(db, location, options);
  return {
    kind: "sitelink",
    ...siteLinkInventory(deps),
    ...siteLinkHolds(deps),
    ...siteLinkRentals({ ...deps, gateway: options.gateway }),
    ...siteLinkReservations(deps),
    ...siteLinkTenants(deps),
    ...siteLinkOfficeTenants(deps),
    // Option A: SiteLink's processor charges the typed card; option B: our gateway (decision 116).
    cardsChargedBy: async () => (options.settings.cardChargedBy === "gateway" ? "gateway" : "software"),
    // Only through a passed sitelink:verify with the current settings (issue 37, decision 470).
    goLive: async () => {
      const { live, reason } = await goLiveState(db, location.id);
      return { live, reason };
    },
  };
}

