import { describe, expect, it } from "vitest";
import { csvCell, csvResponse, toCsv } from "./csv.server";

describe("CSV exports", () => {
  it("writes a header row and quotes commas, quotes and line breaks (RFC 4180)", () => {
    const csv = toCsv(
      [
        { header: "Name", value: (r: { name: string; cents: number }) => r.name },
        { header: "Amount", value: (r) => r.cents },
      ],
      [{ name: 'Ann "Annie", Lee', cents: 12_345 }, { name: "Line\nbreak", cents: 0 }],
    );
    expect(csv).toBe('Name,Amount\r\n"Ann ""Annie"", Lee",12345\r\n"Line\nbreak",0\r\n');
  });

  it("defuses cells a spreadsheet would run as formulas", () => {
    expect(csvCell("=HYPERLINK(\"http://x\")")).toBe("'=HYPERLINK(\"http://x\")");
    expect(csvCell("+1 910 555 0100")).toBe("'+1 910 555 0100");
    expect(csvCell("-5")).toBe("'-5");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell(-5)).toBe("-5");
    expect(csvCell("Ann")).toBe("Ann");
    expect(csvCell(null)).toBe("");
  });

  it("is a download that is never cached", async () => {
    const res = csvResponse("online rentals", "a\r\n", "2026-11-26");
    expect(res.headers.get("Content-Disposition")).toBe('attachment; filename="online-rentals-2026-11-26.csv"');
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(await res.text()).toBe("a\r\n");
  });
});
