import { describe, expect, it } from "vitest";
import { likeAnywhere, lockoutView, moveOutDateProblem, outboxState, parseRecordId, tenantDeskActionSchema, tenantSearch, tenantStatuses, tenantStatusText } from "./tenants";

describe("tenantSearch", () => {
  it.each([
    ["", null],
    ["  ", null],
    ["Ada  Lovelace", { text: "ada lovelace", digits: null }],
    ["(910) 555-0134", { text: "(910) 555-0134", digits: "9105550134" }],
    ["555", { text: "555", digits: "555" }],
    ["A12", { text: "a12", digits: null }],
    ["12", { text: "12", digits: null }],
  ])("%s", (q, expected) => expect(tenantSearch(q)).toEqual(expected));
});

it("likeAnywhere escapes LIKE's wildcards", () => {
  expect(likeAnywhere("50%_a\\b")).toBe("%50\\%\\_a\\\\b%");
});

it("outboxState", () => {
  const d = new Date();
  expect(outboxState({ sentAt: d, failedAt: null })).toBe("sent");
  expect(outboxState({ sentAt: null, failedAt: d })).toBe("failed");
  expect(outboxState({ sentAt: null, failedAt: null })).toBe("waiting");
});

describe("lockoutView", () => {
  const now = new Date("2026-11-26T12:00:00Z");
  const later = new Date(now.getTime() + 600_000);
  it.each([
    [null, { attempts: 0, locked: false, until: null }],
    [{ count: 3, resetAt: later }, { attempts: 3, locked: false, until: later }],
    [{ count: 5, resetAt: later }, { attempts: 5, locked: true, until: later }],
    [{ count: 9, resetAt: now }, { attempts: 0, locked: false, until: null }],
  ])("%o", (hit, expected) => expect(lockoutView(hit, now, 5)).toEqual(expected));
});

it("parseRecordId", () => {
  expect(parseRecordId("12")).toBe(12);
  expect(parseRecordId("0")).toBeNull();
  expect(parseRecordId("1e3")).toBeNull();
  expect(parseRecordId("1234567890")).toBeNull();
  expect(parseRecordId(undefined)).toBeNull();
});

it("tenantDeskActionSchema tells the forms apart and checks ids", () => {
  expect(tenantDeskActionSchema.parse({ intent: "resend-lease", leaseId: " 7 " })).toEqual({ intent: "resend-lease", leaseId: 7 });
  const bad = tenantDeskActionSchema.safeParse({ intent: "resend-receipt", paymentId: "x" });
  expect(bad.success).toBe(false);
  expect(bad.error!.issues[0]!.path).toEqual(["paymentId"]);
  expect(tenantDeskActionSchema.safeParse({ intent: "delete-everything" }).success).toBe(false);
});

describe("tenantStatuses", () => {
  it.each([
    [{ activeLeases: 1, leases: 1, pastDue: false, lockedOut: false }, ["current"], "Current"],
    [{ activeLeases: 1, leases: 2, pastDue: true, lockedOut: false }, ["current", "past_due"], "Current, Past due"],
    [{ activeLeases: 0, leases: 2, pastDue: false, lockedOut: true }, ["moved_out", "locked_out"], "Moved out, Locked out of the portal"],
    [{ activeLeases: 0, leases: 1, pastDue: true, lockedOut: false }, ["moved_out"], "Moved out"],
    [{ activeLeases: 0, leases: 0, pastDue: false, lockedOut: false }, [], "No lease"],
    [{ activeLeases: 1, movingOutLeases: 1, leases: 1, pastDue: false, lockedOut: false }, ["moving_out"], "Moving out"],
    [{ activeLeases: 2, movingOutLeases: 1, leases: 2, pastDue: true, lockedOut: false }, ["current", "moving_out", "past_due"], "Current, Moving out, Past due"],
  ] as const)("%o is %o", (facts, statuses, text) => {
    expect(tenantStatuses(facts)).toEqual(statuses);
    expect(tenantStatusText(tenantStatuses(facts))).toBe(text);
  });
});

describe("moveOutDateProblem", () => {
  const lease = { moveInDate: "2026-10-01" };
  it.each([
    ["2026-11-28", null],
    ["2026-10-01", null],
    ["2026-11-29", "A move-out is recorded once it has happened: choose today or an earlier day."],
    ["2026-09-30", "The tenant moved in on 2026-10-01: choose that day or a later one."],
  ])("%s", (date, problem) => {
    expect(moveOutDateProblem(date, lease, "2026-11-28")).toBe(problem);
  });
});
