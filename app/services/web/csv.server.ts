import { stringify } from "csv-stringify/sync";

/**
 * CSV exports of the console's lists and the audit trail (issue 23): exactly the rows the filter
 * shows, as RFC 4180 CSV (csv-stringify), with a header row. A cell that a spreadsheet would run as a
 * formula (starting with = + - @, a tab or a carriage return) is prefixed with a single quote (OWASP's
 * advice on CSV injection): a renter's name cannot become a formula on the office's computer.
 */
export interface CsvColumn<Row> {
  header: string;
  value: (row: Row) => string | number | boolean | null | undefined;
}

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value == null) return "";
  const text = String(value);
  return typeof value === "string" && FORMULA_START.test(text) ? `'${text}` : text;
}

export function toCsv<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[]): string {
  return stringify(
    rows.map((row) => columns.map((c) => csvCell(c.value(row)))),
    { header: true, columns: columns.map((c) => c.header), record_delimiter: "windows", quoted_match: /[\r\n]/ },
  );
}

/** A download: text/csv, never cached, named `<name>-<yyyy-mm-dd>.csv`. */
export function csvResponse(name: string, body: string, today: string): Response {
  const file = `${name.replace(/[^a-z0-9-]/gi, "-")}-${today}.csv`;
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${file}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
