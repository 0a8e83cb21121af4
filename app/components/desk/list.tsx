import type { ReactNode } from "react";
import { DESK_PAGE_SIZE, deskFilterQuery, type DeskFilter } from "~/domain/desk/filters";
import { ErrorSummary } from "../ui/error-summary";
import { FieldErrors } from "../ui/form";

/**
 * One of the desk's lists (issue 23): the filter form (a GET form, so it works without JavaScript and
 * a filtered list has its own URL), the rows as a table with a caption, the pager, and the CSV link,
 * which carries the same query string and so exports exactly what the filter shows.
 */
interface DeskColumn<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  /** Right-align numbers and money. */
  numeric?: boolean;
}

interface DeskListProps<Row> {
  title: string;
  /** The list's path, e.g. /admin/rentals (the form's action and the pager's links). */
  path: string;
  filter: DeskFilter;
  errors?: Partial<Record<keyof DeskFilter, string>>;
  /** The locations the member may see (the location filter offers only these). */
  locations: Array<{ id: number; name: string }>;
  /** The statuses this list knows, with their labels; none: no status filter. */
  statuses?: Array<{ value: string; label: string }>;
  /** Label of the search box; none: no search. */
  searchLabel?: string;
  /** Whether the date range filter is offered, and what it filters by. */
  dateLabel?: string;
  /** The kinds of row this list knows (leads), with their labels; none: no kind filter. */
  kinds?: Array<{ value: string; label: string }>;
  /** Whether the due-date range is offered (move-in or move-out date), and its legend (decision 514). */
  dueLabel?: string;
  columns: DeskColumn<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string | number;
  total: number;
  /** The CSV export's path (same query string), when the member may export. */
  csvPath?: string;
  /** Shown under the table (e.g. the day's totals). */
  footer?: ReactNode;
  empty?: string;
}

const FIELD_IDS: Record<keyof DeskFilter, string> = { location: "filter-location", from: "filter-from", to: "filter-to", status: "filter-status", q: "filter-q", page: "filter-page", kind: "filter-kind", due_from: "filter-due-from", due_to: "filter-due-to" };

export function DeskList<Row>(props: DeskListProps<Row>) {
  const { filter, errors = {}, total } = props;
  const pages = Math.max(1, Math.ceil(total / DESK_PAGE_SIZE));
  const query = deskFilterQuery(filter);
  const err = (k: keyof DeskFilter) => (errors[k] ? { "aria-invalid": true as const, "aria-describedby": `${FIELD_IDS[k]}-error` } : {});
  const summary = (Object.keys(errors) as (keyof DeskFilter)[]).map((k) => ({ fieldId: FIELD_IDS[k], message: errors[k]! }));
  return (
    <section aria-labelledby="desk-list-title" className="desk-list">
      <h1 id="desk-list-title">{props.title}</h1>
      <ErrorSummary errors={summary} />
      <form method="get" action={props.path} className="desk-filter" aria-label={`Filter ${props.title.toLowerCase()}`}>
        <div className="field">
          <label htmlFor={FIELD_IDS.location}>Location</label>
          <select id={FIELD_IDS.location} name="location" defaultValue={filter.location ?? ""} {...err("location")}>
            <option value="">All my locations</option>
            {props.locations.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
          <FieldErrors id={`${FIELD_IDS.location}-error`} errors={errors.location ? [errors.location] : undefined} />
        </div>
        {props.dateLabel ? (
          <fieldset className="desk-filter__dates">
            <legend>{props.dateLabel}</legend>
            <div className="field">
              <label htmlFor={FIELD_IDS.from}>From</label>
              <input id={FIELD_IDS.from} name="from" type="date" defaultValue={filter.from ?? ""} {...err("from")} />
              <FieldErrors id={`${FIELD_IDS.from}-error`} errors={errors.from ? [errors.from] : undefined} />
            </div>
            <div className="field">
              <label htmlFor={FIELD_IDS.to}>To</label>
              <input id={FIELD_IDS.to} name="to" type="date" defaultValue={filter.to ?? ""} {...err("to")} />
              <FieldErrors id={`${FIELD_IDS.to}-error`} errors={errors.to ? [errors.to] : undefined} />
            </div>
          </fieldset>
        ) : null}
        {props.dueLabel ? (
          <fieldset className="desk-filter__dates">
            <legend>{props.dueLabel}</legend>
            <div className="field">
              <label htmlFor={FIELD_IDS.due_from}>From</label>
              <input id={FIELD_IDS.due_from} name="due_from" type="date" defaultValue={filter.due_from ?? ""} {...err("due_from")} />
              <FieldErrors id={`${FIELD_IDS.due_from}-error`} errors={errors.due_from ? [errors.due_from] : undefined} />
            </div>
            <div className="field">
              <label htmlFor={FIELD_IDS.due_to}>To</label>
              <input id={FIELD_IDS.due_to} name="due_to" type="date" defaultValue={filter.due_to ?? ""} {...err("due_to")} />
              <FieldErrors id={`${FIELD_IDS.due_to}-error`} errors={errors.due_to ? [errors.due_to] : undefined} />
            </div>
          </fieldset>
        ) : null}
        {props.kinds ? (
          <div className="field">
            <label htmlFor={FIELD_IDS.kind}>Kind</label>
            <select id={FIELD_IDS.kind} name="kind" defaultValue={filter.kind ?? ""} {...err("kind")}>
              <option value="">Any kind</option>
              {props.kinds.map((k) => (
                <option key={k.value} value={k.value}>
                  {k.label}
                </option>
              ))}
            </select>
            <FieldErrors id={`${FIELD_IDS.kind}-error`} errors={errors.kind ? [errors.kind] : undefined} />
          </div>
        ) : null}
        {props.statuses ? (
          <div className="field">
            <label htmlFor={FIELD_IDS.status}>Status</label>
            <select id={FIELD_IDS.status} name="status" defaultValue={filter.status ?? ""} {...err("status")}>
              <option value="">Any status</option>
              {props.statuses.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
            <FieldErrors id={`${FIELD_IDS.status}-error`} errors={errors.status ? [errors.status] : undefined} />
          </div>
        ) : null}
        {props.searchLabel ? (
          <div className="field">
            <label htmlFor={FIELD_IDS.q}>{props.searchLabel}</label>
            <input id={FIELD_IDS.q} name="q" type="search" defaultValue={filter.q ?? ""} {...err("q")} />
            <FieldErrors id={`${FIELD_IDS.q}-error`} errors={errors.q ? [errors.q] : undefined} />
          </div>
        ) : null}
        <button type="submit" className="button">
          Show
        </button>
      </form>
      <p className="desk-list__count" aria-live="polite">
        {total === 1 ? "1 result" : `${total} results`}
        {props.csvPath ? (
          <>
            {" · "}
            <a href={`${props.csvPath}${query}`} download>
              Export these {total === 1 ? "" : total} as CSV
            </a>
          </>
        ) : null}
      </p>
      {props.rows.length ? (
        <div className="desk-table" role="region" aria-labelledby="desk-list-title" tabIndex={0}>
          <table>
            <caption className="visually-hidden">
              {props.title}, page {filter.page} of {pages}
            </caption>
            <thead>
              <tr>
                {props.columns.map((c) => (
                  <th key={c.header} scope="col" className={c.numeric ? "numeric" : undefined}>
                    {c.header}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {props.rows.map((row) => (
                <tr key={props.rowKey(row)}>
                  {props.columns.map((c) => (
                    <td key={c.header} className={c.numeric ? "numeric" : undefined} data-label={c.header}>
                      {c.cell(row)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p>{props.empty ?? "Nothing matches this filter."}</p>
      )}
      {props.footer}
      {pages > 1 ? (
        <nav aria-label="Pages" className="pager">
          {filter.page > 1 ? <a href={`${props.path}${deskFilterQuery(filter, filter.page - 1)}`} rel="prev">Previous page</a> : null}
          <span>
            Page {filter.page} of {pages}
          </span>
          {filter.page < pages ? <a href={`${props.path}${deskFilterQuery(filter, filter.page + 1)}`} rel="next">Next page</a> : null}
        </nav>
      ) : null}
    </section>
  );
}
