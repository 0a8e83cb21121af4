import { describe, expect, it } from "vitest";
import {
  GIVE_UP_AFTER_MS,
  fillSecretPlaceholders,
  isTooOldToRetry,
  redactSecretPlaceholders,
  redactSecrets,
  retryDelayMs,
  secretsLongestFirst,
  withSecretPlaceholders,
} from "./delivery";

const MIN = 60_000;

describe("retryDelayMs", () => {
  it.each([
    [1, 1 * MIN],
    [2, 2 * MIN],
    [3, 4 * MIN],
    [4, 8 * MIN],
    [6, 32 * MIN],
    [7, 60 * MIN],
    [30, 60 * MIN],
    [0, 1 * MIN],
  ])("after %i failed attempt(s): %i ms", (attempts, ms) => {
    expect(retryDelayMs(attempts)).toBe(ms);
  });
});

describe("isTooOldToRetry", () => {
  const created = new Date("2026-11-20T10:00:00Z");
  it.each([
    [0, false],
    [GIVE_UP_AFTER_MS - 1, false],
    [GIVE_UP_AFTER_MS, true],
  ])("%i ms after creation: %s", (age, old) => {
    expect(isTooOldToRetry(created, new Date(created.getTime() + age))).toBe(old);
  });
});

describe("redactSecrets", () => {
  it.each([
    ["Gate code: 4821, press 4821#", ["4821"], "Gate code: [redacted], press [redacted]#"],
    ["Open https://x/reset?token=abc", ["https://x/reset?token=abc"], "Open [redacted]"],
    ["a=LONG and L", ["L", "LONG"], "a=[redacted] and [redacted]"],
    ["nothing secret", null, "nothing secret"],
    ["empty secret ignored", [""], "empty secret ignored"],
  ] as const)("%s", (text, secrets, out) => {
    expect(redactSecrets(text, secrets)).toBe(out);
  });
});

describe("secret placeholders (decision 198)", () => {
  it("replace every secret, longest first, fill back exactly, and redact", () => {
    const body = "Reset: https://x.example/reset?token=abc123 (token abc123). Gate 4821. Again 4821. Not [secret:zz:0].";
    const secrets = secretsLongestFirst(["abc123", "https://x.example/reset?token=abc123", "4821", ""]);
    const stored = withSecretPlaceholders(body, secrets, "T4821x");
    expect(stored).not.toMatch(/abc123|4821\./);
    expect(stored).toBe("Reset: [secret:T4821x:0] (token [secret:T4821x:1]). Gate [secret:T4821x:2]. Again [secret:T4821x:2]. Not [secret:zz:0].");
    expect(fillSecretPlaceholders(stored, secrets, "T4821x")).toBe(body);
    expect(redactSecretPlaceholders(stored)).toBe("Reset: [redacted] (token [redacted]). Gate [redacted]. Again [redacted]. Not [redacted].");
  });
});
