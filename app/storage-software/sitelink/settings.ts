/**
 * A location's SiteLink settings (table `sitelink_sites`) with its secrets resolved (./secrets.ts),
 * and the rule that picks the adapter (issue 11 §3):
 *
 * - the account's `use_demo_units` on  -> the demo inventory (local adapter), whatever `software` says;
 * - off, `software: sitelink` and a `sitelink_sites` row -> the SiteLink adapter;
 * - otherwise (no_api, or sitelink without settings) -> the local adapter (and the start-up notice).
 */
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { accounts, DEFAULT_PAY_METHOD_IDS, locations, sitelinkSites, type SiteLinkCardCharger, type SiteLinkPayMethodIds } from "~/db/schema";
import { SoftwareUnreachableError } from "../errors";
import { DEFAULT_READ_TIMEOUT_MS, DEFAULT_WRITE_TIMEOUT_MS } from "./client";
import type { Credentials } from "./envelope";
import { resolveSecret, SiteLinkSecretError } from "./secrets";

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

/** The settings row of a location, secrets resolved; null when the location has none. */
export async function loadSiteLinkSettings(db: Database, locationId: number, env: NodeJS.ProcessEnv = process.env): Promise<SiteLinkSettings | null> {
  const [row] = await db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, locationId));
  if (!row) return null;
  let password: string | null;
  let apiKey: string | null;
  try {
    password = resolveSecret({ envName: row.passwordEnv, encrypted: row.passwordEncrypted }, { locationId, field: "password" }, env);
    apiKey = resolveSecret({ envName: row.apiKeyEnv, encrypted: row.apiKeyEncrypted }, { locationId, field: "apiKey" }, env);
  } catch (error) {
    if (error instanceof SiteLinkSecretError) throw new SiteLinkConfigError(error.message);
    throw error;
  }
  if (!password) throw new SiteLinkConfigError(`Location ${locationId} has SiteLink settings without a password source`);
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

export type AdapterChoice = "local" | "sitelink";

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
  if (!row) return { choice: "local", reason: "no such location" };
  if (row.useDemoUnits) return { choice: "local", reason: "use_demo_units is on (demo inventory)" };
  if (row.software !== "sitelink") return { choice: "local", reason: `software is ${row.software}` };
  if (row.settings === null) return { choice: "local", reason: "software is sitelink but the location has no SiteLink settings" };
  return { choice: "sitelink", reason: "software is sitelink with SiteLink settings" };
}

export interface SiteLinkSettingsInput {
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
export async function saveSiteLinkSettings(db: Database, input: SiteLinkSettingsInput, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { encryptSecret, secretKey } = await import("./secrets");
  const url = new URL(input.endpoint);
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("The SiteLink endpoint must be an http(s) URL");
  if (!input.passwordEnv === !input.password) throw new Error("Give the SiteLink password either as an environment variable name or as a value to encrypt (one of them)");
  const seal = (value: string, field: string) => encryptSecret(value, secretKey(env), { locationId: input.locationId, field });
  const values = {
    locationId: input.locationId,
    endpoint: url.toString(),
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
