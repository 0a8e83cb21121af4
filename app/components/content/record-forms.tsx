import { getFormProps, useForm, type FieldMetadata, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type { ReactNode } from "react";
import { Form, useLocation } from "react-router";
import { controlOf, fieldOf, formErrorMap, formSchemaFor, WEEKDAY_LABELS, WEEKDAYS, type FormEntity } from "~/domain/content/form";
import { CsrfInput } from "../ui/form";

/**
 * The console's content forms (issue 24, decision 301): one form per record, its controls drawn from
 * the registry's field kinds, Conform + the registry's schemas for the checks (in the browser with
 * JavaScript; on the server always), each error beside its field, the typed values kept, fields the
 * draft changes marked "Changed, not published", and after a stale save both values with the choice
 * to keep theirs or save yours again (decision 302). Works without JavaScript.
 */

/** What a content action answers when it does not redirect (app/services/content/editor.server.ts). */
export interface ContentActionData {
  formId: string;
  result: SubmissionResult<string[]>;
  base: string | null;
  conflict: boolean;
}

export const CONTENT_DONE: Record<string, string> = {
  saved: "Saved to the draft. The live site changes when the draft is published.",
  added: "Added to the draft. The live site changes when the draft is published.",
  removed: "Marked for removal in the draft. The live site changes when the draft is published.",
  moved: "The new order was saved to the draft.",
  "location-added": "Location added. It is not on the website yet: add its photos here, preview it, then publish the draft on Changes.",
};

/** The note under a page's heading: edits wait in the draft, with the links to review and publish. */
export function DraftNote({ done }: { done: string | null }) {
  return (
    <>
      {done ? (
        <div className="console-alert console-alert--success" role="status">
          <p>
            {done} <a href="/admin/changes">Review and publish the changes</a>
          </p>
        </div>
      ) : null}
      <p className="console-hint">
        Changes are saved to a draft and go live together when published on <a href="/admin/changes">Changes</a>.
      </p>
    </>
  );
}

interface Choice {
  value: string;
  label: string;
}

interface RecordFormProps {
  formId: string;
  target: string;
  entity: FormEntity;
  fields: readonly string[];
  intent: "save" | "create";
  values: Record<string, string | string[]>;
  base?: string;
  pending?: readonly string[];
  recordId?: number | null;
  createKey?: string | null;
  /** Hidden fields the form posts (a new record's parent). */
  hidden?: Record<string, string>;
  /** Options for select and reference fields (a menu item's parent, an old domain's location). */
  choices?: Record<string, Choice[]>;
  /** Hints shown under a field, over the registry's. */
  hints?: Record<string, string>;
  csrfToken: string;
  actionData?: ContentActionData | null;
  submitLabel: string;
  legend: string;
  removable?: boolean;
  movable?: boolean;
  children?: ReactNode;
}

/** One record's form (or a new record's). */
export function RecordForm(props: RecordFormProps) {
  const { formId, entity, fields, actionData } = props;
  const mine = actionData && actionData.formId === formId ? actionData : null;
  const schema = formSchemaFor(entity, fields);
  const [form, meta] = useForm({
    id: formId,
    lastResult: mine?.result ?? undefined,
    defaultValue: props.values as unknown as Record<string, string>,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema, disableAutoCoercion: true, error: formErrorMap }),
  });
  const location = useLocation();
  const base = mine?.base ?? props.base;
  const pending = new Set(props.pending ?? []);
  return (
    <Form method="post" reloadDocument {...getFormProps(form)} className="console-record">
      <fieldset>
        <legend className="console-legend">{props.legend}</legend>
        {form.errors?.length ? (
          <div id={form.errorId} className="console-alert console-alert--error" role="alert">
            {form.errors.map((e) => (
              <p key={e}>{e}</p>
            ))}
            {mine?.conflict ? (
              <p>
                <a href={location.pathname}>Keep theirs (reload this page)</a>, or press “Save mine again” to keep yours.
              </p>
            ) : null}
          </div>
        ) : null}
        <CsrfInput token={props.csrfToken} />
        <input type="hidden" name="formId" value={formId} />
        <input type="hidden" name="target" value={props.target} />
        {props.recordId ? <input type="hidden" name="recordId" value={props.recordId} /> : null}
        {props.createKey ? <input type="hidden" name="createKey" value={props.createKey} /> : null}
        {base ? <input type="hidden" name="base" value={base} /> : null}
        {Object.entries(props.hidden ?? {}).map(([k, v]) => (
          <input key={k} type="hidden" name={k} value={v} />
        ))}
        {fields.map((name) => (
          <ContentField
            key={name}
            entity={entity}
            name={name}
            meta={meta[name] as FieldMetadata<string | string[] | undefined>}
            pending={pending.has(name)}
            choices={props.choices?.[name]}
            hint={props.hints?.[name]}
          />
        ))}
        {props.children}
        <div className="console-actions">
          <button type="submit" name="intent" value={props.intent} className="console-button">
            {mine?.conflict ? "Save mine again" : props.submitLabel}
          </button>
          {props.movable ? (
            <>
              <button type="submit" name="intent" value="up" formNoValidate className="console-button console-button--quiet">
                Move up<span className="visually-hidden"> {props.legend}</span>
              </button>
              <button type="submit" name="intent" value="down" formNoValidate className="console-button console-button--quiet">
                Move down<span className="visually-hidden"> {props.legend}</span>
              </button>
            </>
          ) : null}
          {props.removable ? (
            <button type="submit" name="intent" value="delete" formNoValidate className="console-button console-button--danger">
              Remove<span className="visually-hidden"> {props.legend}</span>
            </button>
          ) : null}
        </div>
      </fieldset>
    </Form>
  );
}

/** A saved (or drafted) record of a list as the loader gives it (`FormRecord` of content-editor.server). */
interface ListedRecord {
  key: string;
  id: number | null;
  createKey: string | null;
  values: Record<string, string | string[]>;
  base: string;
  pending: string[];
  raw: Record<string, unknown>;
}

/** ` (new)` after the name of a record the draft adds. */
export const newSuffix = (record: { id: number | null }) => (record.id === null ? " (new)" : "");

/**
 * The form of each record of a list, saved or removed one at a time (`formId` = prefix + key). The
 * list's "add" form stays the caller's; `extra` adds content under a record's fields.
 */
export function RecordForms<R extends ListedRecord>(
  props: Omit<RecordFormProps, "formId" | "intent" | "values" | "base" | "pending" | "recordId" | "createKey" | "legend" | "children"> & {
    records: readonly R[];
    idPrefix: string;
    legend: (record: R) => string;
    extra?: (record: R) => ReactNode;
  },
) {
  const { records, idPrefix, legend, extra, ...shared } = props;
  return records.map((r) => (
    <RecordForm
      key={r.key}
      {...shared}
      formId={`${idPrefix}-${r.key}`}
      intent="save"
      values={r.values}
      base={r.base}
      pending={r.pending}
      recordId={r.id}
      createKey={r.createKey}
      legend={legend(r)}
    >
      {extra?.(r)}
    </RecordForm>
  ));
}

/**
 * One form per group of a single record's fields (a location's details, the website's settings): the
 * form's id and target are the group's key, its button "Save <legend>".
 */
export function GroupForms(props: {
  groups: Record<string, { fields: readonly string[]; legend: string }>;
  records: Record<string, { values: Record<string, string | string[]>; base: string; pending: string[] }>;
  entity: FormEntity;
  recordId: number;
  csrfToken: string;
  actionData: ContentActionData | null;
  hints?: (key: string) => Record<string, string> | undefined;
  extra?: (key: string) => ReactNode;
}) {
  return Object.entries(props.groups).map(([key, g]) => {
    const record = props.records[key]!;
    return (
      <RecordForm
        key={key}
        formId={key}
        target={key}
        entity={props.entity}
        fields={g.fields}
        intent="save"
        values={record.values}
        base={record.base}
        pending={record.pending}
        recordId={props.recordId}
        csrfToken={props.csrfToken}
        actionData={props.actionData}
        legend={g.legend}
        submitLabel={`Save ${g.legend.toLowerCase()}`}
        hints={props.hints?.(key)}
      >
        {props.extra?.(key)}
      </RecordForm>
    );
  });
}

function asText(v: unknown): string {
  return typeof v === "string" ? v : Array.isArray(v) ? String(v[0] ?? "") : "";
}

/** One field: its label (marked when the draft changes it), hint, control and error. */
function ContentField({
  entity,
  name,
  meta,
  pending,
  choices,
  hint,
}: {
  entity: FormEntity;
  name: string;
  meta: FieldMetadata<string | string[] | undefined>;
  pending: boolean;
  choices?: Choice[];
  hint?: string;
}) {
  const field = fieldOf(entity, name);
  const control = controlOf(entity, name);
  const errors = meta.errors ?? [];
  const hintText = hint ?? (control === "html" ? "HTML. Scripts, styles and unsafe attributes are removed when the page is shown." : field.hint);
  const hintId = hintText ? `${meta.id}-hint` : undefined;
  const describedBy = [hintId, errors.length ? meta.errorId : undefined].filter(Boolean).join(" ") || undefined;
  const common = { id: meta.id, name: meta.name, "aria-invalid": errors.length ? true : undefined, "aria-describedby": describedBy } as const;
  const initial = meta.initialValue as string | string[] | undefined;
  const label = (
    <>
      {field.label}
      {pending ? <span className="console-badge"> Changed, not published</span> : null}
    </>
  );
  const errorBlock = errors.length ? (
    <p id={meta.errorId} className="console-error">
      {errors.join(" ")}
    </p>
  ) : null;
  const hintBlock = hintText ? (
    <p id={hintId} className="console-hint">
      {hintText}
    </p>
  ) : null;

  if (control === "bool") {
    return (
      <div className={errors.length ? "console-field console-field--check console-field--invalid" : "console-field console-field--check"}>
        <input type="checkbox" value="on" defaultChecked={asText(initial) === "on"} {...common} /> <label htmlFor={meta.id}>{label}</label>
        {hintBlock}
        {errorBlock}
      </div>
    );
  }
  if (control === "weekdays") {
    const chosen = new Set(Array.isArray(initial) ? initial : initial ? [initial] : []);
    return (
      <fieldset className={errors.length ? "console-field console-field--invalid" : "console-field"} aria-describedby={describedBy} id={meta.id}>
        <legend className="console-legend">{label}</legend>
        {hintBlock}
        <div className="console-days">
          {WEEKDAYS.map((d) => (
            <span key={d}>
              <input type="checkbox" id={`${meta.id}-${d}`} name={meta.name} value={d} defaultChecked={chosen.has(d)} /> <label htmlFor={`${meta.id}-${d}`}>{WEEKDAY_LABELS[d]}</label>
            </span>
          ))}
        </div>
        {errorBlock}
      </fieldset>
    );
  }
  if (control === "image" || control === "images") return null;
  let input: ReactNode;
  const text = asText(initial);
  if (control === "choice") {
    // A number chosen from the page's choices (a SiteLink discount plan, decision 671); a value the
    // choices no longer hold is kept as one of them by the page, so nothing chosen is lost.
    input = (
      <select {...common} defaultValue={text}>
        {field.schema.safeParse(null).success ? <option value="">(none)</option> : null}
        {(choices ?? []).map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else if (control === "select" || (control === "ref" && choices)) {
    const options = choices ?? (field.options ?? []).map((o) => ({ value: o, label: o === "301" ? "301 (permanent)" : o === "302" ? "302 (temporary)" : o }));
    input = (
      <select {...common} defaultValue={text}>
        {control === "ref" && field.schema.safeParse(null).success ? <option value="">(none)</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    );
  } else if (control === "textarea" || control === "html" || control === "list" || control === "json") {
    input = <textarea {...common} defaultValue={text} rows={control === "json" ? 10 : control === "html" ? 8 : 4} className={control === "json" || control === "html" ? "console-code" : undefined} spellCheck={control === "json" ? false : undefined} />;
  } else if (control === "time") {
    input = <input type="time" {...common} defaultValue={text} />;
  } else if (control === "date") {
    input = <input type="date" {...common} defaultValue={text} />;
  } else if (control === "money") {
    // Dollars as typed ("25", "25.50", "$25.00"), stored as cents (decision 670).
    input = (
      <span className="console-money">
        <span aria-hidden="true">$</span>
        <input type="text" inputMode="decimal" autoComplete="off" {...common} defaultValue={text} />
      </span>
    );
  } else if (control === "int" || control === "number" || control === "ref") {
    input = <input type="text" inputMode={control === "int" || control === "ref" ? "numeric" : "decimal"} {...common} defaultValue={text} />;
  } else {
    input = <input type="text" {...common} defaultValue={text} />;
  }
  return (
    <div className={errors.length ? "console-field console-field--invalid" : "console-field"}>
      <label htmlFor={meta.id}>{label}</label>
      {hintBlock}
      {input}
      {errorBlock}
    </div>
  );
}

/** An image field, read-only here: photos are changed on the photos page. */
export function ImageFieldNote({ label, photosHref, count }: { label: string; photosHref?: string; count: number | null }) {
  return (
    <div className="console-field">
      <p className="console-legend">{label}</p>
      <p className="console-hint">
        {count === null ? "" : `${count === 0 ? "None" : count === 1 ? "One image" : `${count} images`}. `}
        {photosHref ? <a href={photosHref}>Change on the photos page</a> : "Images are changed by uploading them."}
      </p>
    </div>
  );
}

/** The links between a location's content pages. */
export function LocationContentNav({ locationId, current }: { locationId: number; current: "details" | "hours" | "special-hours" | "amenities" | "settings" }) {
  const base = `/admin/content/locations/${locationId}`;
  const items = [
    { key: "details", href: base, label: "Details and address" },
    { key: "hours", href: `${base}/hours`, label: "Hours" },
    { key: "special-hours", href: `${base}/special-hours`, label: "Special hours" },
    { key: "amenities", href: `${base}/amenities`, label: "Amenities" },
    { key: "photos", href: `${base}/photos`, label: "Photos" },
    { key: "settings", href: `${base}/settings`, label: "Rental settings here" },
  ];
  return (
    <nav aria-label="This location's content" className="console-subnav">
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <ul>
        {items.map((i) => (
          <li key={i.key}>
            <a href={i.href} aria-current={i.key === current ? "page" : undefined}>
              {i.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
