/**
 * The settings forms (issue 39, decision 632): the account's rental settings (spec §9, owners) and a
 * location's own settings over them (owners and the location's managers), each setting a labelled
 * field with the spec's meaning beside it. Parsed with Conform through `settingsFormSchema`, then the
 * whole object checked by the strict schema the draft writes with (`rentalSettingsSchema`,
 * `locationSettingsSchema`: an unknown key is refused), and saved INTO THE DRAFT like every content
 * edit (`saveDraftEdit`: scope, the stale-save check on the settings as the form loaded them, the
 * field-level audit), published, diffed and restored with the rest.
 */
import { parseWithZod } from "@conform-to/zod/v4";
import type { Database } from "~/db/client.server";
import {
  accountGlobalSettingsSchema,
  locationSettingsSchema,
  RENTAL_SETTINGS,
  rentalSettingsSchema,
  settingsFormSchema,
  type RentalSettingKey,
} from "~/domain/shared/account-settings";
import { readEffectiveRecord, saveDraftEdit } from "./changesets.server";
import { hitRateLimit } from "../web/rate-limit.server";
import { GONE_OR_OUT_OF_SCOPE } from "../web/responses.server";
import type { SignedInStaff } from "../staff/context.server";

type SettingsMode = "account" | "location";

interface SettingsPage {
  mode: SettingsMode;
  name: string;
  /** What the form shows: "on"/"" for the account's boxes; "yes"/"no"/"" for a location's choices; numbers as text. */
  values: Record<string, string>;
  /** The account's values (a location's "same as the website" says which). */
  accountValues: Record<string, string>;
  /** The stored settings the form was loaded with (the stale-save check). */
  base: string;
  /** Keys stored before issue 39 that no setting has (shown, and dropped at the next save). */
  unknownKeys: string[];
  pending: boolean;
}

const KEYS = Object.keys(RENTAL_SETTINGS) as RentalSettingKey[];

function shown(mode: SettingsMode, stored: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    KEYS.map((k) => {
      const v = stored[k];
      if (typeof v === "boolean") return [k, mode === "account" ? (v ? "on" : "") : v ? "yes" : "no"];
      return [k, v === undefined || v === null ? "" : String(v)];
    }),
  );
}

const objectOf = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The page of the account's settings (null: not there), or of a location's (null: missing or outside the member's locations). */
export async function settingsPage(db: Database, staff: SignedInStaff, mode: SettingsMode, locationId: number | null): Promise<SettingsPage | null> {
  const account = await readEffectiveRecord(db, { accountId: staff.accountId, scope: { all: true } }, "account", staff.accountId);
  if (!account) return null;
  const accountSettings = accountGlobalSettingsSchema.parse(objectOf(account.values.globalSettings));
  if (mode === "account") {
    const stored = objectOf(account.values.globalSettings);
    return {
      mode,
      name: String(account.values.name ?? ""),
      values: shown("account", accountSettings),
      accountValues: shown("account", accountSettings),
      base: JSON.stringify(account.values.globalSettings ?? {}),
      unknownKeys: Object.keys(stored).filter((k) => !(k in RENTAL_SETTINGS)),
      pending: account.pending.includes("globalSettings"),
    };
  }
  const location = locationId == null ? null : await readEffectiveRecord(db, staff, "location", locationId);
  if (!location) return null;
  const stored = objectOf(location.values.globalSettings);
  return {
    mode,
    name: String(location.values.name ?? ""),
    values: shown("location", stored),
    accountValues: shown("location", accountSettings),
    base: JSON.stringify(location.values.globalSettings ?? {}),
    unknownKeys: Object.keys(stored).filter((k) => !(k in RENTAL_SETTINGS)),
    pending: location.pending.includes("globalSettings"),
  };
}

type SettingsOutcome =
  | { ok: true }
  | { ok: false; status: 400 | typeof GONE_OR_OUT_OF_SCOPE | 409 | 429; formError: string | null; errors: Record<string, string>; values: Record<string, string> };

/** Saves the settings form into the draft (see the module comment). */
export async function saveSettings(db: Database, staff: SignedInStaff, mode: SettingsMode, locationId: number | null, form: FormData, now: Date): Promise<SettingsOutcome> {
  const values = Object.fromEntries(KEYS.map((k) => [k, String(form.get(k) ?? "").slice(0, 40)]));
  const limit = await hitRateLimit(db, { key: `content-edit:staff:${staff.staffId}`, limit: 300, windowMs: 10 * 60_000, now });
  if (!limit.allowed) return { ok: false, status: 429, formError: `Too many changes in a short time. Please wait ${limit.retryAfterMinutes} minutes and try again.`, errors: {}, values };
  const submission = parseWithZod(form, { schema: settingsFormSchema(mode) });
  if (submission.status !== "success") {
    const errors: Record<string, string> = {};
    for (const [k, messages] of Object.entries(submission.error ?? {})) if (messages?.[0]) errors[k] = messages[0];
    return { ok: false, status: 400, formError: "Some settings need correcting: see the messages beside them.", errors, values };
  }
  // Only the settings (the form's other fields, such as the CSRF token, are not settings); undefined: the account's value.
  const settings = Object.fromEntries(Object.entries(submission.value).filter(([, v]) => v !== undefined));
  const strict = (mode === "account" ? rentalSettingsSchema : locationSettingsSchema).safeParse(settings);
  if (!strict.success) return { ok: false, status: 400, formError: strict.error.issues[0]?.message ?? "These settings are not valid.", errors: {}, values };
  let base: unknown;
  try {
    base = JSON.parse(String(form.get("base") ?? "{}"));
  } catch {
    base = {};
  }
  const result = await saveDraftEdit(db, staff, {
    op: "update",
    entity: mode === "account" ? "account" : "location",
    recordId: mode === "account" ? staff.accountId : locationId!,
    values: { globalSettings: strict.data },
    base: { globalSettings: base },
  });
  if (result.ok) return { ok: true };
  if (result.reason === "not-found") return { ok: false, status: GONE_OR_OUT_OF_SCOPE, formError: "These settings are not yours to change.", errors: {}, values };
  if (result.reason === "conflict") {
    return { ok: false, status: 409, formError: "Someone else saved these settings since you opened this page. Reload the page to see theirs, then make your change again.", errors: {}, values };
  }
  return { ok: false, status: 400, formError: Object.values(result.errors)[0] ?? "These settings are not valid.", errors: {}, values };
}
