/**
 * How the adapter reads SiteLink's answer to each write, written down once per operation (issue 20,
 * decision 180). The client (./client.ts) returns `{tables, retCode, retMsg}` without judging it;
 * every caller asks `readAnswer(operation, answer)` here and gets one of:
 *
 * - `ok`: SiteLink did it; `id` is the id the rule says the answer carries (or null).
 * - `refused`: SiteLink said no, in a way that cannot mean success (a negative code other than the
 *   operation's "may have saved" codes): nothing happened.
 * - `unclear`: the answer may mean success (an unseen success code such as 0, or `-1` "failed to
 *   save" after the write may have run). The caller reconciles it exactly like a timeout: it reads
 *   SiteLink back, never sends again blindly, and never refunds a charge SiteLink may have booked.
 *
 * Sources (see ../../../../shared/docs/sitelink-evidence.md; keys as there): LK = LK's notes from
 * SiteLink's test site LSETUP and its production pipelines; MC = a node-soap client built from the
 * live WSDL and its transcription of the manual; MS = a production tenant portal.
 */
import type { SoapAnswer } from "./dataset";

export type AnswerOutcome =
  | { kind: "ok"; id: string | null }
  | { kind: "refused"; code: number; message: string }
  | { kind: "unclear"; code: number | null; message: string };

export type AnswerRule =
  /** A positive Ret_Code is the new record's id; a negative one is a refusal (except `unclearCodes`); 0 / none is unclear. */
  | { kind: "id in Ret_Code"; unclearCodes: number[] }
  /** Success is exactly `successCode`; the id is in the RT column `column` (must be positive). */
  | { kind: "id in column"; column: string; successCode: number; unclearCodes: number[] }
  /** Success at Ret_Code >= 0 (0 included); no id. */
  | { kind: "success at >= 0"; unclearCodes: number[] }
  /**
   * No source shows the success code: a positive Ret_Code is success with that id; 0 (or no code)
   * may be success too and is unclear (read back); a negative one is a refusal (except `unclearCodes`).
   */
  | { kind: "success code unknown"; unclearCodes: number[] };

/** `-1` is "failed to save", and also the answer to a parameter SiteLink did not bind (evidence §4.1): the write may have run. */
const MAY_HAVE_SAVED = [-1];

export const ANSWER_RULES = {
  // LSETUP: Ret_Code "1", TenantID and AccessCode in their own RT columns (LK yaml §1, evidence §4.8);
  // LK and MC both read RT.TenantID. -2 = invalid or duplicate gate code (manual).
  TenantNewDetailed_v3: { kind: "id in column", column: "TenantID", successCode: 1, unclearCodes: MAY_HAVE_SAVED },
  // LSETUP: $139.81 -> Ret_Code 592852, a LedgerID (LK discovery §2.2, evidence §4.3); iLeaseNum in RT.
  MoveInWithDiscount_v7: { kind: "id in Ret_Code", unclearCodes: MAY_HAVE_SAVED },
  // LSETUP: Ret_Code = WaitingID (e.g. 850665), Ret_Msg = global waiting number (LK yaml §2, evidence §4.6).
  ReservationNewWithSource_v5: { kind: "id in Ret_Code", unclearCodes: MAY_HAVE_SAVED },
  // LSETUP: Ret_Code "0" on success (LK yaml §4, evidence §4.7; LK's route code checks > 0: the yaml
  // recorded the answer, so 0 and positive are both success).
  ReservationUpdate_v4: { kind: "success at >= 0", unclearCodes: MAY_HAVE_SAVED },
  // No source shows these answers (evidence §6.3): 0 is read back, never taken as a refusal.
  ScheduleMoveOut: { kind: "success code unknown", unclearCodes: MAY_HAVE_SAVED },
  // Parameters from the manual's v2 list (S3 §7.105); its answer is in no source (evidence §2 #25, §6.3).
  TenantUpdate_v3: { kind: "success code unknown", unclearCodes: MAY_HAVE_SAVED },
  // A positive code is the Receipt (S3 §7.51, manual only). -100 / -14 are card declines (manual).
  PaymentSimpleWithSource: { kind: "success code unknown", unclearCodes: MAY_HAVE_SAVED },
  // LK's post-audit billing route and S3 §7.50 send it; no source records its answer (evidence §6.3).
  PaymentSimpleCheckWithSource: { kind: "success code unknown", unclearCodes: MAY_HAVE_SAVED },
  // Ret_Code = LedgerID in MC's client; no LSETUP record: unknown, 0 unclear.
  TenantBillingInfoUpdate_v2: { kind: "success code unknown", unclearCodes: MAY_HAVE_SAVED },
  // Ret_Code = TenantID (MC, evidence §6 "confirmed right").
  TenantUpdateMilitary: { kind: "id in Ret_Code", unclearCodes: MAY_HAVE_SAVED },
  // LK's tenants route (post-audit) sends it; best effort, its answer is never relied on.
  TenantNoteInsert_v2: { kind: "success code unknown", unclearCodes: MAY_HAVE_SAVED },
} as const satisfies Record<string, AnswerRule>;

export type RuledOperation = keyof typeof ANSWER_RULES;

const describe = (a: SoapAnswer) => `${a.retCode ?? "no code"}${a.retMsg ? ` ${a.retMsg}` : ""}`;

/** Reads one write's answer by its operation's rule. */
export function readAnswer(operation: RuledOperation, answer: SoapAnswer): AnswerOutcome {
  const rule: AnswerRule = ANSWER_RULES[operation];
  const code = answer.retCode;
  const message = describe(answer);
  if (code !== null && code < 0) {
    return rule.unclearCodes.includes(code) ? { kind: "unclear", code, message } : { kind: "refused", code, message };
  }
  switch (rule.kind) {
    case "id in Ret_Code":
      return code !== null && code > 0 ? { kind: "ok", id: String(code) } : { kind: "unclear", code, message };
    case "id in column": {
      const raw = (answer.tables.RT?.[0] ?? {})[rule.column]?.trim() ?? "";
      const id = /^\d+$/.test(raw) && Number(raw) > 0 ? raw : null;
      // The documented success code with the id beside it (another positive code with the id is taken
      // as success too); anything else that is not a refusal is looked for.
      if (code !== null && (code === rule.successCode || code > 0) && id) return { kind: "ok", id };
      return { kind: "unclear", code, message: `${message}${id ? "" : ` (no ${rule.column})`}` };
    }
    case "success at >= 0":
      return code !== null ? { kind: "ok", id: code > 0 ? String(code) : null } : { kind: "unclear", code, message };
    case "success code unknown":
      return code !== null && code > 0 ? { kind: "ok", id: String(code) } : { kind: "unclear", code, message };
  }
}

/** The rule of one write, in words (sitelink:verify's go-live report shows what the adapter takes as success). */
export function describeAnswerRule(operation: RuledOperation): string {
  const rule: AnswerRule = ANSWER_RULES[operation];
  const readBack = rule.unclearCodes.length ? `, ${rule.unclearCodes.join(", ")}` : "";
  switch (rule.kind) {
    case "id in Ret_Code":
      return `success: Ret_Code > 0, the new id; 0, none${readBack}: read back; other negatives: refused`;
    case "id in column":
      return `success: Ret_Code ${rule.successCode} with the id in RT.${rule.column}; no id, 0${readBack}: read back; other negatives: refused`;
    case "success at >= 0":
      return `success: Ret_Code >= 0 (0 included); none${readBack}: read back; other negatives: refused`;
    case "success code unknown":
      return `success code in no source: Ret_Code > 0 is success; 0, none${readBack}: read back; other negatives: refused`;
  }
}

/**
 * TenantLogin (MS, evidence §4.5): one RT row per tenant record with this login, each with
 * Ret_Code = TenantID, Ret_Msg, bHasActiveLedger and the web password in clear. The record with an
 * active ledger is the one; several with a ledger, or none: the first positive one with a ledger, else
 * the first positive one (a tenant with no lease yet). Null when the login failed. The caller must
 * never log or keep the answer (it carries sWebPassword).
 */
export function tenantIdFromLogin(answer: SoapAnswer): string | null {
  const candidates = (answer.tables.RT ?? []).filter((r) => /^\d+$/.test((r.Ret_Code ?? "").trim()) && Number(r.Ret_Code) > 0);
  const active = candidates.find((r) => (r.bHasActiveLedger ?? "").trim().toLowerCase() === "true");
  const chosen = active ?? candidates[0];
  return chosen ? chosen.Ret_Code!.trim() : null;
}
