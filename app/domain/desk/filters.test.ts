import { describe, expect, it } from "vitest";
import { deskFilterQuery, parseDeskFilter } from "./filters";

const parse = (q: string, statuses?: string[]) => parseDeskFilter(new URLSearchParams(q), statuses);

describe("desk list filters", () => {
  it("reads location, dates, status, search and page; blanks are no filter", () => {
    expect(parse("location=2&from=2026-11-01&to=2026-11-25&status=confirmed&q=ann&page=3", ["confirmed"])).toEqual({
      ok: true,
      filter: { location: 2, from: "2026-11-01", to: "2026-11-25", status: "confirmed", q: "ann", page: 3 },
    });
    expect(parse("location=&from=&q=")).toEqual({ ok: true, filter: { page: 1 } });
  });

  it("reports a bad value beside its field and keeps the rest of the filter", () => {
    const r = parse("location=2&from=26/11/2026&status=weird", ["confirmed"]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.from).toBe("Enter a date as YYYY-MM-DD.");
    expect(r.errors.status).toBe("Choose a status from the list.");
    expect(r.filter).toEqual({ location: 2, page: 1 });
  });

  it("refuses an end date before the start date", () => {
    const r = parse("from=2026-11-20&to=2026-11-01");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors.to).toBe("The end date must not be before the start date.");
      expect(r.filter.from).toBe("2026-11-20");
      expect(r.filter.to).toBeUndefined();
    }
  });

  it("writes the query string back for page and export links", () => {
    expect(deskFilterQuery({ location: 2, q: "a b", page: 1 }, 2)).toBe("?location=2&q=a+b&page=2");
    expect(deskFilterQuery({ page: 1 })).toBe("");
  });
  it("takes a kind and a due-date range only on lists that have them (decision 514)", () => {
    const q = new URLSearchParams("kind=abandoned_rental&due_from=2026-11-22&due_to=2026-11-29");
    expect(parseDeskFilter(q)).toEqual({ ok: true, filter: { page: 1 } });
    expect(parseDeskFilter(q, undefined, { kinds: ["abandoned_rental"], due: true })).toEqual({
      ok: true,
      filter: { kind: "abandoned_rental", due_from: "2026-11-22", due_to: "2026-11-29", page: 1 },
    });
    const bad = parseDeskFilter(new URLSearchParams("kind=other&due_from=2026-11-29&due_to=2026-11-22"), undefined, { kinds: ["contact"], due: true });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.errors.kind).toBe("Choose a kind from the list.");
      expect(bad.errors.due_to).toBe("The end date must not be before the start date.");
      expect(bad.filter).toEqual({ due_from: "2026-11-29", page: 1 });
    }
    expect(deskFilterQuery({ location: 1, kind: "notify", due_to: "2026-11-29", page: 1 })).toBe("?location=1&kind=notify&due_to=2026-11-29");
  });
});
