import { describe, expect, it } from "vitest";
import bcrypt from "bcryptjs";
import { loadEnv } from "~/platform/env.server";
import { bcryptRounds, dummyPasswordHash, hashPassword, PRODUCTION_BCRYPT_ROUNDS } from "./password.server";

describe("bcrypt cost", () => {
  it("is 10 in production whatever BCRYPT_ROUNDS says", () => {
    expect(PRODUCTION_BCRYPT_ROUNDS).toBeGreaterThanOrEqual(10);
    expect(bcryptRounds(loadEnv({ NODE_ENV: "production", BCRYPT_ROUNDS: "4" }))).toBe(10);
    expect(bcryptRounds(loadEnv({ NODE_ENV: "development", BCRYPT_ROUNDS: "4" }))).toBe(10);
    expect(bcryptRounds(loadEnv({ NODE_ENV: "production" }))).toBe(10);
  });

  it("may be lowered (to 4 at least) only under NODE_ENV=test", () => {
    expect(bcryptRounds(loadEnv({ NODE_ENV: "test", BCRYPT_ROUNDS: "4" }))).toBe(4);
    expect(bcryptRounds(loadEnv({ NODE_ENV: "test", BCRYPT_ROUNDS: "3" }))).toBe(10);
    expect(bcryptRounds(loadEnv({ NODE_ENV: "test", BCRYPT_ROUNDS: "12" }))).toBe(10);
    expect(() => loadEnv({ NODE_ENV: "test", BCRYPT_ROUNDS: "x" })).toThrow(/BCRYPT_ROUNDS must be a whole number/);
    expect(bcryptRounds(loadEnv({ NODE_ENV: "test" }))).toBe(10);
  });

  it("hashes with cost 10 by default", async () => {
    const hash = await hashPassword("secret1");
    expect(bcrypt.getRounds(hash)).toBe(10);
  });
});

describe("dummyPasswordHash", () => {
  it("is a cost-10 hash in production, so an unknown e-mail costs as much as a wrong password", () => {
    expect(bcrypt.getRounds(dummyPasswordHash())).toBe(10);
  });
});
