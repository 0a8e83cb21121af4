import { z } from "zod";

/**
 * The filters every desk list shares (issue 23): location, a date range (inclusive, as the location's
 * calendar dates, YYYY-MM-DD), a status, a search text and the page. Read from the query string (a GET
 * form, so filters work without JavaScript and a filtered list has its own URL); the CSV export takes
 * the same query string and so exports exactly what the list shows. Pure.
 */
export const DESK_PAGE_SIZE = 50;

const isoDate = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Enter a date as YYYY-MM-DD.")
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), "Enter a real date.");

const optional = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

const fields = {
  location: optional(z.coerce.number().int().positive("Choose a location from the list.")),
  from: optional(isoDate),
  to: optional(isoDate),
  status: optional(z.string().trim().max(40)),
  q: optional(z.string().trim().max(100, "Search for at most 100 characters.")),
  page: optional(z.coerce.number().int().min(1).max(100_000)),
  kind: optional(z.string().trim().max(40)),
  due_from: optional(isoDate),
  due_to: optional(isoDate),
};

const deskFilterSchema = z
  .object(fields)
  .refine((f) => !f.from || !f.to || f.from <= f.to, { message: "The end date must not be before the start date.", path: ["to"] })
  .refine((f) => !f.due_from || !f.due_to || f.due_from <= f.due_to, { message: "The end date must not be before the start date.", path: ["due_to"] });

export type DeskFilter = {
  location?: number;
  from?: string;
  to?: string;
  status?: string;
  q?: string;
  page: number;
  /** A kind of row, on lists that have kinds (leads: contact, notify, abandoned_rental). */
  kind?: string;
  /**
   * A second date range, on lists with a date that is due (issue 39, decision 514): reservations by
   * their move-in date, tenants by their move-out date (an active lease with notice given).
   */
  due_from?: string;
  due_to?: string;
};

type DeskFilterResult = { ok: true; filter: DeskFilter } | { ok: false; filter: DeskFilter; errors: Partial<Record<keyof DeskFilter, string>> };

/** Reads the filters; a bad value is reported beside its field and left out of the filter (the rest still applies). */
export function parseDeskFilter(params: URLSearchParams, statuses?: readonly string[], options: { kinds?: readonly string[]; due?: boolean } = {}): DeskFilterResult {
  const { kinds, due } = options;
  const raw = Object.fromEntries(["location", "from", "to", "status", "q", "page", "kind", "due_from", "due_to"].map((k) => [k, params.get(k) ?? undefined]));
  const errors: Partial<Record<keyof DeskFilter, string>> = {};
  const result = deskFilterSchema.safeParse(raw);
  let filter: DeskFilter = { page: 1 };
  if (result.success) {
    filter = { ...result.data, page: result.data.page ?? 1 };
  } else {
    for (const issue of result.error.issues) errors[issue.path[0] as keyof DeskFilter] ??= issue.message;
    // Keep what is valid: parse each field on its own.
    for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
      if (errors[key]) continue;
      const one = fields[key].safeParse(raw[key]);
      if (one.success && one.data !== undefined) (filter as Record<string, unknown>)[key] = one.data;
    }
    if (errors.to && filter.from && raw.to) delete filter.to;
    if (errors.due_to && filter.due_from && raw.due_to) delete filter.due_to;
  }
  if (filter.status && statuses && !statuses.includes(filter.status)) {
    errors.status = "Choose a status from the list.";
    delete filter.status;
  }
  // A list without a due date ignores the range (and does not carry it in its links).
  if (!due) {
    delete filter.due_from;
    delete filter.due_to;
    delete errors.due_from;
    delete errors.due_to;
  }
  if (filter.kind && (!kinds || !kinds.includes(filter.kind))) {
    if (kinds) errors.kind = "Choose a kind from the list.";
    delete filter.kind;
  }
  return Object.keys(errors).length ? { ok: false, filter, errors } : { ok: true, filter };
}

/** The query string of a filter (for page links and the CSV link), without the page unless asked. */
export function deskFilterQuery(filter: DeskFilter, page?: number): string {
  const p = new URLSearchParams();
  if (filter.location) p.set("location", String(filter.location));
  if (filter.from) p.set("from", filter.from);
  if (filter.to) p.set("to", filter.to);
  if (filter.status) p.set("status", filter.status);
  if (filter.q) p.set("q", filter.q);
  if (filter.kind) p.set("kind", filter.kind);
  if (filter.due_from) p.set("due_from", filter.due_from);
  if (filter.due_to) p.set("due_to", filter.due_to);
  if (page && page > 1) p.set("page", String(page));
  const s = p.toString();
  return s ? `?${s}` : "";
}
