import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, resolveSecret, secretKey, SiteLinkSecretError } from "./secrets";

const hexKey = crypto.randomBytes(32).toString("hex");
const env = { SITELINK_SECRET_KEY: hexKey } as NodeJS.ProcessEnv;
const ctx = { locationId: 7, field: "password" };

describe("SiteLink secrets", () => {
  it("encrypts with AES-256-GCM: round trip, fresh IV each time, no clear text in the blob", () => {
    const key = secretKey(env);
    const a = encryptSecret("hunter2-long-password", key, ctx);
    const b = encryptSecret("hunter2-long-password", key, ctx);
    expect(a).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
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
      () => decryptSecret(blob, key, { locationId: 8, field: "password" }),
      () => decryptSecret(blob, key, { locationId: 7, field: "apiKey" }),
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
    expect(resolveSecret({ envName: "SL_PW", encrypted: blob }, ctx, { ...env, SL_PW: "from-env" })).toBe("from-env");
    expect(resolveSecret({ envName: null, encrypted: blob }, ctx, env)).toBe("from-db");
    expect(resolveSecret({ envName: null, encrypted: null }, ctx, env)).toBeNull();
    expect(() => resolveSecret({ envName: "SL_PW", encrypted: null }, ctx, env)).toThrow(/SL_PW, which is not set/);
  });
});
