/**
 * The SiteLink adapter (issue 11 §3): the StorageSoftware port on SiteLink's CallCenterWs SOAP
 * service (docs: the SiteLink study; decisions 110-114).
 *
 * Parts: inventory and holds (./inventory.ts, ./holds.ts, ./sync.ts) here; rentals and tenants
 * (move-in, reservations, journal, reconciliation, ledgers, payments, autopay, move-out) in their
 * own modules, wired below. Nothing outside app/storage-software/ imports this file: callers get
 * the adapter from `storageFor` (../index.server.ts).
 */
import type { Database } from "~/db/client.server";
import { logger } from "~/logger.server";
import type { StorageSoftware } from "../port";
import type { LocationRef } from "../port";
import { NotSupportedError } from "../errors";
import { createSiteLinkClient, type SiteLinkCall, type SiteLinkLog } from "./client";
import type { OperationContract } from "./contract";
import contractJson from "./operations.json";
import { siteLinkHolds } from "./holds";
import { siteLinkInventory } from "./inventory";
import type { MoveInGateway } from "./move-in";
import { siteLinkRentals } from "./rentals";
import { siteLinkReservations } from "./reservations";
import type { SiteLinkSettings } from "./settings";

/** The checked-in operation contract (operations.json). */
export const operationContract = contractJson as unknown as OperationContract;

export interface SiteLinkAdapterOptions {
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
export interface SiteLinkDeps {
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

const notYet = (method: string) => async (): Promise<never> => {
  throw new NotSupportedError(`${method} is not available online at this location yet (SiteLink adapter)`);
};

export function createSiteLinkAdapter(db: Database, location: LocationRef, options: SiteLinkAdapterOptions): StorageSoftware {
  const deps = siteLinkDeps(db, location, options);
  return {
    kind: "sitelink",
    ...siteLinkInventory(deps),
    ...siteLinkHolds(deps),
    // Rentals and tenants: wired to their modules as they land.
    ...siteLinkRentals({ ...deps, gateway: options.gateway }),
    ...siteLinkReservations(deps),
    authenticateTenant: notYet("authenticateTenant"),
    findTenantByEmail: notYet("findTenantByEmail"),
    getTenant: notYet("getTenant"),
    verifyTenantPassword: notYet("verifyTenantPassword"),
    setTenantPassword: notYet("setTenantPassword"),
    updateTenantContact: notYet("updateTenantContact"),
    updateTenantPhone: notYet("updateTenantPhone"),
    listTenantLeases: notYet("listTenantLeases"),
    getTenantLease: notYet("getTenantLease"),
    getLedger: notYet("getLedger"),
    listSavedCards: notYet("listSavedCards"),
    makePayment: notYet("makePayment"),
    quotePrepay: notYet("quotePrepay"),
    prepay: notYet("prepay"),
    getReceipt: notYet("getReceipt"),
    enrolAutopay: notYet("enrolAutopay"),
    cancelAutopay: notYet("cancelAutopay"),
    giveMoveOutNotice: notYet("giveMoveOutNotice"),
    // SiteLink bills its own leases (study §8.4); option B's billing is the payments module's.
    billLeases: async () => ({ billedBy: "software", leases: [], failed: [] }),
  };
}

export { loadSiteLinkSettings, chooseAdapter, type SiteLinkSettings } from "./settings";
export { syncInventory, syncRates, availabilityAsOf } from "./sync";
