import { describe, expect, it } from "vitest";
import { mediaReferences, versionsToPrune } from "./retention";

const NOW = new Date("2026-06-01T12:00:00Z");
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);
const RULE = { keepVersions: 3, keepDays: 30 };

describe("versionsToPrune (decision 361)", () => {
  it.each([
    ["nothing published", [], []],
    ["fewer versions than kept", [0, 1, 2].map((v) => ({ version: v, publishedAt: daysAgo(400) })), []],
    ["old versions beyond the last three", [0, 1, 2, 3, 4, 5].map((v) => ({ version: v, publishedAt: daysAgo(100 - v) })), [0, 1, 2]],
    ["a version within the days is kept even beyond the last three", [0, 1, 2, 3, 4, 5].map((v) => ({ version: v, publishedAt: daysAgo(v === 1 ? 29 : 100 - v) })), [0, 2]],
    ["exactly at the cut-off is kept", [0, 1, 2, 3].map((v) => ({ version: v, publishedAt: daysAgo(30) })), []],
    ["a version with no publish time and beyond the last three", [{ version: 0, publishedAt: null }, ...[1, 2, 3].map((v) => ({ version: v, publishedAt: daysAgo(1) }))], [0]],
  ])("%s", (_label, versions, expected) => {
    expect(versionsToPrune(versions, NOW, RULE)).toEqual(expected);
  });
});

describe("mediaReferences", () => {
  const a = "a".repeat(64);
  const b = "0123456789abcdef".repeat(4);
  it("finds every uploaded image a JSON text names, and nothing else", () => {
    const text = JSON.stringify({ src: `/media/${a}-1920.webp`, list: [{ src: `/media/${b}-480.webp` }, { src: `/media/${a}-240.webp` }], other: "/images/logo.png", short: "/media/abc-1.webp" });
    expect([...mediaReferences(text)].sort()).toEqual([b, a].sort());
  });
});
