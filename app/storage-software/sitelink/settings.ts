/**
 * A location's SiteLink settings (table `sitelink_sites`) with its secrets resolved (./secrets.ts),
 * and the rule that picks the adapter (issue 11 §3):
 *
 * - the account's `use_demo_units` on  -> the demo inventory (local adapter), whatever `software` says;
 * - off, `software: sitelink` and a `sitelink_sites` row -> the SiteLink adapter;
 * - otherwise (no_api, or sitelink without settings) -> the local adapter (and the start-up notice).
 */
import { and, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, DEFAULT_PAY_METHOD_IDS, locations, sitelinkSites, type SiteLinkCardCharger, type SiteLinkPayMethodIds } from "~/db/schema";
import { SoftwareUnreachableError } from "../errors";
import { DEFAULT_READ_TIMEOUT_MS, DEFAULT_WRITE_TIMEOUT_MS } from "./client";
import type { Credentials } from "./envelope";
import { logger } from "~/platform/logger.server";
import { parseAccountGlobalSettings, settingsForLocation } from "~/domain/shared/account-settings";
import { encryptSecret, isLoopbackHost, isV1Blob, resolveSecret, secretEnvProblem, secretKey, SiteLinkSecretError } from "./secrets";
import { rawEnv, type EnvSource } from "~/platform/env.server";

export interface SiteLinkSettings {
  locationId: number;
  endpoint: string;
  credentials: Credentials;
  cardChargedBy: SiteLinkCardCharger;
  testMode: boolean;
  /** PmtTypeID per card brand ("visa", "mastercard", "discover", "amex"). */
  cardTypeIds: Record<string, number>;
  /** MoveInWithDiscount_v7's iPayMethod ids at this site (decision 180). */
  payMethodIds: SiteLinkPayMethodIds;
  billingFrequency: number;
  channelType: 0 | 1;
  readTimeoutMs: number;
  writeTimeoutMs: number;
}

/** The location's SiteLink settings are unusable (a secret that is not set or does not decrypt). */
export class SiteLinkConfigError extends SoftwareUnreachableError {
  override name = "SiteLinkConfigError";
}

/**
 * Why an endpoint is refused (issue 19, decision 186), or null: https:// always; http:// only to a
 * loopback host (the simulator) and never under NODE_ENV=production (but for the test runner's own
 * server, GATEHOUSE_TEST_RUNNER=1, decision 432); no user or password in the URL.
 */
export function endpointProblem(endpoint: string, env: EnvSource = rawEnv()): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "the SiteLink endpoint is not a URL";
  }
  if (url.username || url.password) return "the SiteLink endpoint may not carry a user name or password (use the settings' user and password)";
  if (url.protocol === "https:") return null;
  if (url.protocol !== "http:") return "the SiteLink endpoint must be an https:// URL";
  // The test runner's production server talks to the simulator on this machine (decision 432).
  if (env.NODE_ENV === "production" && env.GATEHOUSE_TEST_RUNNER !== "1") return "the SiteLink endpoint must be https:// in production (http:// is for the simulator on this machine only)";
  if (!isLoopbackHost(url.hostname)) return "an http:// SiteLink endpoint is allowed only on this machine (localhost, 127.0.0.1, ::1: the simulator); use https://";
  return null;
}

/** Every reason a settings row would be refused (endpoint, secret sources); empty when it is acceptable. */
export function settingsProblems(row: { endpoint: string; passwordEnv: string | null; apiKeyEnv: string | null }, env: EnvSource = rawEnv()): string[] {
  const problems: string[] = [];
  const endpoint = endpointProblem(row.endpoint, env);
  if (endpoint) problems.push(endpoint);
  if (row.passwordEnv) {
    const p = secretEnvProblem("password", row.passwordEnv);
    if (p) problems.push(`password: ${p}`);
  }
  if (row.apiKeyEnv) {
    const p = secretEnvProblem("apiKey", row.apiKeyEnv);
    if (p) problems.push(`API key: ${p}`);
  }
  return problems;
}

/**
 * A secret stored in the first format (v1, bound to location and field only), read once for an
 * endpoint on SiteLink's host or loopback (secrets.ts): sealed again bound to the endpoint (v2). Only
 * the blob that was read is replaced (a concurrent `sitelink:configure` wins).
 */
async function resealV1(db: Database, row: typeof sitelinkSites.$inferSelect, plain: { password: string | null; apiKey: string | null }, env: EnvSource) {
  const context = (field: string) => ({ locationId: row.locationId, field, endpoint: row.endpoint });
  for (const [field, column, blob, value] of [
    ["password", sitelinkSites.passwordEncrypted, row.passwordEncrypted, plain.password],
    ["apiKey", sitelinkSites.apiKeyEncrypted, row.apiKeyEncrypted, plain.apiKey],
  ] as const) {
    if (row[field === "password" ? "passwordEnv" : "apiKeyEnv"] || !blob || !isV1Blob(blob) || !value) continue;
    const key = secretKey(env);
    await db
      .update(sitelinkSites)
      .set(field === "password" ? { passwordEncrypted: encryptSecret(value, key, context(field)) } : { apiKeyEncrypted: encryptSecret(value, key, context(field)) })
      .where(and(eq(sitelinkSites.locationId, row.locationId), eq(column, blob)));
    logger.warn(`[sitelink] location ${row.locationId}: the stored SiteLink ${field} was re-sealed bound to its endpoint (format v2)`);
  }
}

/** The settings row of a location, secrets resolved; null when the location has none. */
export async function loadSiteLinkSettings(db: Database, locationId: number, env: EnvSource = rawEnv()): Promise<SiteLinkSettings | null> {
  const [row] = await db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, locationId));
  if (!row) return null;
  const problems = settingsProblems(row, env);
  if (problems.length) throw new SiteLinkConfigError(`Location ${locationId}'s SiteLink settings are refused: ${problems.join("; ")}`);
  let password: string | null;
  let apiKey: string | null;
  try {
    password = resolveSecret({ envName: row.passwordEnv, encrypted: row.passwordEncrypted }, { locationId, field: "password", endpoint: row.endpoint }, env);
    apiKey = resolveSecret({ envName: row.apiKeyEnv, encrypted: row.apiKeyEncrypted }, { locationId, field: "apiKey", endpoint: row.endpoint }, env);
  } catch (error) {
    if (error instanceof SiteLinkSecretError) throw new SiteLinkConfigError(error.message);
    throw error;
  }
  if (!password) throw new SiteLinkConfigError(`Location ${locationId} has SiteLink settings without a password source`);
  await resealV1(db, row, { password, apiKey }, env);
  return {
    locationId,
    endpoint: row.endpoint,
    credentials: { corpCode: row.corpCode, locationCode: row.locationCode, corpUser: row.corpUser, password, apiKey },
    cardChargedBy: row.cardChargedBy,
    testMode: row.testMode,
    cardTypeIds: row.cardTypeIds ?? {},
    payMethodIds: { ...DEFAULT_PAY_METHOD_IDS, ...(row.payMethodIds ?? {}) },
    billingFrequency: row.billingFrequency,
    channelType: row.channelType === 0 ? 0 : 1,
    readTimeoutMs: row.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS,
    writeTimeoutMs: row.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS,
  };
}

type AdapterChoice = "local" | "sitelink";

/**
 * The adapter rule (decision 215: its one home): the account's `use_demo_units` on -> the demo inventory
 * (local adapter), whatever `software` says; off, `software: sitelink` with SiteLink settings -> SiteLink;
 * anything else -> local. `chooseAdapter` and the scheduler's `siteLinkLocations` both read it.
 */
export function adapterChoiceFor(row: { useDemoUnits: boolean; software: string; hasSiteLinkSettings: boolean } | undefined): { choice: AdapterChoice; reason: string } {
  if (!row) return { choice: "local", reason: "no such location" };
  if (row.useDemoUnits) return { choice: "local", reason: "use_demo_units is on (demo inventory)" };
  if (row.software !== "sitelink") return { choice: "local", reason: `software is ${row.software}` };
  if (!row.hasSiteLinkSettings) return { choice: "local", reason: "software is sitelink but the location has no SiteLink settings" };
  return { choice: "sitelink", reason: "software is sitelink with SiteLink settings" };
}

/**
 * Which adapter serves the location, and why (for the start-up notice and `sitelink:status`).
 * Reads the account's `use_demo_units`, the location's `software` and whether it has settings.
 */
export async function chooseAdapter(db: Database, locationId: number): Promise<{ choice: AdapterChoice; reason: string }> {
  const [row] = await db
    .select({ software: locations.software, useDemoUnits: accounts.useDemoUnits, settings: sitelinkSites.locationId })
    .from(locations)
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .leftJoin(sitelinkSites, eq(sitelinkSites.locationId, locations.id))
    .where(eq(locations.id, locationId));
  return adapterChoiceFor(row && { useDemoUnits: row.useDemoUnits, software: row.software, hasSiteLinkSettings: row.settings !== null });
}

interface SiteLinkSettingsInput {
  locationId: number;
  endpoint: string;
  corpCode: string;
  locationCode: string;
  corpUser: string;
  /** Exactly one of passwordEnv / password (encrypted under SITELINK_SECRET_KEY before it is stored). */
  passwordEnv?: string | null;
  password?: string | null;
  apiKeyEnv?: string | null;
  apiKey?: string | null;
  cardChargedBy?: SiteLinkCardCharger;
  testMode?: boolean;
  cardTypeIds?: Record<string, number>;
  /** Default: LSETUP's ids (card 1, cash 2, check 3). */
  payMethodIds?: Partial<SiteLinkPayMethodIds>;
  billingFrequency?: number;
  channelType?: 0 | 1;
}

/** Creates or replaces a location's SiteLink settings; a clear-text secret is stored only encrypted. */
export async function saveSiteLinkSettings(db: Database, input: SiteLinkSettingsInput, env: EnvSource = rawEnv()): Promise<void> {
  if (!input.passwordEnv === !input.password) throw new Error("Give the SiteLink password either as an environment variable name or as a value to encrypt (one of them)");
  const problem = endpointProblem(input.endpoint, env);
  if (problem) throw new Error(problem.charAt(0).toUpperCase() + problem.slice(1));
  const endpoint = new URL(input.endpoint).toString();
  const problems = settingsProblems({ endpoint, passwordEnv: input.passwordEnv ?? null, apiKeyEnv: input.apiKeyEnv ?? null }, env);
  if (problems.length) throw new Error(`SiteLink settings refused: ${problems.join("; ")}`);
  const seal = (value: string, field: string) => encryptSecret(value, secretKey(env), { locationId: input.locationId, field, endpoint });
  const values = {
    locationId: input.locationId,
    endpoint,
    corpCode: input.corpCode,
    locationCode: input.locationCode,
    corpUser: input.corpUser,
    passwordEnv: input.passwordEnv ?? null,
    passwordEncrypted: input.password ? seal(input.password, "password") : null,
    apiKeyEnv: input.apiKeyEnv ?? null,
    apiKeyEncrypted: input.apiKey ? seal(input.apiKey, "apiKey") : null,
    cardChargedBy: input.cardChargedBy ?? "sitelink",
    testMode: input.testMode ?? false,
    cardTypeIds: input.cardTypeIds ?? {},
    payMethodIds: { ...DEFAULT_PAY_METHOD_IDS, ...(input.payMethodIds ?? {}) },
    billingFrequency: input.billingFrequency ?? 3,
    channelType: input.channelType ?? 1,
  };
  await db.insert(sitelinkSites).values(values).onConflictDoUpdate({ target: sitelinkSites.locationId, set: values });
}

/** The shortest settle time (below): two minutes, however short the write timeout. */
export const MIN_SETTLE_AFTER_MS = 2 * 60_000;

/**
 * SiteLink's settle time after an unanswered write (decision 215): how long a write without an answer
 * stays "not known yet" before finding nothing in SiteLink means it did nothing. Longer than the write
 * timeout, so that a slow commit is never taken for none. Every reconciliation (move-in, autopay,
 * tenant contact) reads it from here.
 */
export function settleAfterMsFor(settings: Pick<SiteLinkSettings, "writeTimeoutMs">): number {
  return Math.max(2 * settings.writeTimeoutMs, MIN_SETTLE_AFTER_MS);
}

/**
 * Whether the location's web rates are on: its own global_settings over the account's (decision 201),
 * as the pages read them. SiteLink's quotes, move-ins (ChannelType, decision 115) and reservations
 * (dcQuotedRate) follow it so that SiteLink records the rate the site shows.
 */
export async function isWebRatesEnabledAt(db: Database, locationId: number): Promise<boolean> {
  const [row] = await db
    .select({ settings: accounts.globalSettings, locationSettings: locations.globalSettings })
    .from(locations)
    .innerJoin(accounts, eq(accounts.id, locations.accountId))
    .where(eq(locations.id, locationId));
  return row ? settingsForLocation(parseAccountGlobalSettings(row.settings), row.locationSettings).is_web_rates_enabled : false;
}

/**
 * ChannelType of quotes and move-ins: the web rate when the location's web-rates flag is on, else the
 * standard rate, so that SiteLink charges the rate the pages show (decision 115). The one rule for the
 * adapter and sitelink:verify alike (the settings row's `channel_type` is not what the adapter sends).
 */
export async function channelTypeAt(db: Database, locationId: number): Promise<0 | 1> {
  return (await isWebRatesEnabledAt(db, locationId)) ? 1 : 0;
}
