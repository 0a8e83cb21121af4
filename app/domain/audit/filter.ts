import { z } from "zod";

/**
 * The audit trail's filter (issue 23): a date range (calendar dates of the account's time zone), a staff member, an action,
 * a location and the page, read from the query string (a GET form: works without JavaScript, and the
 * CSV link carries the same query). Pure.
 */
export const AUDIT_PAGE_SIZE = 50;

const blank = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const isoDate = z.string().trim().regex(/^\d{4}-\d{2}-\d{2}$/, "Enter a date as YYYY-MM-DD.").refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), "Enter a real date.");
const fields = {
  from: z.preprocess(blank, isoDate.optional()),
  to: z.preprocess(blank, isoDate.optional()),
  staff: z.preprocess(blank, z.coerce.number().int().positive("Choose a staff member from the list.").optional()),
  action: z.preprocess(blank, z.string().trim().max(80, "Choose an action from the list.").regex(/^[a-z_.]+$/, "Choose an action from the list.").optional()),
  location: z.preprocess(blank, z.coerce.number().int().positive("Choose a location from the list.").optional()),
  page: z.preprocess(blank, z.coerce.number().int().min(1).max(100_000).optional()),
};
export type AuditFilter = { from?: string; to?: string; staff?: number; action?: string; location?: number; page: number };
export type AuditFilterErrors = Partial<Record<keyof AuditFilter, string>>;

/** The filter from the query string; a bad value is reported beside its field and left out. */
export function parseAuditFilter(params: URLSearchParams): { filter: AuditFilter; errors: AuditFilterErrors } {
  const filter: AuditFilter = { page: 1 };
  const errors: AuditFilterErrors = {};
  for (const key of Object.keys(fields) as (keyof typeof fields)[]) {
    const parsed = fields[key].safeParse(params.get(key) ?? undefined);
    if (!parsed.success) errors[key] = parsed.error.issues[0]?.message ?? "Not a valid value.";
    else if (parsed.data !== undefined) (filter as Record<string, unknown>)[key] = parsed.data;
  }
  if (filter.from && filter.to && filter.from > filter.to) {
    errors.to = "The end date must not be before the start date.";
    delete filter.to;
  }
  return { filter, errors };
}

export function auditFilterQuery(filter: AuditFilter, page?: number): string {
  const p = new URLSearchParams();
  for (const key of ["from", "to", "staff", "action", "location"] as const) if (filter[key] !== undefined) p.set(key, String(filter[key]));
  if (page && page > 1) p.set("page", String(page));
  const s = p.toString();
  return s ? `?${s}` : "";
}

