import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { locations } from "./location";
import { tenants } from "./tenant";
import { timestamps } from "./shared";
import type { PromotionTerms } from "~/domain/rental/promotion";

/**
 * Who charges the card at a SiteLink location (study §3.5):
 * - "sitelink" (A): SiteLink's own processor, through MoveInWithDiscount_v7 / PaymentSimpleWithSource;
 * - "gateway" (B): our payment gateway charges (with its idempotency key) and SiteLink records the
 *   payment as cash at move-in / a check payment carrying the gateway reference afterwards.
 */
export const siteLinkCardChargers = ["sitelink", "gateway"] as const;
export type SiteLinkCardCharger = (typeof siteLinkCardChargers)[number];

/**
 * A location's SiteLink connection (issue 11 §3, study §3.1). One row per location served by the
 * SiteLink adapter; a `software: sitelink` location without a row keeps the local adapter.
 *
 * Secrets never sit here in clear: the corp password (and the optional API key, sent as
 * `user:::KEY` in sCorpUserName) come either from an environment variable named in `*_env`, or are
 * stored AES-256-GCM encrypted in `*_encrypted` under SITELINK_SECRET_KEY
 * (app/storage-software/sitelink/secrets.ts). Neither is ever shown on a page or logged.
 */
/** MoveInWithDiscount_v7's iPayMethod id per way of paying, per site (decision 180). */
export interface SiteLinkPayMethodIds {
  card: number;
  cash: number;
  check: number;
}

/** SiteLink's test site LSETUP (LK's notes, evidence §4.9): 0 none, 1 card, 2 cash, 3 check, 4 ACH. */
export const DEFAULT_PAY_METHOD_IDS: SiteLinkPayMethodIds = { card: 1, cash: 2, check: 3 };

export const sitelinkSites = pgTable(
  "sitelink_sites",
  {
    locationId: integer()
      .primaryKey()
      .references(() => locations.id, { onDelete: "cascade" }),
    /** CallCenterWs.asmx URL, e.g. https://api.smdservers.net/CCWs_3.5/CallCenterWs.asmx. */
    endpoint: text().notNull(),
    corpCode: text().notNull(),
    locationCode: text().notNull(),
    /** The corp user name without the API key. */
    corpUser: text().notNull(),
    /** Name of the environment variable holding the corp password. */
    passwordEnv: text(),
    /** "v1.<iv>.<tag>.<ciphertext>" (base64url), AES-256-GCM under SITELINK_SECRET_KEY. */
    passwordEncrypted: text(),
    /** Name of the environment variable holding the API key (optional). */
    apiKeyEnv: text(),
    apiKeyEncrypted: text(),
    /** Who charges the card (study §3.5). */
    cardChargedBy: text({ enum: siteLinkCardChargers }).notNull().default("sitelink"),
    /** bTestMode on move-ins and payments (a SiteLink test site or the simulator). */
    testMode: boolean().notNull().default(false),
    /** The site's PmtTypeID per card brand (PaymentTypesRetrieve), e.g. {"visa":5,"mastercard":6}. */
    cardTypeIds: jsonb().$type<Record<string, number>>().notNull().default({}),
    /**
     * MoveInWithDiscount_v7's iPayMethod ids at this site (the sources disagree: decision 180).
     * Default from SiteLink's test site LSETUP: card 1, cash 2, check 3 (the manual says card 0, check 1, cash 2).
     */
    payMethodIds: jsonb().$type<SiteLinkPayMethodIds>().notNull().default({ card: 1, cash: 2, check: 3 }),
    /** iBillingFrequency the site accepts (per site; 3 = monthly at most sites). */
    billingFrequency: integer().notNull().default(3),
    /** ChannelType of move-in quotes and move-ins: 1 web rate, 0 standard rate. */
    channelType: integer().notNull().default(1),
    /** Per-call timeouts (ms); null = the adapter's defaults (reads 8 s, writes 45 s). */
    readTimeoutMs: integer(),
    writeTimeoutMs: integer(),
    ...timestamps,
  },
  (t) => [
    check("sitelink_sites_password_source", sql`${t.passwordEnv} is not null or ${t.passwordEncrypted} is not null`),
    check("sitelink_sites_card_charged_by", sql`${t.cardChargedBy} in ('sitelink', 'gateway')`),
  ],
);

/**
 * The inventory sync of a SiteLink location (study §8.4): SiteLink's own poll marker
 * (`lngLastTimePolled`, .NET ticks as a decimal string, exactly as returned), when the last
 * incremental and full syncs succeeded, and the last error. `availableAsOf` on pages comes from here.
 */
export const sitelinkSyncState = pgTable("sitelink_sync_state", {
  locationId: integer()
    .primaryKey()
    .references(() => locations.id, { onDelete: "cascade" }),
  /** lngLastTimePolled from UnitsInformation_v3's Table1, sent back on the next incremental poll. */
  lastTimePolled: text(),
  /** When the last successful sync (incremental or full) finished: availability is as of this time. */
  lastSyncedAt: timestamp({ withTimezone: true }),
  lastFullSyncAt: timestamp({ withTimezone: true }),
  lastAttemptAt: timestamp({ withTimezone: true }),
  lastError: text(),
  lastErrorAt: timestamp({ withTimezone: true }),
  consecutiveFailures: integer().notNull().default(0),
  updatedAt: timestamp({ withTimezone: true })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
});

/**
 * The site's discount plans as SiteLink last listed them (issue 40, decisions 672, 673): read with the
 * rates (every 15 minutes and at each full sync), when the console lists them and when a rental is
 * quoted with one. A row is written only when something about the plan changed (its name, what it
 * gives, whether SiteLink still lists it), so a read that finds nothing new notifies no cache. The
 * website words a published promotion from `terms` (never from what the plan gave when it was saved)
 * and offers nothing for a plan no longer `listed` or whose terms cannot be worded for certain
 * (`terms` null, `notOffered` says why).
 */
export const sitelinkDiscountPlans = pgTable(
  "sitelink_discount_plans",
  {
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    /** SiteLink's ConcessionID. */
    concessionId: integer().notNull(),
    name: text().notNull(),
    /** What it gives, in our terms; null when the sources leave it uncertain (then never offered). */
    terms: jsonb().$type<PromotionTerms>(),
    notOffered: text(),
    /** False once SiteLink no longer lists it (removed, disabled or ended there). */
    listed: boolean().notNull().default(true),
    /** When any of the above last changed. */
    changedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.concessionId] })],
);

/**
 * Which server process runs the SiteLink inventory sync (issue 37 point 8, decision 480): one row,
 * claimed with an expiry like billing runs and the mail outbox are claimed. The holder renews it
 * every few seconds while it runs; when it stops (crashed, or shut down and released), another
 * process takes it over once `leasedUntil` has passed, well within a minute.
 */
export const sitelinkSyncLease = pgTable("sitelink_sync_lease", {
  /** Always "sync": one lease for the whole sync. */
  name: text().primaryKey(),
  /** The process holding it (host:pid:random), or "" once released. */
  holder: text().notNull(),
  leasedUntil: timestamp({ withTimezone: true }).notNull(),
  /** When this holder took it (kept while it renews). */
  acquiredAt: timestamp({ withTimezone: true }).notNull(),
});

export const sitelinkWriteStates = ["pending", "done", "failed", "unknown"] as const;
export type SiteLinkWriteState = (typeof sitelinkWriteStates)[number];

/**
 * The write journal (study §3.1, §5, §8.3): one row per non-idempotent SiteLink call, written
 * `pending` and committed BEFORE the request is sent. A timed-out call stays `unknown` until the
 * reconciler reads SiteLink back; it is never resent blindly. `npm run sitelink:status` lists the rows
 * that need attention.
 */
export const sitelinkWrites = pgTable(
  "sitelink_writes",
  {
    idempotencyKey: text().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    /** The SiteLink operation, e.g. MoveInWithDiscount_v7. */
    operation: text().notNull(),
    state: text({ enum: sitelinkWriteStates }).notNull().default("pending"),
    /** A hash of what was sent (no card data), so a retry with other input is told apart. */
    requestFingerprint: text(),
    /** SiteLink's ids once known (TenantID, LedgerID, Receipt, WaitingID ...). */
    externalIds: jsonb().$type<Record<string, string>>().notNull().default({}),
    startedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp({ withTimezone: true }),
    lastError: text(),
    /**
     * Marked resolved at the back office (issue 23, decision 261): the operator checked SiteLink and
     * dealt with the row by hand. The state stays what the journal knows (an unknown outcome is never
     * turned into "done" or "failed" on a person's word); the row leaves the lists of rows needing
     * attention. The note says what was done; the audit trail says who and when, too.
     */
    resolvedAt: timestamp({ withTimezone: true }),
    resolvedByStaffId: integer(),
    resolutionNote: text(),
  },
  (t) => [
    index("sitelink_writes_open_idx").on(t.locationId, t.state, t.startedAt),
    check("sitelink_writes_state", sql`${t.state} in ('pending', 'done', 'failed', 'unknown')`),
  ],
);

/**
 * Our tenant (account-wide identity, password hash) -> the site's SiteLink TenantID (SiteLink tenants
 * are per site; decision 050, study §3.1).
 */
export const tenantSoftwareLinks = pgTable(
  "tenant_software_links",
  {
    tenantId: integer()
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    externalTenantId: text().notNull(),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.locationId] }),
    uniqueIndex("tenant_software_links_external_idx").on(t.locationId, t.externalTenantId),
  ],
);

export const sitelinkGoLiveSources = ["sitelink:verify", "demo seed"] as const;
export type SiteLinkGoLiveSource = (typeof sitelinkGoLiveSources)[number];

/**
 * Each go-live check of a SiteLink location (issue 37, decision 470): a `sitelink:verify` run (or the
 * demo seed's record for the simulator), whether it passed, the fingerprint of the settings it checked
 * (endpoint, corp and location code, pay-method ids, card types: `goLiveFingerprint`) and what it saw
 * (`saw`: the items checked, differing and not checked, the pay method taken; never a secret or the
 * corp user name). Online rentals and payments at the location are on only while its latest check
 * passed with the settings' current fingerprint. `testTenantId`: the SiteLink tenant verify's
 * test-mode move-in uses, reused by the next run.
 */
export const sitelinkGoLiveChecks = pgTable(
  "sitelink_go_live_checks",
  {
    id: serial().primaryKey(),
    locationId: integer()
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    checkedAt: timestamp({ withTimezone: true }).notNull(),
    passed: boolean().notNull(),
    settingsFingerprint: text().notNull(),
    source: text({ enum: sitelinkGoLiveSources }).notNull(),
    saw: jsonb().$type<SiteLinkGoLiveSaw>().notNull(),
    testTenantId: text(),
  },
  (t) => [
    index("sitelink_go_live_checks_location_idx").on(t.locationId, t.checkedAt),
    check("sitelink_go_live_checks_source", sql`${t.source} in ('sitelink:verify', 'demo seed')`),
  ],
);

/** What a go-live check saw (kept with the check; shown by sitelink:status and the back office). */
export interface SiteLinkGoLiveSaw {
  /** Items that differ from what the adapter relies on. */
  differs: string[];
  /** Items the adapter relies on that were not checked, each with the flag that would check it. */
  notChecked: string[];
  /** One line per item checked, e.g. "UnitsInformation_v3: ok". */
  checked: string[];
  payMethod: { configured: SiteLinkPayMethodIds | null; works: number | null; reading: string | null };
  /** The test-mode move-in: unit, ledger and what became of it. */
  testMoveIn: string[];
  note?: string;
  /**
   * Set when SiteLink could not be reached (why): nothing was checked, and the run does not decide the
   * location's go-live state; the latest run that reached SiteLink does (decision 681).
   */
  unreachable?: string;
  /** Each item checked, in the operator's words with what to fix (the console lists them; decision 681). */
  items?: GoLiveItem[];
  /** Settings the check found the site uses where the location's differ or are missing (the console offers to save them). */
  suggested?: GoLiveSuggestions;
  /** Where it was run: `npm run sitelink:verify`, or the console (by whom: the staff member's name). */
  ranFrom?: "command" | "console";
  ranBy?: string | null;
}

/** One item of a go-live check as an operator reads it (decision 681). */
export interface GoLiveItem {
  /** What was checked, in words ("Units and their prices"). */
  label: string;
  result: "passed" | "passed with a warning" | "failed" | "not checked" | "not sent";
  /** What the check saw, as SiteLink said it (operation names, tables and codes kept for support). */
  details: string[];
  /** What to do about it, when it did not pass. */
  fix: string | null;
}

/** Settings a check proposes from what the site answered: its card types, the pay-method ids its move-in took. */
export interface GoLiveSuggestions {
  cardTypeIds?: Record<string, number>;
  payMethodIds?: SiteLinkPayMethodIds;
}
