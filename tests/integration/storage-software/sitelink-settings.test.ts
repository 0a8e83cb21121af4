/**
 * Issue 19: SiteLink settings the server refuses (an http:// endpoint in production, a secret from a
 * variable that is not SITELINK_…_PASSWORD / SITELINK_…_API_KEY), `sitelink:status` never "All good"
 * for them, and stored secrets bound to their endpoint with the path from the first format (decision 186).
 */
import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "~/db/client.server";
import { locations, sitelinkSites } from "~/db/schema";
import { collectSiteLinkStatus, formatSiteLinkStatus, saveSiteLinkSettings } from "~/storage-software/index.server";
import { encryptSecretV1ForTests, secretKey } from "~/storage-software/sitelink/secrets";
import { loadSiteLinkSettings, SiteLinkConfigError } from "~/storage-software/sitelink/settings";
import { createTestDatabase } from "../support/db";

let handle: DatabaseHandle;
let locationId: number;
const SIM = "http://127.0.0.1:8765/CCWs_3.5/CallCenterWs.asmx";
const APP_SECRET = "app-session-secret-that-must-never-leave";
const env = (extra: Record<string, string> = {}) =>
  ({ ...process.env, SITELINK_SECRET_KEY: process.env.SITELINK_SECRET_KEY, SESSION_SECRET: APP_SECRET, SITELINK_T_PASSWORD: "pw-from-env", ...extra }) as NodeJS.ProcessEnv;
const base = { endpoint: SIM, corpCode: "GHTEST", locationCode: "L001", corpUser: "web:::KEY" };

beforeAll(async () => {
  process.env.SITELINK_SECRET_KEY ??= crypto.randomBytes(32).toString("hex");
  handle = await createTestDatabase();
  const [loc] = await handle.db.select({ id: locations.id }).from(locations).where(eq(locations.urlSlug, "lumberton-nc-28358"));
  locationId = loc!.id;
});
afterAll(() => handle?.close());

const row = async () => (await handle.db.select().from(sitelinkSites).where(eq(sitelinkSites.locationId, locationId)))[0]!;
const statusText = async (e: NodeJS.ProcessEnv) => {
  const status = await collectSiteLinkStatus(handle.db, new Date(), e);
  return { status, text: formatSiteLinkStatus(status, new Date()), lumberton: status.locations.find((l) => l.locationId === locationId)! };
};

describe("refused settings", () => {
  it("saving refuses an app secret's variable and an http:// endpoint in production; nothing is saved", async () => {
    await saveSiteLinkSettings(handle.db, { ...base, locationId, passwordEnv: "SITELINK_T_PASSWORD" }, env());
    await expect(saveSiteLinkSettings(handle.db, { ...base, locationId, passwordEnv: "SESSION_SECRET" }, env())).rejects.toThrow(/SESSION_SECRET.*may not hold it/);
    await expect(saveSiteLinkSettings(handle.db, { ...base, locationId, passwordEnv: "SITELINK_T_PASSWORD", apiKeyEnv: "SITELINK_SECRET_KEY" }, env())).rejects.toThrow(/may not hold it/);
    await expect(saveSiteLinkSettings(handle.db, { ...base, locationId, passwordEnv: "SITELINK_T_PASSWORD" }, env({ NODE_ENV: "production" }))).rejects.toThrow(/https:\/\/ in production/);
    await expect(saveSiteLinkSettings(handle.db, { ...base, endpoint: "http://sitelink.example/x", locationId, passwordEnv: "SITELINK_T_PASSWORD" }, env())).rejects.toThrow(/only on this machine/);
    expect(await row()).toMatchObject({ endpoint: SIM, passwordEnv: "SITELINK_T_PASSWORD", apiKeyEnv: null });
    expect((await loadSiteLinkSettings(handle.db, locationId, env()))!.credentials.password).toBe("pw-from-env");
    // Secrets from the environment only: no SITELINK_SECRET_KEY needed.
    expect((await loadSiteLinkSettings(handle.db, locationId, { ...env(), SITELINK_SECRET_KEY: undefined }))!.credentials.password).toBe("pw-from-env");
    expect((await statusText(env())).lumberton.settings!.refused).toEqual([]);
  });

  it("a stored row naming SESSION_SECRET (accepted before): the server refuses it, status says so, never its value and never 'All good'", async () => {
    await handle.db.update(sitelinkSites).set({ passwordEnv: "SESSION_SECRET" }).where(eq(sitelinkSites.locationId, locationId));
    await expect(loadSiteLinkSettings(handle.db, locationId, env())).rejects.toBeInstanceOf(SiteLinkConfigError);
    const { status, text, lumberton } = await statusText(env());
    expect(lumberton.settings!.refused.join(" ")).toMatch(/SESSION_SECRET/);
    expect(status.needsAttention).toBe(true);
    expect(text).toContain("REFUSED");
    expect(text).not.toContain("All good");
    expect(text + JSON.stringify(status)).not.toContain(APP_SECRET);
    await handle.db.update(sitelinkSites).set({ passwordEnv: "SITELINK_T_PASSWORD" }).where(eq(sitelinkSites.locationId, locationId));
  });

  it("an http:// endpoint under NODE_ENV=production: the server refuses it and status is not 'All good'", async () => {
    const production = env({ NODE_ENV: "production" });
    await expect(loadSiteLinkSettings(handle.db, locationId, production)).rejects.toThrow(/https:\/\/ in production/);
    const { status, text } = await statusText(production);
    expect(status.needsAttention).toBe(true);
    expect(text).toMatch(/REFUSED\s+the SiteLink endpoint must be https:\/\/ in production/);
    expect(text).not.toContain("All good");
  });
});

describe("a stored password bound to its endpoint", () => {
  it("encrypted under v2 with the endpoint: the row pointed elsewhere no longer decrypts", async () => {
    await saveSiteLinkSettings(handle.db, { ...base, locationId, password: "stored-pw", apiKey: "stored-key" }, env());
    expect((await row()).passwordEncrypted).toMatch(/^v2\./);
    expect((await loadSiteLinkSettings(handle.db, locationId, env()))!.credentials).toMatchObject({ password: "stored-pw", apiKey: "stored-key" });
    await handle.db.update(sitelinkSites).set({ endpoint: "http://127.0.0.1:9999/CCWs_3.5/CallCenterWs.asmx" }).where(eq(sitelinkSites.locationId, locationId));
    await expect(loadSiteLinkSettings(handle.db, locationId, env())).rejects.toThrow(/does not decrypt .* for this endpoint/);
    expect((await statusText(env())).lumberton.settings!.secrets).toMatch(/does not decrypt/);
  });

  it("a secret of the first format is read once for SiteLink's host or loopback and re-sealed bound to the endpoint; elsewhere refused", async () => {
    const key = secretKey(env());
    const v1 = (plain: string, field: string) => encryptSecretV1ForTests(plain, key, { locationId, field });
    await handle.db
      .update(sitelinkSites)
      .set({ endpoint: SIM, passwordEnv: null, passwordEncrypted: v1("old-pw", "password"), apiKeyEncrypted: v1("old-key", "apiKey") })
      .where(eq(sitelinkSites.locationId, locationId));
    expect((await loadSiteLinkSettings(handle.db, locationId, env()))!.credentials).toMatchObject({ password: "old-pw", apiKey: "old-key" });
    const resealed = await row();
    expect(resealed.passwordEncrypted).toMatch(/^v2\./);
    expect(resealed.apiKeyEncrypted).toMatch(/^v2\./);
    expect((await loadSiteLinkSettings(handle.db, locationId, env()))!.credentials).toMatchObject({ password: "old-pw", apiKey: "old-key" });
    // An old blob on a row pointed at someone else's server is never decrypted (so never sent there).
    await handle.db
      .update(sitelinkSites)
      .set({ endpoint: "https://sitelink.attacker.example/CCWs_3.5/CallCenterWs.asmx", passwordEncrypted: v1("old-pw", "password"), apiKeyEncrypted: null })
      .where(eq(sitelinkSites.locationId, locationId));
    await expect(loadSiteLinkSettings(handle.db, locationId, env())).rejects.toThrow(/old format/);
  });
});
