/**
 * Contact changes pushed to SiteLink (issue 11, decision 168): TenantUpdate_v3 overwrites every field
 * of the tenant record and blanks what is not sent (study §3.4, §8.5), gate code and web password
 * included. So every push is a read-modify-write: TenantInfoByTenantID, then TenantUpdate_v3 with every
 * parameter as read except the fields the portal form owns.
 *
 * The write is journalled (`contact:{TenantID}:{uuid}`, one row committed before the request leaves).
 * An answer that does not say (no answer, a reset, HTTP 5xx, RT -1, which is also SiteLink's silent
 * bad-parameter answer) is reconciled by reading the record back, never by sending again: the new
 * values there -> done; otherwise the entry stays `unknown` and the caller is told SiteLink could not
 * be reached. Before a later push, open entries are read back again: found -> done; older than the
 * settle time -> failed; still young and for other values -> refused ("try again in a moment"), so a
 * slow write can never land on top of a newer one. Sending the same values again is harmless.
 *
 * The military flag has its own operation (TenantUpdateMilitary): sent when it differs, best effort
 * (a marketing flag; SiteLink answers -3 when the site has no military marketing type).
 */
import crypto from "node:crypto";
import { ContactLeftForOfficeError, SoftwareUnreachableError, StorageSoftwareError } from "../errors";
import { rows } from "./calls";
import { declaredColumns, type Row, type SoapAnswer } from "./dataset";
import { type SiteLinkCall } from "./client";
import { type SiteLinkParams } from "./envelope";
import type { SiteLinkLog } from "./client";
import type { OperationContract } from "./contract";
import { operationSpec } from "./envelope";
import { readAnswer } from "./answers";
import { mayHaveBeenApplied, okRead } from "./errors";
import type { Journal } from "./journal";
import { dateOf, isTrue } from "./quote";
import contractJson from "./operations.json";

const contract = contractJson as unknown as OperationContract;
const UPDATE = "TenantUpdate_v3";

/** The TenantUpdate_v3 fields the portal owns, by SiteLink name. */
export type OwnedFields = Partial<Record<"sFName" | "sLName" | "sEmail" | "sAddr1" | "sAddr2" | "sCity" | "sRegion" | "sPostalCode" | "sMobile" | "sPhone" | "sFNameAlt" | "sLNameAlt" | "sPhoneAlt" | "bCommercial" | "bCompanyIsTenant" | "bSMSOptIn", string | boolean>>;

/** Where a TenantUpdate_v3 parameter is read from when it is not the form's (same name otherwise). */
const READ_FROM: Record<string, string> = { sGateCode: "sAccessCode" };

const norm = (v: string | boolean | undefined | null) => (typeof v === "boolean" ? (v ? "true" : "false") : (v ?? "").trim());

/** True when the record shows every owned field as given. */
export function showsFields(record: Row, fields: OwnedFields): boolean {
  return Object.entries(fields).every(([name, value]) =>
    typeof value === "boolean" ? isTrue(record[name]) === value : norm(record[name]) === norm(value),
  );
}

/** The owned fields as the record has them (to put them back). */
function fieldsAsRead(record: Row, names: string[]): OwnedFields {
  const out: Record<string, string | boolean> = {};
  for (const n of names) out[n] = n.startsWith("b") ? isTrue(record[n]) : (record[n] ?? "");
  return out as OwnedFields;
}

/** The TenantInfoByTenantID columns a contact change sends back as read (every TenantUpdate_v3 parameter but the ids). */
export function columnsSentBackAsRead(): string[] {
  return operationSpec(contract, UPDATE)
    .params.filter((p) => !contract.authParams.includes(p.name) && p.name !== "iTenantID")
    .map((p) => READ_FROM[p.name] ?? p.name);
}

/** Every TenantUpdate_v3 parameter: as read, except the owned fields. */
function updateParams(siteLinkTenantId: string, record: Row, fields: OwnedFields): SiteLinkParams {
  const params: SiteLinkParams = {};
  for (const p of operationSpec(contract, UPDATE).params) {
    if (contract.authParams.includes(p.name)) continue;
    if (p.name === "iTenantID") {
      params[p.name] = Number(siteLinkTenantId);
      continue;
    }
    const owned = (fields as Record<string, string | boolean | undefined>)[p.name];
    const raw = owned !== undefined ? owned : record[READ_FROM[p.name] ?? p.name];
    if (raw === undefined) continue; // a null column: the envelope sends the type's neutral value
    if (p.type === "s:boolean") params[p.name] = typeof raw === "boolean" ? raw : isTrue(raw);
    else if (p.type === "s:int") params[p.name] = Number(raw);
    else if (p.type === "s:dateTime") {
      const date = typeof raw === "string" ? dateOf(raw) : null;
      if (date) params[p.name] = `${date}T00:00:00`;
    } else params[p.name] = typeof raw === "string" ? raw : String(raw);
  }
  return params;
}

interface ContactPushDeps {
  call: SiteLinkCall;
  journal: Journal;
  log: SiteLinkLog;
  /** How long after an unanswered write a record that does not show it proves it was not applied. */
  settleAfterMs: number;
}

const contactKeyPrefix = (siteLinkTenantId: string) => `contact:${siteLinkTenantId}:`;
const STILL_CONFIRMING = "An earlier change of these details is still being confirmed by SiteLink";

export function siteLinkContactPush(deps: ContactPushDeps) {
  const { call, journal, log, settleAfterMs } = deps;

  async function readTenantAnswer(siteLinkTenantId: string): Promise<{ record: Row; answer: SoapAnswer }> {
    const a = okRead(await call("TenantInfoByTenantID", { iTenantID: Number(siteLinkTenantId) }, { write: false }), "TenantInfoByTenantID");
    const record = rows(a, "Table")[0];
    if (!record) throw new SoftwareUnreachableError(`SiteLink has no tenant ${siteLinkTenantId} at this site`);
    return { record, answer: a };
  }

  async function readTenant(siteLinkTenantId: string): Promise<Row> {
    return (await readTenantAnswer(siteLinkTenantId)).record;
  }

  /**
   * The columns TenantUpdate_v3 would send back as read that the read did not return (neither its
   * schema declares them nor the row carries them; a null is declared, so it is no gap): sent, they
   * would blank what SiteLink holds (issue 37).
   */
  function unreadColumns(answer: SoapAnswer, record: Row, fields: OwnedFields): string[] {
    const declared = declaredColumns(answer, "TenantInfoByTenantID", "Table");
    return columnsSentBackAsRead().filter((c) => !(c in fields) && !(c in record) && !declared?.has(c));
  }

  /**
   * A change whose update would blank what the read did not return: not sent. A failed journal row
   * asks the office to make it (the back office's journal desk lists it); the caller is told.
   */
  async function leaveForOffice(siteLinkTenantId: string, unread: string[], now: Date, purpose: string): Promise<never> {
    const key = `${contactKeyPrefix(siteLinkTenantId)}${crypto.randomUUID()}`;
    await journal.begin({ key, operation: UPDATE, fingerprint: `${siteLinkTenantId}:${purpose}`, externalIds: { tenantId: siteLinkTenantId, purpose }, now });
    const why = `TenantInfoByTenantID did not return ${unread.join(", ")}, so TenantUpdate_v3 would blank ${unread.length > 1 ? "them" : "it"}`;
    await journal.settle(key, "failed", {
      error: `not sent: ${why}`,
      externalIds: { attention: `Contact change from the portal not sent to SiteLink (${why}): make it in SiteLink from the tenant's details in the back office` },
      now,
    });
    log.warn({ tenantId: siteLinkTenantId, unread }, "[sitelink] a contact change was not sent (the read lacks columns the update would blank): left for the office");
    throw new ContactLeftForOfficeError(`The contact change was left for the office: ${why}`);
  }

  /** Open entries of this tenant, read back: settled when the record says; throws when one may still land over `fields`. */
  async function settleOpen(siteLinkTenantId: string, record: Row, fields: OwnedFields, now: Date): Promise<void> {
    const open = (await journal.withPrefix(contactKeyPrefix(siteLinkTenantId))).filter((e) => e.state === "pending" || e.state === "unknown");
    for (const e of open) {
      if (e.externalIds.fields === undefined) {
        // Open for longer than the journal keeps personal data: it can no longer be compared.
        await journal.settle(e.key, "failed", { error: "never confirmed; its details were removed from the journal", now });
        continue;
      }
      const intended = JSON.parse(e.externalIds.fields) as OwnedFields;
      if (showsFields(record, intended)) {
        await journal.settle(e.key, "done", { error: "confirmed by reading the record back", now });
      } else if (now.getTime() - e.startedAt.getTime() >= settleAfterMs) {
        await journal.settle(e.key, "failed", { error: "not applied: the record did not show it after the settle time", now });
      } else if (JSON.stringify(intended) !== JSON.stringify(fields)) {
        throw new SoftwareUnreachableError(STILL_CONFIRMING);
      }
      // Same values: sending them again is harmless; the new attempt settles this entry too.
    }
  }

  /** One journalled TenantUpdate_v3 (read-modify-write from `record`). Throws when it is not known to be applied. */
  async function send(siteLinkTenantId: string, record: Row, fields: OwnedFields, now: Date, purpose: string): Promise<void> {
    const key = `${contactKeyPrefix(siteLinkTenantId)}${crypto.randomUUID()}`;
    await journal.begin({
      key,
      operation: UPDATE,
      fingerprint: `${siteLinkTenantId}:${purpose}`,
      // The owned fields only (what reconciliation compares); never the web password or other fields.
      externalIds: { tenantId: siteLinkTenantId, purpose, fields: JSON.stringify(fields) },
      now,
    });
    let answered = false;
    try {
      const a = await call(UPDATE, updateParams(siteLinkTenantId, record, fields), { write: true });
      const outcome = readAnswer(UPDATE, a);
      if (outcome.kind === "ok") answered = true;
      else if (outcome.kind === "refused") {
        await journal.settle(key, "failed", { error: outcome.message, now });
        throw new StorageSoftwareError(`SiteLink refused the contact change: ${outcome.message}`);
      }
      // 0 (no source shows TenantUpdate_v3's success code), -1 ("failed to save", or a parameter
      // SiteLink did not bind): it may have been applied; read back.
    } catch (error) {
      // Refused before it ran (an envelope we would not build, a soap:Client Fault): nothing applied.
      if (!mayHaveBeenApplied(error)) {
        if ((await journal.get(key))?.state === "pending") await journal.settle(key, "failed", { error: error instanceof Error ? error.message : String(error), now });
        throw error;
      }
    }
    if (!answered) {
      const back = await readTenant(siteLinkTenantId).catch(() => null);
      if (!back || !showsFields(back, fields)) {
        await journal.settle(key, "unknown", { error: back ? "no answer; the record does not show the change yet" : "no answer; the record could not be read", now });
        throw new SoftwareUnreachableError("SiteLink did not confirm the contact change");
      }
    }
    await journal.settle(key, "done", { now });
    // Earlier unanswered attempts with these very values are settled by this one.
    for (const e of await journal.withPrefix(contactKeyPrefix(siteLinkTenantId))) {
      if ((e.state === "pending" || e.state === "unknown") && e.key !== key && e.externalIds.fields === JSON.stringify(fields)) {
        await journal.settle(e.key, "done", { error: `outcome unknown; the same values were confirmed by ${key}`, now });
      }
    }
  }

  async function setMilitary(siteLinkTenantId: string, military: boolean) {
    try {
      const a = await call("TenantUpdateMilitary", { TenantID: Number(siteLinkTenantId), bMilitary: military }, { write: true });
      if ((a.retCode ?? 0) <= 0) log.warn({ retCode: a.retCode }, `[sitelink] TenantUpdateMilitary refused: the military flag stays ours only (${a.retMsg})`);
    } catch (error) {
      log.warn({ error: error instanceof Error ? error.message : String(error) }, "[sitelink] TenantUpdateMilitary got no answer: the military flag stays ours only");
    }
  }

  return {
    /**
     * Puts the owned fields (`fieldsFor` the record as read) and the military flag, when given, on the SiteLink tenant. Resolves when SiteLink
     * holds them (or already did); returns `undo`, which puts back what the record held before.
     * Throws SoftwareUnreachableError (no answer, unconfirmed, an earlier change still open) or
     * StorageSoftwareError (refused): then nothing of ours should be saved.
     */
    async push(siteLinkTenantId: string, fieldsFor: (record: Row) => OwnedFields, military: boolean | null, now: Date): Promise<{ undo(): Promise<void> }> {
      const { record: before, answer } = await readTenantAnswer(siteLinkTenantId);
      const fields = fieldsFor(before);
      await settleOpen(siteLinkTenantId, before, fields, now);
      const names = Object.keys(fields);
      if (!showsFields(before, fields)) {
        // A read-modify-write sends back only what it read (issue 37, decision 472).
        const unread = unreadColumns(answer, before, fields);
        if (unread.length) await leaveForOffice(siteLinkTenantId, unread, now, "portal");
        await send(siteLinkTenantId, before, fields, now, "portal");
      }
      // bMilitary is in no source's tenant row (evidence §6.7): when the read does not show it, the
      // flag is sent whatever it is, so turning it off reaches SiteLink too.
      const militaryKnown = before.bMilitary !== undefined;
      const militaryBefore = isTrue(before.bMilitary);
      const sendMilitary = military !== null && (!militaryKnown || military !== militaryBefore);
      if (sendMilitary) await setMilitary(siteLinkTenantId, military);
      return {
        async undo() {
          const { record: current, answer: again } = await readTenantAnswer(siteLinkTenantId);
          const previous = fieldsAsRead(before, names);
          if (!showsFields(current, previous)) {
            const unread = unreadColumns(again, current, previous);
            if (unread.length) await leaveForOffice(siteLinkTenantId, unread, new Date(), "undo");
            await send(siteLinkTenantId, current, previous, new Date(), "undo");
          }
          // Put back only what was read (an unread flag cannot be restored).
          if (sendMilitary && militaryKnown) await setMilitary(siteLinkTenantId, militaryBefore);
        },
      };
    },
  };
}
