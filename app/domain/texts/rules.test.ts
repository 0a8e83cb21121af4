import { describe, expect, it } from "vitest";
import { statusMovesForward, textKeyword, textNumber, withinTextingHours } from "./rules";

describe("texting rules", () => {
  it.each([
    ["(910) 555-0134", "+19105550134"],
    ["1-910-555-0134", "+19105550134"],
    ["555-0134", null],
    [null, null],
  ])("textNumber(%s) = %s", (input, out) => expect(textNumber(input)).toBe(out));

  it.each([
    // New York in November is UTC-5.
    ["2026-11-28T12:59:00Z", false], // 7:59 am
    ["2026-11-28T13:00:00Z", true], // 8:00 am
    ["2026-11-29T01:59:00Z", true], // 8:59 pm
    ["2026-11-29T02:00:00Z", false], // 9:00 pm
    ["2026-11-29T07:00:00Z", false], // 2 am
  ])("withinTextingHours(%s, New York) = %s", (at, ok) => expect(withinTextingHours(new Date(at), "America/New_York")).toBe(ok));

  it("is the location's own hour, not the server's", () => {
    // 8:30 am in Los Angeles is 11:30 am in New York; 7:30 am in Los Angeles is not yet.
    expect(withinTextingHours(new Date("2026-11-28T16:30:00Z"), "America/Los_Angeles")).toBe(true);
    expect(withinTextingHours(new Date("2026-11-28T15:30:00Z"), "America/Los_Angeles")).toBe(false);
  });

  it.each([
    ["STOP", "stop"],
    [" stop ", "stop"],
    ["Stop.", "stop"],
    ["unsubscribe", "stop"],
    ["Cancel", "stop"],
    ["end", "stop"],
    ["quit", "stop"],
    ["stop all", "stop"],
    ["START", "start"],
    ["unstop", "start"],
    ["yes", "start"],
    ["help", "help"],
    ["INFO", "help"],
    ["please stop by tomorrow", null],
    ["Is the 10x10 still free?", null],
  ])("textKeyword(%j) = %s", (body, keyword) => expect(textKeyword(body)).toBe(keyword));

  it.each([
    ["queued", "sent", true],
    ["sent", "delivered", true],
    ["delivered", "sent", false],
    ["failed", "delivered", false],
    ["delivered", "read", true],
    ["sent", "undelivered", true],
  ] as const)("%s → %s moves: %s", (from, to, moves) => expect(statusMovesForward(from, to)).toBe(moves));
});
