import { describe, expect, it } from "vitest";
import { journalDeskStatus, journalRowActions, moveInRentalOf, resolveJournalSchema } from "./desk-journal";

const now = new Date("2026-11-26T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const STALE = 90_000;

describe("journalDeskStatus", () => {
  it.each([
    [{ state: "unknown", startedAt: ago(1000), resolvedAt: null, flagged: false }, "unknown"],
    [{ state: "pending", startedAt: ago(STALE + 1), resolvedAt: null, flagged: false }, "pending"],
    [{ state: "pending", startedAt: ago(STALE - 1), resolvedAt: null, flagged: false }, null],
    [{ state: "failed", startedAt: ago(3600_000), resolvedAt: null, flagged: false }, "failed"],
    [{ state: "failed", startedAt: ago(48 * 3600_000), resolvedAt: null, flagged: false }, null],
    [{ state: "failed", startedAt: ago(48 * 3600_000), resolvedAt: null, flagged: true }, "failed"],
    [{ state: "done", startedAt: ago(1000), resolvedAt: null, flagged: false }, null],
    [{ state: "unknown", startedAt: ago(1000), resolvedAt: ago(10), flagged: false }, "resolved"],
    [{ state: "done", startedAt: ago(1000), resolvedAt: ago(10), flagged: false }, null],
  ] as const)("%o -> %s", (row, expected) => {
    expect(journalDeskStatus(row, now, STALE)).toBe(expected);
  });
});

describe("journalRowActions", () => {
  it("retries only open rows of a write the desk can read back, and resolves any row needing attention", () => {
    expect(journalRowActions("unknown", "MoveInWithDiscount_v7")).toEqual({ retry: true, resolve: true });
    expect(journalRowActions("pending", "MoveInWithDiscount_v7")).toEqual({ retry: true, resolve: true });
    expect(journalRowActions("unknown", "PaymentSimpleWithSource")).toEqual({ retry: false, resolve: true });
    expect(journalRowActions("failed", "MoveInWithDiscount_v7")).toEqual({ retry: false, resolve: true });
    expect(journalRowActions("resolved", "MoveInWithDiscount_v7")).toEqual({ retry: false, resolve: false });
    expect(journalRowActions(null, "MoveInWithDiscount_v7")).toEqual({ retry: false, resolve: false });
  });
});

describe("resolveJournalSchema", () => {
  it("needs a note", () => {
    const r = resolveJournalSchema.safeParse({ key: "movein:x", note: "  " });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(["note"]);
    expect(resolveJournalSchema.parse({ key: "k", note: " Checked in SiteLink: booked. " }).note).toBe("Checked in SiteLink: booked.");
  });
});

it("moveInRentalOf reads the checkout of a move-in key only", () => {
  expect(moveInRentalOf("movein:abcdefgh12345678:key")).toBe("abcdefgh12345678");
  expect(moveInRentalOf("payment:abc")).toBeNull();
});
