import { describe, expect, it } from "vitest";
import { journalDeskStatus, journalRowActions, journalWriteKind, moveInRentalOf, resolveJournalSchema } from "./journal";

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
  it("checks open rows of a kind the desk can read back, and resolves any row needing attention", () => {
    expect(journalRowActions("unknown", "movein:abcdefgh:k1")).toEqual({ retry: true, resolve: true });
    expect(journalRowActions("pending", "movein:abcdefgh:k1")).toEqual({ retry: true, resolve: true });
    expect(journalRowActions("unknown", "payment:key-1")).toEqual({ retry: true, resolve: true });
    expect(journalRowActions("unknown", "payment:autopay:12:2026-12-01:1")).toEqual({ retry: false, resolve: true });
    expect(journalRowActions("unknown", "reservation-tenant:k")).toEqual({ retry: false, resolve: true });
    expect(journalRowActions("unknown", "who-knows:1")).toEqual({ retry: false, resolve: true });
    expect(journalRowActions("failed", "movein:abcdefgh:k1")).toEqual({ retry: false, resolve: true });
    expect(journalRowActions("resolved", "movein:abcdefgh:k1")).toEqual({ retry: false, resolve: false });
    expect(journalRowActions(null, "movein:abcdefgh:k1")).toEqual({ retry: false, resolve: false });
  });
});

describe("journalWriteKind", () => {
  it.each([
    ["movein:abcdefgh:k1", "move_in"],
    ["tenant:abcdefgh", "move_in_tenant"],
    ["tenant:abcdefgh:0a1b2c3d", "move_in_tenant"],
    ["reservation-tenant:k", "reservation_tenant"],
    ["reservation-cancel:12", "reservation_cancel"],
    ["reservation:k", "reservation"],
    ["contact:991:uuid", "contact"],
    ["payment:autopay:12:2026-12-01", "autopay_charge"],
    ["payment:k", "payment"],
    ["autopay:77:1700000000000:1:ab12cd34", "autopay_billing"],
    ["moveout:77:2026-12-31", "move_out"],
    ["discount:x", "other"],
  ] as const)("%s is %s", (key, kind) => {
    expect(journalWriteKind(key)).toBe(kind);
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

it("moveInRentalOf reads the rental of a move-in key only", () => {
  expect(moveInRentalOf("movein:abcdefgh12345678:key")).toBe("abcdefgh12345678");
  expect(moveInRentalOf("payment:abc")).toBeNull();
});
