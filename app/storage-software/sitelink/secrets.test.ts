import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, encryptSecretV1ForTests, resolveSecret, secretEnvProblem, secretKey, SiteLinkSecretError } from "./secrets";

const hexKey = crypto.randomBytes(32).toString("hex");
const env = { SITELINK_SECRET_KEY: hexKey } as NodeJS.ProcessEnv;
const ENDPOINT = "https://api.smdservers.net/CCWs_3.5/CallCenterWs.asmx";
const ctx = { locationId: 7, field: "password", endpoint: ENDPOINT };

describe("SiteLink secrets", () => {
  it("encrypts with AES-256-GCM: round trip, fresh IV each time, no clear text in the blob", () => {
    const key = secretKey(env);
    const a = encryptSecret("hunter2-long-password", key, ctx);
    const b = encryptSecret("hunter2-long-password", key, ctx);
    expect(a).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("hunter2");
    expect(decryptSecret(a, key, ctx)).toBe("hunter2-long-password");
  });

  it("accepts the key as base64 too", () => {
    const key = secretKey({ SITELINK_SECRET_KEY: Buffer.from(hexKey, "hex").toString("base64") } as NodeJS.ProcessEnv);
    expect(key.equals(Buffer.from(hexKey, "hex"))).toBe(true);
  });

  it("refuses a wrong key, another location's blob, an altered blob, and says so without the value", () => {
    const key = secretKey(env);
    const blob = encryptSecret("pw-123456", key, ctx);
    const other = crypto.randomBytes(32);
    for (const attempt of [
      () => decryptSecret(blob, other, ctx),
      () => decryptSecret(blob, key, { ...ctx, locationId: 8 }),
      () => decryptSecret(blob, key, { ...ctx, field: "apiKey" }),
      () => decryptSecret(blob, key, { ...ctx, endpoint: "https://sitelink.attacker.example/CCWs_3.5/CallCenterWs.asmx" }),
      () => decryptSecret(blob.slice(0, -2) + (blob.endsWith("A") ? "BB" : "AA"), key, ctx),
      () => decryptSecret("plain", key, ctx),
    ]) {
      expect(attempt).toThrow(SiteLinkSecretError);
      try {
        attempt();
      } catch (error) {
        expect((error as Error).message).not.toContain("pw-123456");
      }
    }
  });

  it("a missing or short key is a clear configuration error", () => {
    expect(() => secretKey({} as NodeJS.ProcessEnv)).toThrow(/SITELINK_SECRET_KEY is not set/);
    expect(() => secretKey({ SITELINK_SECRET_KEY: "abc" } as NodeJS.ProcessEnv)).toThrow(/32 bytes/);
  });

  it("resolves from the environment first, then the encrypted value; null when neither", () => {
    const blob = encryptSecret("from-db", secretKey(env), ctx);
    expect(resolveSecret({ envName: "SITELINK_PASSWORD", encrypted: blob }, ctx, { ...env, SITELINK_PASSWORD: "from-env" })).toBe("from-env");
    expect(resolveSecret({ envName: null, encrypted: blob }, ctx, env)).toBe("from-db");
    expect(resolveSecret({ envName: null, encrypted: null }, ctx, env)).toBeNull();
    expect(() => resolveSecret({ envName: "SITELINK_L9_PASSWORD", encrypted: null }, ctx, env)).toThrow(/SITELINK_L9_PASSWORD, which is not set/);
  });

  it("takes a secret only from a variable named SITELINK_…_PASSWORD / SITELINK_…_API_KEY, never the app's own secrets", () => {
    for (const name of ["SESSION_SECRET", "SITELINK_SECRET_KEY", "DATABASE_URL", "SMTP_URL", "PATH", "SITELINK_PASSWORDS", "sitelink_password", "SITELINK__PASSWORD", "XSITELINK_PASSWORD"]) {
      expect(secretEnvProblem("password", name)).toMatch(/may not hold it/);
      const value = "app-secret-value";
      expect(() => resolveSecret({ envName: name, encrypted: null }, ctx, { ...env, [name]: value })).toThrow(SiteLinkSecretError);
    }
    for (const name of ["SITELINK_PASSWORD", "SITELINK_L001_PASSWORD", "SITELINK_TEST_PASSWORD", "SITELINK_E2E_PASSWORD"]) expect(secretEnvProblem("password", name)).toBeNull();
    expect(secretEnvProblem("apiKey", "SITELINK_L001_API_KEY")).toBeNull();
    expect(secretEnvProblem("apiKey", "SITELINK_L001_PASSWORD")).toMatch(/API_KEY/);
    expect(secretEnvProblem("password", "SITELINK_L001_API_KEY")).toMatch(/PASSWORD/);
  });

  it("a blob of the first format (not bound to an endpoint) is read only for SiteLink's own host or loopback", () => {
    const key = secretKey(env);
    const v1 = encryptSecretV1ForTests("old-pw", key, { locationId: 7, field: "password" });
    expect(decryptSecret(v1, key, ctx)).toBe("old-pw");
    expect(decryptSecret(v1, key, { ...ctx, endpoint: "http://127.0.0.1:8765/CCWs_3.5/CallCenterWs.asmx" })).toBe("old-pw");
    expect(() => decryptSecret(v1, key, { ...ctx, endpoint: "https://sitelink.attacker.example/CCWs_3.5/CallCenterWs.asmx" })).toThrow(/old format/);
    expect(() => decryptSecret(v1, key, { ...ctx, endpoint: "https://api.smdservers.net.attacker.example/x" })).toThrow(/old format/);
    expect(() => decryptSecret(v1, key, { ...ctx, locationId: 8 })).toThrow(SiteLinkSecretError);
  });
});
