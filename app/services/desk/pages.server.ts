import { data, type RouterContextProvider } from "react-router";
import type { Database } from "~/db/client.server";
import { NO_STORE } from "~/domain/web/cache";
import { DESK_PAGE_SIZE, type DeskFilter } from "~/domain/desk/filters";
import { pageOf } from "~/domain/desk/lists";
import { can } from "~/domain/staff/roles";
import { now as clockNow } from "~/platform/clock.server";
import { csvResponse, toCsv, type CsvColumn } from "../web/csv.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { deskToday, readDeskQuery, type DeskQuery, type DeskViewer } from "./scope.server";
import { auditActor, type SignedInStaff } from "../staff/context.server";
import { recordAudit } from "../audit/events.server";
import { requireFreshFactorForPage } from "../staff/step-up.server";

/**
 * What the four list pages' loaders and CSV exports share (issue 23): read the filter (its location
 * checked against the member's), list every row the filter shows, then either one page of them or
 * all of them as CSV. The callers check the permission first (desk.view, desk.export).
 */
type DeskLister<Row> = (db: Database, viewer: DeskViewer, query: DeskQuery, now: Date) => Promise<Row[]>;

type Context = Readonly<RouterContextProvider>;

export function deskViewer(staff: SignedInStaff): DeskViewer {
  return { accountId: staff.accountId, scope: staff.scope };
}

interface DeskPageData<Row> {
  filter: DeskFilter;
  errors: Partial<Record<keyof DeskFilter, string>>;
  locations: Array<{ id: number; name: string }>;
  rows: Row[];
  total: number;
  canExport: boolean;
}

/** One page of a list, with its filter, messages and the member's locations. */
export async function deskPage<Row>(
  context: Context,
  request: Request,
  staff: SignedInStaff,
  options: { statuses?: readonly string[]; kinds?: readonly string[]; due?: boolean; list: DeskLister<Row>; now?: Date },
): Promise<DeskPageData<Row> & { all: Row[]; query: DeskQuery }> {
  const now = options.now ?? clockNow();
  const query = await readDeskQuery(context.db, deskViewer(staff), new URL(request.url), options.statuses, { kinds: options.kinds, due: options.due });
  const all = await options.list(context.db, deskViewer(staff), query, now);
  const pages = Math.max(1, Math.ceil(all.length / DESK_PAGE_SIZE));
  const filter = { ...query.filter, page: Math.min(query.filter.page, pages) };
  return {
    filter,
    errors: query.errors,
    locations: query.locations.map((l) => ({ id: l.id, name: l.name })),
    rows: pageOf(all, filter.page, DESK_PAGE_SIZE),
    total: all.length,
    canExport: can(staff.role, "desk.export"),
    all,
    query,
  };
}

/**
 * Every row the filter shows, as CSV (the page's rows on all its pages, nothing else). A filter with
 * a bad value (a location outside the member's) is refused (400) rather than exported differently
 * from what the page would show.
 */
export async function deskCsv<Row>(
  context: Context,
  request: Request,
  staff: SignedInStaff,
  options: { name: string; statuses?: readonly string[]; kinds?: readonly string[]; due?: boolean; list: DeskLister<Row>; columns: readonly CsvColumn<Row>[]; now?: Date },
): Promise<Response> {
  const now = options.now ?? clockNow();
  // Exports of personal data need a second factor given in the last 10 minutes (decision 250).
  requireFreshFactorForPage(staff, request, now);
  const query = await readDeskQuery(context.db, deskViewer(staff), new URL(request.url), options.statuses, { kinds: options.kinds, due: options.due });
  if (Object.keys(query.errors).length) {
    throw data({ message: Object.values(query.errors).join(" ") }, { status: 400, headers: { "Cache-Control": NO_STORE } });
  }
  const rows = await options.list(context.db, deskViewer(staff), query, now);
  // Every export is in the audit trail: who, the filter, how many rows (never the rows themselves).
  const filter = Object.fromEntries(new URL(request.url).searchParams);
  await recordAudit(context.db, { ...auditActor(staff), action: `${options.name.replace(/\W+/g, "_")}.exported`, detail: { filter, rows: rows.length }, at: now });
  return csvResponse(options.name, toCsv(options.columns, rows), deskToday(now, query.locations));
}

/** Desk actions per staff member per 10 minutes (a stolen session cannot mass-edit). */
export const DESK_ACTIONS_PER_STAFF = 60;
const DESK_ACTIONS_WINDOW_MS = 10 * 60 * 1000;

/** Counts one desk action by the member; the refusal's message when over the limit, else null. */
export async function limitDeskAction(db: Database, staff: SignedInStaff, now: Date): Promise<string | null> {
  const r = await hitRateLimit(db, { key: `desk-act:staff:${staff.staffId}`, limit: DESK_ACTIONS_PER_STAFF, windowMs: DESK_ACTIONS_WINDOW_MS, now });
  return r.allowed ? null : `Too many changes in a short time. Please wait ${r.retryAfterMinutes} minutes and try again.`;
}
