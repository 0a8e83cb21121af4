import { parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useActionData } from "react-router";
import type { Route } from "./+types/tenant";
import { CsrfInput } from "~/components/ui/form";
import { formatCents } from "~/domain/shared/money";
import { localDate } from "~/domain/shared/calendar";
import { formatDeskDate as formatDate } from "~/domain/desk/time";
import { DESK_CONTACT_FIELDS, OUTBOX_STATE_LABELS, parseRecordId, TENANT_NOTE_MAX, tenantDeskActionSchema } from "~/domain/desk/tenants";
import { US_STATES } from "~/domain/shared/us-states";
import { can } from "~/domain/staff/roles";
import { getCsrfToken, validateCsrf } from "~/services/web/csrf.server";
import { copyTenantPayLink, getTenantDesk, liftTenantLockout, payLinkMailOff, refundDeskPayment, resendLeaseEmail, resendReceiptEmail, sendTenantPayLink } from "~/services/desk/tenants.server";
import { recordDeskMoveOut } from "~/services/desk/move-outs.server";
import { formToActOn } from "~/services/staff/step-up.server";
import { addTenantNote, changeTenantContact, listTenantNotes, showGateCode, tenantContactForm } from "~/services/desk/tenant-record.server";
import { limitDeskAction } from "~/services/desk/pages.server";
import { notFound } from "~/services/web/responses.server";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";
import { textsOffReason } from "~/platform/texts/provider.server";
import { textTenantPayLink } from "~/services/texts/desk.server";

/**
 * A tenant's page at the back office (issue 23, decision 260): leases, ledgers, payments, autopay,
 * the e-mail outbox and the portal sign-in lockout; the desk lifts the lockout, resends the lease
 * or a receipt e-mail and sends a pay link (POST forms told apart by `intent`, each answered beside its own button).
 */
export const meta: Route.MetaFunction = ({ data: d }) => [{ title: `${d?.desk.tenant.name ?? "Tenant"} | Back office` }, { name: "robots", content: "noindex" }];

/** The small form script (decision 130): its "Copy" button puts the copied pay link on the clipboard. */
export const handle = { enhanceForms: true };

/** No-store, noindex, and the loader's and action's cookies (the console's own headers). */
export const headers: Route.HeadersFunction = consoleRouteHeaders;

const NO_STORE = { "Cache-Control": "no-store" };

const DONE: Record<string, string> = {
  lockout: "The lockout is lifted: the tenant can sign in to the portal again.",
  cleared: "The failed sign-ins are cleared.",
  lease: "The lease e-mail is on its way.",
  receipt: "The receipt e-mail is on its way.",
  paylink: "The pay link is on its way. It works once, for 72 hours.",
  paylinkqueued: "The pay link could not be e-mailed just now: it will be tried again for two days. To be sure the tenant gets it, copy the link and send it another way.",
  paylinktext: "The pay link is on its way by text. It works once, for 72 hours.",
  refund: "The payment is refunded to the card, and the ledger shows the refund.",
  refundpart: "That part of the payment is refunded to the card, and the ledger shows the refund.",
  refundcancelled: "The payment is refunded to the card and the rental is cancelled: the lease has ended, the unit can be rented again, and what the lease still owed is written off.",
  refundchanged: "This payment had a refund recorded since the page was opened (the same form sent twice, or another refund), so nothing was refunded now. Check what is left before refunding more.",
  refunded: "This payment was refunded already; nothing was refunded again.",
  movedout: "The move-out is recorded: the lease has ended and the unit can be rented again.",
  contact: "The contact details are changed, here and in each location's system.",
  contactoffice: "The contact details are saved here; one location's system was not sent the change: make it there too.",
  contactsame: "Nothing was different, so nothing was changed.",
  note: "The note is added.",
};

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const tenantId = parseRecordId(params.tenantId);
  if (!tenantId) throw notFound(NO_STORE);
  const desk = await getTenantDesk(context.db, staff, tenantId, clockNow());
  if (!desk) throw notFound(NO_STORE);
  const csrf = await getCsrfToken(request);
  const done = new URL(request.url).searchParams.get("done");
  const headers = new Headers(NO_STORE);
  if (csrf.setCookie) headers.append("Set-Cookie", csrf.setCookie);
  const now = clockNow();
  const today = Object.fromEntries(desk.leases.map((l) => [l.leaseId, localDate(now, l.timeZone)]));
  const notes = await listTenantNotes(context.db, tenantId, desk.timeZone);
  return data(
    { desk, today, notes, contact: await tenantContactForm(context.db, staff, tenantId), csrfToken: csrf.token, textsOff: textsOffReason(), mailOff: payLinkMailOff(), canAct: can(staff.role, "desk.act"), canRefund: can(staff.role, "payments.refund"), done: done ? (DONE[done] ?? null) : null },
    { headers },
  );
}

/**
 * `link`: the pay link "Copy the link" made (shown once, in this answer only); `gateCode`: the code
 * "Show gate code" read (in this answer only); `fields`/`fieldErrors`: the contact form's values kept
 * and its messages beside each field.
 */
type ActionReply = {
  intent: string;
  id: number | null;
  message: string;
  value?: string;
  checked?: boolean;
  link?: { url: string; unitName: string; due: number; until: string };
  gateCode?: { code: string; unitName: string };
  fields?: Record<string, string>;
  fieldErrors?: Record<string, string>;
};

/** The contact form's fields as posted (kept when refused). */
function contactFieldsOf(raw: Record<string, FormDataEntryValue>): Record<string, string> {
  return Object.fromEntries(DESK_CONTACT_FIELDS.map((k) => [k, typeof raw[k] === "string" ? raw[k] : ""]));
}

export async function action({ request, params, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  const posted = await request.formData();
  await validateCsrf(request, posted);
  // Desk actions: front desk, managers and owners. Refunds: managers and owners, with a second factor
  // given in the last ten minutes (decision 280); a stale one holds the refund until "Confirm it's
  // you", then it is completed here, the role checked again (decisions 643, 660).
  const form = await formToActOn(context.db, staff, request, posted, clockNow(), (f) =>
    f.get("intent") === "refund-payment" ? { permissions: ["desk.act", "payments.refund"], fresh: true } : { permissions: ["desk.act"], fresh: false },
  );
  const tenantId = parseRecordId(params.tenantId);
  if (!tenantId) throw notFound(NO_STORE);
  const raw = Object.fromEntries([...form.entries()].filter(([, v]) => typeof v === "string"));
  const intent = typeof raw.intent === "string" ? raw.intent : "";
  const rawId = Number(raw.leaseId ?? raw.paymentId);
  const id = Number.isInteger(rawId) ? rawId : null;
  const value = typeof raw.moveOutDate === "string" ? raw.moveOutDate : typeof raw.amount === "string" ? raw.amount : typeof raw.note === "string" ? raw.note : undefined;
  const checked = raw.cancelRental === "yes";
  const reply = (message: string, status: number) => data<ActionReply>({ intent, id, message, value, checked }, { status, headers: NO_STORE });
  // Conform + the actions' schema (told apart by intent), like the console's other forms.
  const submission = parseWithZod(form, { schema: tenantDeskActionSchema });
  if (submission.status !== "success" && intent === "change-contact") {
    const fieldErrors = Object.fromEntries(Object.entries(submission.error ?? {}).map(([k, v]) => [k, v?.[0] ?? ""]).filter(([, v]) => v));
    return data<ActionReply>({ intent, id: null, message: "Check the fields marked below: nothing was changed.", fields: contactFieldsOf(raw), fieldErrors }, { status: 400, headers: NO_STORE });
  }
  if (submission.status !== "success") return reply(Object.values(submission.error ?? {}).flat().find((m): m is string => typeof m === "string") ?? "Choose one of the actions on this page.", 400);
  const parsed = { data: submission.value };
  const now = clockNow();
  const limited = await limitDeskAction(context.db, staff, now);
  if (limited) return reply(limited, 429);
  const a = parsed.data;
  if (a.intent === "change-contact") {
    const changed = await changeTenantContact(context.db, staff, { tenantId, contact: a, now });
    if (!changed) throw notFound(NO_STORE);
    if (!changed.ok) return data<ActionReply>({ intent, id: null, message: changed.message, fields: contactFieldsOf(raw), fieldErrors: changed.fieldErrors }, { status: 400, headers: NO_STORE });
    throw redirect(`/admin/tenants/${tenantId}?done=${changed.done}`, { status: 303, headers: NO_STORE });
  }
  if (a.intent === "add-note") {
    const added = await addTenantNote(context.db, staff, { tenantId, note: a.note, now });
    if (!added) throw notFound(NO_STORE);
    throw redirect(`/admin/tenants/${tenantId}?done=note#notes-title`, { status: 303, headers: NO_STORE });
  }
  if (a.intent === "show-gate-code") {
    const shown = await showGateCode(context.db, staff, { tenantId, leaseId: a.leaseId, now });
    if (!shown) throw notFound(NO_STORE);
    if (!shown.ok) return reply(shown.message, 400);
    return data<ActionReply>({ intent, id, message: `The gate code of unit ${shown.unitName}. Give it only to the tenant.`, gateCode: { code: shown.code, unitName: shown.unitName } }, { headers: NO_STORE });
  }
  if (a.intent === "copy-pay-link") {
    const copied = await copyTenantPayLink(context.db, staff, { tenantId, leaseId: a.leaseId, now });
    if (!copied) throw notFound(NO_STORE);
    if (!copied.ok) return reply(copied.message, 400);
    const { ok: _ok, ...link } = copied;
    return data<ActionReply>({ intent, id, message: `The pay link for unit ${link.unitName} is below. It works once, until ${link.until}.`, link }, { headers: NO_STORE });
  }
  const outcome =
    a.intent === "lift-lockout"
      ? await liftTenantLockout(context.db, staff, tenantId, now)
      : a.intent === "resend-lease"
        ? await resendLeaseEmail(context.db, staff, { tenantId, leaseId: a.leaseId, now })
        : a.intent === "send-pay-link"
          ? await sendTenantPayLink(context.db, staff, { tenantId, leaseId: a.leaseId, now })
          : a.intent === "text-pay-link"
            ? await textTenantPayLink(context.db, staff, { tenantId, leaseId: a.leaseId, now })
          : a.intent === "refund-payment"
            ? await refundDeskPayment(context.db, staff, { tenantId, paymentId: a.paymentId, amount: a.amount, refundedBefore: a.refunded, cancelRental: a.cancelRental === "yes", now })
            : a.intent === "record-move-out"
              ? await recordDeskMoveOut(context.db, staff, { tenantId, leaseId: a.leaseId, moveOutDate: a.moveOutDate, now })
              : await resendReceiptEmail(context.db, staff, { tenantId, paymentId: a.paymentId, now });
  if (!outcome) throw notFound(NO_STORE);
  if (!outcome.ok) return reply(outcome.message, 400);
  const done = outcome.done
    ? outcome.done
    : a.intent === "lift-lockout"
      ? outcome.message.startsWith("The lockout")
        ? "lockout"
        : "cleared"
      : a.intent === "resend-lease"
        ? "lease"
        : a.intent === "send-pay-link"
          ? "paylink"
          : a.intent === "text-pay-link"
            ? "paylinktext"
          : a.intent === "refund-payment"
            ? "refund"
            : a.intent === "record-move-out"
              ? "movedout"
              : "receipt";
  throw redirect(`/admin/tenants/${tenantId}?done=${done}`, { status: 303, headers: NO_STORE });
}

function ActionButton(props: { csrfToken: string; intent: string; name?: "leaseId" | "paymentId"; id?: number; label: string; reply: ActionReply | undefined }) {
  const mine = props.reply && props.reply.intent === props.intent && (props.id === undefined || props.reply.id === props.id);
  const errorId = `${props.intent}-${props.id ?? "x"}-message`;
  return (
    <Form method="post" className="desk-action">
      <CsrfInput token={props.csrfToken} />
      <input type="hidden" name="intent" value={props.intent} />
      {props.name && props.id !== undefined ? <input type="hidden" name={props.name} value={props.id} /> : null}
      <button type="submit" className="button" aria-describedby={mine ? errorId : undefined}>
        {props.label}
      </button>
      {mine ? <ActionAnswer id={errorId} message={props.reply!.message} /> : null}
    </Form>
  );
}

/**
 * Whether a payment's refund offers to cancel the rental: a move-in payment of a lease still active.
 * (At a SiteLink location the storage software refuses the refund, and says the tenant is moved out in SiteLink.)
 */
function cancelOffer(p: { source: string; leaseId: number | null }, leases: ReadonlyArray<{ leaseId: number; status: string }>): boolean {
  const lease = leases.find((l) => l.leaseId === p.leaseId);
  return p.source === "move_in" && lease?.status === "active";
}

/**
 * "Copy the link": the button asks the server for a fresh link (audited); the answer shows it in a
 * read-only field to select (JavaScript off) and, with JavaScript, a button that copies it.
 */
function PayLinkCopy(props: { csrfToken: string; leaseId: number; reply: ActionReply | undefined }) {
  const mine = props.reply && props.reply.intent === "copy-pay-link" && props.reply.id === props.leaseId ? props.reply : undefined;
  const answerId = `copy-pay-link-${props.leaseId}-message`;
  const fieldId = `copy-pay-link-${props.leaseId}-url`;
  return (
    <div className="desk-action">
      <Form method="post">
        <CsrfInput token={props.csrfToken} />
        <input type="hidden" name="intent" value="copy-pay-link" />
        <input type="hidden" name="leaseId" value={props.leaseId} />
        <button type="submit" className="button" aria-describedby={mine ? answerId : undefined}>
          Copy the link
        </button>
      </Form>
      {mine && !mine.link ? <ActionAnswer id={answerId} message={mine.message} /> : null}
      {mine?.link ? (
        <div className="pay-link-copy">
          <p id={answerId} role="status">
            {mine.message} {formatCents(mine.link.due)} due.
          </p>
          <p className="console-field">
            <label htmlFor={fieldId}>Pay link for unit {mine.link.unitName}</label>
            <input id={fieldId} type="text" readOnly value={mine.link.url} aria-describedby={answerId} />
          </p>
          {/* Shown and run by the page's small form script (form-enhance.js): no script, no button. */}
          <button type="button" className="button" hidden data-copy-target={fieldId} data-copied="Copied. Paste it into a text or an e-mail." data-copy-failed="It could not be copied here: the link is selected, copy it with the keyboard or the menu.">
            Copy
          </button>
          <p role="status" aria-live="polite" data-copy-status={fieldId} />
        </div>
      ) : null}
    </div>
  );
}

/** The answer to a form this page no longer offers (it was sent from an older page): shown where its button was. */
function LateAnswer(props: { reply: ActionReply | undefined; leaseId: number; intents: string[] }) {
  const r = props.reply;
  if (!r || r.id !== props.leaseId || !props.intents.includes(r.intent)) return null;
  return <ActionAnswer id={`${r.intent}-${props.leaseId}-late-message`} message={r.message} />;
}

/** An action's answer beside its button (the button and fields point at it with aria-describedby). */
function ActionAnswer(props: { id: string; message: string }) {
  return (
    <p id={props.id} className="field__errors" role="alert">
      {props.message}
    </p>
  );
}

/**
 * A refund of one payment, in full or in part (decision 509): the amount (all that is left unless
 * changed), a box to tick (the server checks both), for a move-in payment the choice to cancel the
 * rental too (or, at SiteLink, where that is done), then the button; the answer beside it.
 */
function RefundForm(props: {
  csrfToken: string;
  paymentId: number;
  card: string;
  left: number;
  refunded: number;
  cancel: boolean;
  reply: ActionReply | undefined;
}) {
  const mine = props.reply && props.reply.intent === "refund-payment" && props.reply.id === props.paymentId ? props.reply : undefined;
  const errorId = `refund-${props.paymentId}-message`;
  const amountId = `refund-${props.paymentId}-amount`;
  const described = mine ? errorId : undefined;
  return (
    <Form method="post" className="desk-action">
      <CsrfInput token={props.csrfToken} />
      <input type="hidden" name="intent" value="refund-payment" />
      <input type="hidden" name="paymentId" value={props.paymentId} />
      <input type="hidden" name="refunded" value={props.refunded} />
      <fieldset>
        <legend>Refund to {props.card}</legend>
        <p className="console-field">
          <label htmlFor={amountId}>Amount to refund (at most {formatCents(props.left)})</label>
          <input
            id={amountId}
            name="amount"
            type="text"
            inputMode="decimal"
            autoComplete="off"
            size={10}
            defaultValue={mine?.value ?? (props.left / 100).toFixed(2)}
            aria-describedby={described}
            aria-invalid={mine ? true : undefined}
          />
        </p>
        {props.cancel ? (
          <label>
            <input type="checkbox" name="cancelRental" value="yes" defaultChecked={mine?.checked} aria-describedby={described} /> Also cancel the rental: end the lease and free the unit
          </label>
        ) : null}
        <label>
          <input type="checkbox" name="confirm" value="yes" aria-describedby={described} /> Refund this amount to {props.card}
        </label>{" "}
        <button type="submit" className="button" aria-describedby={described}>
          Refund
        </button>
        {mine ? <ActionAnswer id={errorId} message={mine.message} /> : null}
      </fieldset>
    </Form>
  );
}

/** Records a move-out done: the day (today unless changed), a box to tick (the server checks both), then the button. */
function MoveOutForm(props: { csrfToken: string; leaseId: number; unitName: string; today: string; reply: ActionReply | undefined }) {
  const mine = props.reply && props.reply.intent === "record-move-out" && props.reply.id === props.leaseId;
  const errorId = `move-out-${props.leaseId}-message`;
  const dateId = `move-out-${props.leaseId}-date`;
  return (
    <Form method="post" className="desk-action">
      <CsrfInput token={props.csrfToken} />
      <input type="hidden" name="intent" value="record-move-out" />
      <input type="hidden" name="leaseId" value={props.leaseId} />
      <fieldset>
        <legend>Record the move-out of unit {props.unitName}</legend>
        <p className="console-field">
          <label htmlFor={dateId}>Day the tenant moved out</label>
          <input id={dateId} type="date" name="moveOutDate" defaultValue={mine ? (props.reply!.value ?? props.today) : props.today} max={props.today} aria-describedby={mine ? errorId : undefined} aria-invalid={mine ? true : undefined} />
        </p>
        <label>
          <input type="checkbox" name="confirm" value="yes" aria-describedby={mine ? errorId : undefined} /> The unit is empty and the tenant has moved out
        </label>{" "}
        <button type="submit" className="button" aria-describedby={mine ? errorId : undefined}>
          Record the move-out
        </button>
        {mine ? <ActionAnswer id={errorId} message={props.reply!.message} /> : null}
      </fieldset>
    </Form>
  );
}

/** One field of the contact form: its label, the value kept, and its message beside it. */
function ContactField(props: { name: string; label: string; value: string; error?: string; type?: string; autoComplete?: string; required?: boolean }) {
  const id = `contact-${props.name}`;
  const errorId = `${id}-error`;
  return (
    <p className="console-field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        defaultValue={props.value}
        autoComplete={props.autoComplete}
        required={props.required}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? errorId : undefined}
      />
      {props.error ? (
        <span id={errorId} className="field__errors">
          {props.error}
        </span>
      ) : null}
    </p>
  );
}

/**
 * "Change contact details" (decision 641): e-mail, phone and address, checked by the account form's
 * rules; sent through each location's system. Refused: the values kept, each message beside its field.
 */
function ContactForm(props: { csrfToken: string; values: Record<string, string>; reply: ActionReply | undefined }) {
  const mine = props.reply?.intent === "change-contact" ? props.reply : undefined;
  const v = { ...props.values, ...(mine?.fields ?? {}) };
  const e = mine?.fieldErrors ?? {};
  return (
    <details className="desk-contact" open={mine ? true : undefined}>
      <summary>Change contact details</summary>
      <Form method="post" className="desk-action" aria-describedby={mine ? "change-contact-message" : undefined}>
        <CsrfInput token={props.csrfToken} />
        <input type="hidden" name="intent" value="change-contact" />
        {mine ? <ActionAnswer id="change-contact-message" message={mine.message} /> : null}
        <ContactField name="email" label="E-mail" type="email" autoComplete="off" value={v.email ?? ""} error={e.email} required />
        <ContactField name="cell_phone" label="Cell phone" type="tel" autoComplete="off" value={v.cell_phone ?? ""} error={e.cell_phone} required />
        <ContactField name="addr_1" label="Street address" autoComplete="off" value={v.addr_1 ?? ""} error={e.addr_1} required />
        <ContactField name="addr_2" label="Address line 2 (optional)" autoComplete="off" value={v.addr_2 ?? ""} error={e.addr_2} />
        <ContactField name="city" label="City" autoComplete="off" value={v.city ?? ""} error={e.city} required />
        <p className="console-field">
          <label htmlFor="contact-region">State</label>
          <select id="contact-region" name="region" defaultValue={v.region ?? ""} aria-invalid={e.region ? true : undefined} aria-describedby={e.region ? "contact-region-error" : undefined} required>
            <option value="">Choose a state</option>
            {US_STATES.map(([code, name]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
          {e.region ? (
            <span id="contact-region-error" className="field__errors">
              {e.region}
            </span>
          ) : null}
        </p>
        <ContactField name="postal_code" label="ZIP code" autoComplete="off" value={v.postal_code ?? ""} error={e.postal_code} required />
        <button type="submit" className="button">
          Save the contact details
        </button>
      </Form>
    </details>
  );
}

/** "Show gate code": a POST (audited); the code is in the answer only, beside the button. */
function GateCode(props: { csrfToken: string; leaseId: number; reply: ActionReply | undefined }) {
  const mine = props.reply && props.reply.intent === "show-gate-code" && props.reply.id === props.leaseId ? props.reply : undefined;
  const answerId = `gate-code-${props.leaseId}-message`;
  return (
    <Form method="post" className="desk-action">
      <CsrfInput token={props.csrfToken} />
      <input type="hidden" name="intent" value="show-gate-code" />
      <input type="hidden" name="leaseId" value={props.leaseId} />
      <button type="submit" className="button" aria-describedby={mine ? answerId : undefined}>
        Show gate code
      </button>
      {mine?.gateCode ? (
        <p id={answerId} role="status">
          {mine.message} <strong className="gate-code">{mine.gateCode.code}</strong>
        </p>
      ) : mine ? (
        <ActionAnswer id={answerId} message={mine.message} />
      ) : null}
    </Form>
  );
}

/** The tenant's notes: newest first, who and when; the desk adds one (never edits or deletes one). */
function Notes(props: { csrfToken: string; notes: ReadonlyArray<{ id: number; body: string; by: string; at: string; iso: string }>; canAct: boolean; reply: ActionReply | undefined }) {
  const mine = props.reply?.intent === "add-note" ? props.reply : undefined;
  return (
    <section aria-labelledby="notes-title">
      <h2 id="notes-title">Notes</h2>
      {props.canAct ? (
        <Form method="post" className="desk-action">
          <CsrfInput token={props.csrfToken} />
          <input type="hidden" name="intent" value="add-note" />
          <p className="console-field">
            <label htmlFor="tenant-note">Add a note</label>
            <textarea
              id="tenant-note"
              name="note"
              rows={3}
              maxLength={TENANT_NOTE_MAX}
              defaultValue={mine?.value ?? ""}
              aria-invalid={mine ? true : undefined}
              aria-describedby={mine ? "tenant-note-error" : undefined}
            />
            {mine ? (
              <span id="tenant-note-error" className="field__errors">
                {mine.message}
              </span>
            ) : null}
          </p>
          <button type="submit" className="button">
            Add the note
          </button>
        </Form>
      ) : null}
      {props.notes.length ? (
        <ol className="desk-notes">
          {props.notes.map((n) => (
            <li key={n.id}>
              <p className="desk-note__meta">
                <time dateTime={n.iso}>{n.at}</time>, {n.by}
              </p>
              <p style={{ whiteSpace: "pre-wrap" }}>{n.body}</p>
            </li>
          ))}
        </ol>
      ) : (
        <p>No notes yet.</p>
      )}
    </section>
  );
}

export default function AdminTenant({ loaderData, params }: Route.ComponentProps) {
  const { desk, today, csrfToken, canAct, canRefund, done, textsOff, mailOff, notes, contact } = loaderData;
  const reply = useActionData<typeof action>() as ActionReply | undefined;
  const t = desk.tenant;
  return (
    <article className="desk-record">
      <p>
        <Link to="/admin/tenants">All tenants</Link>
      </p>
      <h1>{t.name || `Tenant ${params.tenantId}`}</h1>
      {done ? (
        <p className="alert alert--success" role="status">
          {done}
        </p>
      ) : null}
      <dl className="desk-facts">
        <dt>E-mail</dt>
        <dd>{t.email}</dd>
        <dt>Phone</dt>
        <dd>{t.phone}</dd>
        <dt>Address</dt>
        <dd>{t.address}</dd>
        <dt>Tenant since</dt>
        <dd>{t.since}</dd>
      </dl>
      {canAct && contact ? <ContactForm csrfToken={csrfToken} values={contact} reply={reply} /> : null}

      <Notes csrfToken={csrfToken} notes={notes} canAct={canAct} reply={reply} />

      <section aria-labelledby="lockout-title">
        <h2 id="lockout-title">Portal sign-in</h2>
        {desk.lockout.locked ? (
          <p>
            <strong>Locked out</strong> after {desk.lockout.attempts} failed sign-ins, until {desk.lockout.untilText}.
          </p>
        ) : desk.lockout.attempts ? (
          <p>
            {desk.lockout.attempts} failed sign-in{desk.lockout.attempts === 1 ? "" : "s"} counted (until {desk.lockout.untilText}); not locked out.
          </p>
        ) : (
          <p>Not locked out.</p>
        )}
        {canAct && desk.lockout.attempts ? <ActionButton csrfToken={csrfToken} intent="lift-lockout" label={desk.lockout.locked ? "Lift the lockout" : "Clear the failed sign-ins"} reply={reply} /> : null}
      </section>

      <section aria-labelledby="leases-title">
        <h2 id="leases-title">Leases</h2>
        {desk.softwareUnreachable ? <p className="alert">The facility's system could not be reached just now: some balances and ledgers are missing.</p> : null}
        {desk.leases.length ? null : <p>No lease at your locations.</p>}
        {desk.leases.map((l) => (
          <section key={l.leaseId} aria-labelledby={`lease-${l.leaseId}`} className="desk-lease">
            <h3 id={`lease-${l.leaseId}`}>
              Unit {l.unitName}, {l.locationName} ({l.status !== "active" ? "moved out" : l.moveOutDate ? `moving out ${formatDate(l.moveOutDate)}` : "active"})
            </h3>
            <dl className="desk-facts">
              <dt>Moved in</dt>
              <dd>{formatDate(l.moveInDate)}</dd>
              <dt>Rent</dt>
              <dd>
                {formatCents(l.monthlyRate)} a month{l.insurancePremium ? ` + protection ${formatCents(l.insurancePremium)}` : ""}
              </dd>
              <dt>Paid through</dt>
              <dd>{formatDate(l.paidThroughDate)}</dd>
              <dt>Next due</dt>
              <dd>{formatDate(l.nextDueDate)}</dd>
              <dt>Balance</dt>
              <dd>{l.balance === null ? "Not available just now" : formatCents(l.balance)}</dd>
              <dt>Autopay</dt>
              <dd>{l.autopay.enabled ? `On${l.autopay.card ? `, ${l.autopay.card}` : ""}` : "Off"}</dd>
              {l.moveOutDate ? (
                <>
                  <dt>Move-out</dt>
                  <dd>{formatDate(l.moveOutDate)}</dd>
                </>
              ) : null}
            </dl>
            {canAct ? <ActionButton csrfToken={csrfToken} intent="resend-lease" name="leaseId" id={l.leaseId} label="Resend the lease e-mail" reply={reply} /> : null}
            {canAct && l.status === "active" ? (
              l.balance !== null && l.balance <= 0 ? (
                <>
                  <p className="hint">Nothing is due on this lease: there is no pay link to send.</p>
                  <LateAnswer reply={reply} leaseId={l.leaseId} intents={["send-pay-link", "text-pay-link", "copy-pay-link"]} />
                </>
              ) : (
                <>
                  {mailOff ? (
                    <>
                      <p className="hint">{mailOff}</p>
                      <LateAnswer reply={reply} leaseId={l.leaseId} intents={["send-pay-link"]} />
                    </>
                  ) : <ActionButton csrfToken={csrfToken} intent="send-pay-link" name="leaseId" id={l.leaseId} label="Send a pay link" reply={reply} />}
                  {textsOff ? <p className="hint">{textsOff}</p> : <ActionButton csrfToken={csrfToken} intent="text-pay-link" name="leaseId" id={l.leaseId} label="Text a pay link" reply={reply} />}
                  <PayLinkCopy csrfToken={csrfToken} leaseId={l.leaseId} reply={reply} />
                </>
              )
            ) : null}
            {canAct && l.status === "active" ? <GateCode csrfToken={csrfToken} leaseId={l.leaseId} reply={reply} /> : null}
            {canAct && l.status === "active" ? <MoveOutForm csrfToken={csrfToken} leaseId={l.leaseId} unitName={l.unitName} today={today[l.leaseId] ?? ""} reply={reply} /> : null}
            {l.ledger?.length ? (
              <div className="desk-table" role="region" aria-label={`Ledger of unit ${l.unitName}`} tabIndex={0}>
                <table>
                  <caption>Ledger of unit {l.unitName}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Date</th>
                      <th scope="col">Line</th>
                      <th scope="col" className="numeric">
                        Amount
                      </th>
                      <th scope="col" className="numeric">
                        Balance
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {l.ledger.map((e) => (
                      <tr key={e.id}>
                        <td data-label="Date">{formatDate(e.entryDate)}</td>
                        <td data-label="Line">{e.description}</td>
                        <td className="numeric" data-label="Amount">{e.kind === "charge" ? formatCents(e.amount + e.tax) : e.amount < 0 ? `+${formatCents(-e.amount)}` : `−${formatCents(e.amount)}`}</td>
                        <td className="numeric" data-label="Balance">{formatCents(e.runningBalance)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
          </section>
        ))}
      </section>

      <section aria-labelledby="payments-title">
        <h2 id="payments-title">Payments</h2>
        {desk.payments.length ? (
          <div className="desk-table" role="region" aria-labelledby="payments-title" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Unit</th>
                  <th scope="col" className="numeric">
                    Amount
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col">Card</th>
                  <th scope="col">Receipt</th>
                  {canRefund ? <th scope="col">Refund</th> : null}
                </tr>
              </thead>
              <tbody>
                {desk.payments.map((p) => (
                  <tr key={p.id}>
                    <td data-label="When">{p.at}</td>
                    <td data-label="Unit">{p.unitName ?? "—"}</td>
                    <td className="numeric" data-label="Amount">{formatCents(p.amount)}</td>
                    <td data-label="Status">
                      {p.status === "approved" ? "Approved" : p.status === "refunded" ? "Refunded" : `Declined${p.declineReason ? `: ${p.declineReason}` : ""}`}
                      {p.status === "approved" && p.refunded > 0 ? `, ${formatCents(p.refunded)} refunded` : ""}
                    </td>
                    <td data-label="Card">{p.card}</td>
                    <td data-label="Receipt">{canAct && p.status === "approved" ? <ActionButton csrfToken={csrfToken} intent="resend-receipt" name="paymentId" id={p.id} label="Resend the receipt" reply={reply} /> : null}</td>
                    {canRefund ? (
                      <td data-label="Refund">
                        {p.status === "approved" ? (
                          <RefundForm
                            csrfToken={csrfToken}
                            paymentId={p.id}
                            card={p.card}
                            left={p.amount - p.refunded}
                            refunded={p.refunded}
                            cancel={cancelOffer(p, desk.leases)}
                            reply={reply}
                          />
                        ) : null}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>No payments at your locations.</p>
        )}
      </section>

      <section aria-labelledby="outbox-title">
        <h2 id="outbox-title">E-mails to {t.email}</h2>
        {desk.outbox.length ? (
          <div className="desk-table" role="region" aria-labelledby="outbox-title" tabIndex={0}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Written</th>
                  <th scope="col">Subject</th>
                  <th scope="col">State</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last error</th>
                </tr>
              </thead>
              <tbody>
                {desk.outbox.map((m) => (
                  <tr key={m.id}>
                    <td data-label="Written">{m.at}</td>
                    <td data-label="Subject">{m.subject}</td>
                    <td data-label="State">
                      {OUTBOX_STATE_LABELS[m.state]}
                      {m.sentAt ? ` ${m.sentAt}` : m.failedAt ? ` ${m.failedAt}` : ""}
                    </td>
                    <td className="numeric" data-label="Attempts">{m.attempts}</td>
                    <td data-label="Last error">{m.error ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p>No e-mails kept for this address (sent mail is kept 30 days, failed mail 90).</p>
        )}
      </section>
    </article>
  );
}
