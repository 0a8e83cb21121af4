import { describe, expect, it } from "vitest";
import { reservationExpiresAt, reservationSchema, reservationWindow } from "./reservation";

describe("reservation rules", () => {
  it("the window runs from today for the days a reservation is kept", () => {
    expect(reservationWindow("2026-11-22", 2)).toEqual({ min: "2026-11-22", max: "2026-11-24" });
    expect(reservationWindow("2026-12-31", 2)).toEqual({ min: "2026-12-31", max: "2027-01-02" });
  });

  it("expires reservation_days_valid × 24 h after it is made", () => {
    expect(reservationExpiresAt(new Date("2026-11-22T15:00:00Z"), 2).toISOString()).toBe("2026-11-24T15:00:00.000Z");
  });

  const schema = reservationSchema({ min: "2026-11-22", max: "2026-11-24" });
  const valid = { first_name: "Grace", last_name: "Hopper", email: "G@Example.com", phone: "910-555-0199", desired_move_in_date: "2026-11-24" };

  it("accepts the short form and normalises it", () => {
    expect(schema.parse(valid)).toEqual({ ...valid, email: "g@example.com", phone: "(910) 555-0199" });
  });

  it.each([
    ["2026-11-21", false],
    ["2026-11-22", true],
    ["2026-11-24", true],
    ["2026-11-25", false],
    ["next week", false],
  ])("move-in date %s valid: %s", (date, ok) => {
    expect(schema.safeParse({ ...valid, desired_move_in_date: date }).success).toBe(ok);
  });

  it.each(["first_name", "last_name", "email", "phone", "desired_move_in_date"])("%s is required", (field) => {
    expect(schema.safeParse({ ...valid, [field]: "" }).success).toBe(false);
  });

  it("refuses a bad email and a short phone", () => {
    expect(schema.safeParse({ ...valid, email: "grace@" }).success).toBe(false);
    expect(schema.safeParse({ ...valid, phone: "555-0199" }).success).toBe(false);
  });
});
