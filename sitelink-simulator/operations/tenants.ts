/** Tenants: create, search, login, read, update (overwrites every field), military flag, notes. */
import { bool, dateTime, int, rt, str, successRt } from "../helpers";
import { nextAccessCode } from "../seed";
import type { OpContext, OpHandler, SiteLinkSimulator } from "../simulator";
import type { SiteRecord, TenantRecord } from "../state";
import type { Row } from "../wire";

const TENANT_FIELDS = [
  "sMrMrs", "sFName", "sMI", "sLName", "sCompany", "sAddr1", "sAddr2", "sCity", "sRegion", "sPostalCode", "sCountry", "sPhone",
  "sMrMrsAlt", "sFNameAlt", "sMIAlt", "sLNameAlt", "sAddr1Alt", "sAddr2Alt", "sCityAlt", "sRegionAlt", "sPostalCodeAlt", "sCountryAlt", "sPhoneAlt",
  "sMrMrsBus", "sFNameBus", "sMIBus", "sLNameBus", "sCompanyBus", "sAddr1Bus", "sAddr2Bus", "sCityBus", "sRegionBus", "sPostalCodeBus", "sCountryBus", "sPhoneBus",
  "sFax", "sEmail", "sPager", "sMobile", "bCommercial", "bCompanyIsTenant", "dDOB", "sTenNote", "sLicense", "sLicRegion", "sSSN", "sEmailAlt", "sRelationshipAlt",
  "sTaxID", "bSMSOptIn", "sCountryCode",
] as const;

function site(ctx: OpContext): SiteRecord {
  if (!ctx.site) throw new Error("site required");
  return ctx.site;
}

/** Reads the tenant fields of a create/update call; a missing element stores blank (TenantUpdate overwrites). */
function fieldsFrom(ctx: OpContext, names: readonly string[]): Record<string, string | boolean | null> {
  const out: Record<string, string | boolean | null> = {};
  for (const name of names) {
    if (!ctx.sim.contract.operations[ctx.operation]?.params.some((p) => p.name === name)) continue;
    const v = ctx.params[name];
    if (name.startsWith("b")) out[name] = bool(v);
    else if (name.startsWith("d")) {
      const d = dateTime(v);
      out[name] = d && d.date > "0001-01-01" ? `${d.date}T${d.time}` : null;
    } else out[name] = str(v);
  }
  return out;
}

function tenantRow(sim: SiteLinkSimulator, s: SiteRecord, t: TenantRecord): Row {
  const f = t.fields;
  const text = (k: string) => (typeof f[k] === "string" && f[k] !== "" ? (f[k] as string) : null);
  // The whole tenant row, as a DataSet of it would carry (null columns omitted): every field
  // TenantUpdate_v3 overwrites can be read back first (read-modify-write, decision 168).
  const stored: Row = {};
  for (const name of TENANT_FIELDS) if (!name.startsWith("b") && !name.startsWith("d")) stored[name] = text(name);
  return {
    ...stored,
    TenantID: t.TenantID,
    SiteID: s.SiteID,
    sLocationCode: s.sLocationCode,
    sMrMrs: text("sMrMrs"),
    sFName: text("sFName"),
    sMI: text("sMI"),
    sLName: text("sLName"),
    sCompany: text("sCompany"),
    sAddr1: text("sAddr1"),
    sAddr2: text("sAddr2"),
    sCity: text("sCity"),
    sRegion: text("sRegion"),
    sPostalCode: text("sPostalCode"),
    sCountry: text("sCountry"),
    sPhone: text("sPhone"),
    sMobile: text("sMobile"),
    sEmail: text("sEmail"),
    sFNameAlt: text("sFNameAlt"),
    sLNameAlt: text("sLNameAlt"),
    sPhoneAlt: text("sPhoneAlt"),
    sEmailAlt: text("sEmailAlt"),
    sRelationshipAlt: text("sRelationshipAlt"),
    bCommercial: f.bCommercial === true,
    bCompanyIsTenant: f.bCompanyIsTenant === true,
    bSMSOptIn: f.bSMSOptIn === true,
    bMilitary: t.military,
    dDOB: sim.dt(s, typeof f.dDOB === "string" ? f.dDOB : null),
    sTenNote: text("sTenNote"),
    sAccessCode: t.accessCode || null,
    // SiteLink returns the web password readable (study §3.1); the simulator does too.
    sWebPassword: t.webPassword || null,
    bDisabledWebAccess: false,
    dCreated: sim.dt(s, t.created),
    dUpdated: sim.dt(s, t.updated),
  };
}

const TenantNewDetailed_v3: OpHandler = (ctx) => {
  const s = site(ctx);
  const fields = fieldsFrom(ctx, TENANT_FIELDS);
  if (!str(fields.sFName as string).trim() || !str(fields.sLName as string).trim()) return [rt(-1, "Tenant first and last name are required")];
  const gate = str(ctx.params.sGateCode).trim();
  if (gate && (!/^\d{4,10}$/.test(gate) || s.tenants.some((t) => t.accessCode === gate))) return [rt(-2, "Invalid or duplicate gate code")];
  s.seq.tenant += 1;
  const tenant: TenantRecord = {
    TenantID: s.seq.tenant,
    fields,
    accessCode: gate || nextAccessCode(s),
    webPassword: str(ctx.params.sWebPassword),
    military: false,
    created: ctx.nowLocal,
    updated: ctx.nowLocal,
  };
  s.tenants.push(tenant);
  // LSETUP (LK yaml §1, evidence §4.8): Ret_Code "1" on success, the id in its own column.
  return [{ name: "RT", rows: [{ Ret_Code: 1, Ret_Msg: "", TenantID: tenant.TenantID, AccessCode: tenant.accessCode }] }];
};

const TenantUpdate_v3: OpHandler = (ctx) => {
  const s = site(ctx);
  const tenant = s.tenants.find((t) => t.TenantID === int(ctx.params.iTenantID));
  if (!tenant) return [rt(-1, "Invalid TenantID")];
  const gate = str(ctx.params.sGateCode).trim();
  if (gate && s.tenants.some((t) => t.accessCode === gate && t.TenantID !== tenant.TenantID)) return [rt(-2, "Invalid or duplicate gate code")];
  // Overwrites every field with what was sent: a missing element stores blank (S3 §7.104/7.105).
  tenant.fields = fieldsFrom(ctx, TENANT_FIELDS);
  tenant.accessCode = gate;
  tenant.webPassword = str(ctx.params.sWebPassword);
  tenant.updated = ctx.nowLocal;
  for (const l of s.ledgers) if (l.TenantID === tenant.TenantID && l.active) l.accessCode = gate;
  return [successRt(s, tenant.TenantID)];
};

const TenantUpdateMilitary: OpHandler = (ctx) => {
  const s = site(ctx);
  const tenant = s.tenants.find((t) => t.TenantID === int(ctx.params.TenantID));
  if (!tenant) return [rt(-1, "Invalid TenantID")];
  tenant.military = bool(ctx.params.bMilitary);
  tenant.updated = ctx.nowLocal;
  return [rt(tenant.TenantID, "")];
};

const SEARCH_FILTERS: Array<[string, (t: TenantRecord) => string[]]> = [
  ["sTenantFirstName", (t) => [String(t.fields.sFName ?? "")]],
  ["sTenantLastName", (t) => [String(t.fields.sLName ?? "")]],
  ["sAddressLine1", (t) => [String(t.fields.sAddr1 ?? "")]],
  ["sAddressLine2", (t) => [String(t.fields.sAddr2 ?? "")]],
  ["sCity", (t) => [String(t.fields.sCity ?? "")]],
  ["sState", (t) => [String(t.fields.sRegion ?? "")]],
  ["sZipCode", (t) => [String(t.fields.sPostalCode ?? "")]],
  ["sEmailAddress", (t) => [String(t.fields.sEmail ?? ""), String(t.fields.sEmailAlt ?? "")]],
  ["sPhoneNumber", (t) => [String(t.fields.sPhone ?? ""), String(t.fields.sMobile ?? ""), String(t.fields.sPhoneAlt ?? "")]],
  ["sPhoneNumber2", (t) => [String(t.fields.sPhone ?? ""), String(t.fields.sMobile ?? "")]],
  ["sPhoneNumber3", (t) => [String(t.fields.sPhone ?? ""), String(t.fields.sMobile ?? "")]],
  ["sPhoneNumber4", (t) => [String(t.fields.sPhone ?? ""), String(t.fields.sMobile ?? "")]],
];

/** Fuzzy (contains, case-insensitive) on every filter given, capped at 50 rows; no location = every site. */
const TenantSearchDetailed: OpHandler = (ctx) => {
  const sites = ctx.site ? [ctx.site] : ctx.sim.state.sites;
  const active = SEARCH_FILTERS.map(([name, get]) => [str(ctx.params[name]).trim().toLowerCase(), get] as const).filter(([v]) => v !== "");
  const rows: Row[] = [];
  for (const s of sites) {
    for (const t of s.tenants) {
      if (active.every(([v, get]) => get(t).some((x) => x.toLowerCase().includes(v)))) rows.push(tenantRow(ctx.sim, s, t));
      if (rows.length >= 50) break;
    }
    if (rows.length >= 50) break;
  }
  return [{ name: "Table", rows }];
};

/**
 * Per site: the login is the tenant's email (case-insensitive), the password is sWebPassword as
 * stored. As a real portal reads it (MS, evidence §4.5): one RT row per tenant record with that
 * login and password, each with Ret_Code = TenantID, Ret_Msg, bHasActiveLedger and sWebPassword in
 * clear (no Table); none: RT -1.
 */
const TenantLogin: OpHandler = (ctx) => {
  const s = site(ctx);
  const login = str(ctx.params.sTenantLogin).trim().toLowerCase();
  const password = str(ctx.params.sTenantPassword);
  const matches = s.tenants.filter((t) => login !== "" && String(t.fields.sEmail ?? "").toLowerCase() === login && t.webPassword !== "" && t.webPassword === password);
  if (matches.length === 0) return [rt(-1, "Invalid login or password")];
  return [
    {
      name: "RT",
      rows: matches.map((t) => ({
        Ret_Code: t.TenantID,
        Ret_Msg: "Success",
        bHasActiveLedger: s.ledgers.some((l) => l.TenantID === t.TenantID && l.active),
        sWebPassword: t.webPassword,
      })),
    },
  ];
};

const TenantInfoByTenantID: OpHandler = (ctx) => {
  const s = site(ctx);
  const tenant = s.tenants.find((t) => t.TenantID === int(ctx.params.iTenantID));
  if (!tenant) return [rt(-1, "Invalid TenantID")];
  return [{ name: "Table", rows: [tenantRow(ctx.sim, s, tenant)] }];
};

/** Web passwords are 4-10 characters (S3 §7.94). */
const TenantLoginAndSecurityUpdate: OpHandler = (ctx) => {
  const s = site(ctx);
  const tenant = s.tenants.find((t) => t.TenantID === int(ctx.params.TenantID));
  if (!tenant) return [rt(-1, "Invalid TenantID")];
  const pw = str(ctx.params.sWebPassword);
  if (pw.length < 4 || pw.length > 10) return [rt(-2, "Web password must be 4 to 10 characters")];
  tenant.webPassword = pw;
  const email = str(ctx.params.sEmail).trim();
  if (email) tenant.fields.sEmail = email;
  tenant.updated = ctx.nowLocal;
  return [rt(tenant.TenantID, "")];
};

const TenantNoteInsert_v2: OpHandler = (ctx) => {
  const s = site(ctx);
  const ledger = s.ledgers.find((l) => l.LedgerID === int(ctx.params.iLedgerID));
  if (!ledger) return [rt(-1, "Invalid LedgerID")];
  s.seq.note += 1;
  s.notes.push({ NoteID: s.seq.note, LedgerID: ledger.LedgerID, TenantID: ledger.TenantID, sNote: str(ctx.params.sNote), iNoteType: int(ctx.params.iNoteType), at: ctx.nowLocal });
  return [rt(s.seq.note, "")];
};

export const tenantOperations: Record<string, OpHandler> = {
  TenantNewDetailed_v3,
  TenantUpdate_v3,
  TenantUpdateMilitary,
  TenantSearchDetailed,
  TenantLogin,
  TenantInfoByTenantID,
  TenantLoginAndSecurityUpdate,
  TenantNoteInsert_v2,
};
