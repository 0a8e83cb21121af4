/**
 * SiteLink tenant records as the adapter writes and finds them: TenantNewDetailed_v3's parameters,
 * the exact-email search, and finding a record again by the note it was created with (after a
 * creation whose answer did not say). Shared by the move-in, reservations and the tenants part.
 */
import type { MoveInInput } from "../port";
import { rows } from "./calls";
import { type Row } from "./dataset";
import { type SiteLinkCall } from "./client";

/** SiteLink tenants of this site whose email is exactly this one (the search is fuzzy and capped at 50: filter here). */
export async function searchTenantsByEmail(call: SiteLinkCall, email: string): Promise<Row[]> {
  const wanted = email.trim().toLowerCase();
  const a = await call("TenantSearchDetailed", { sEmailAddress: wanted }, { write: false });
  return rows(a, "Table").filter((r) => (r.sEmail ?? "").trim().toLowerCase() === wanted);
}

/** The note an online rental's tenant is created with in SiteLink (how a lost answer finds it again). */
export const tenantNote = (rentalId: string) => `Gatehouse checkout ${rentalId}`;

/**
 * The tenant record this email's search finds with `note` in its sTenNote (TenantSearchDetailed, or
 * TenantInfoByTenantID when the search row has no note): how a creation without a clear answer is
 * found again. Null when none carries it.
 */
export async function findTenantWithNote(call: SiteLinkCall, email: string, note: string): Promise<{ tenantId: string; accessCode: string } | null> {
  for (const r of await searchTenantsByEmail(call, email)) {
    if (!r.TenantID) continue;
    let text = r.sTenNote;
    let accessCode = r.sAccessCode;
    if (text === undefined) {
      const info = rows(await call("TenantInfoByTenantID", { iTenantID: Number(r.TenantID) }, { write: false }), "Table")[0];
      text = info?.sTenNote;
      accessCode = info?.sAccessCode ?? accessCode;
    }
    if ((text ?? "").includes(note)) return { tenantId: r.TenantID, accessCode: accessCode ?? "" };
  }
  return null;
}

/** TenantNewDetailed_v3's parameters (study §4): every one sent, SiteLink assigns the gate code. */
export function tenantParams(t: MoveInInput["tenant"], email: string, note: string) {
  const blank = "";
  return {
    sWebPassword: blank,
    sMrMrs: blank,
    sFName: t.firstName,
    sMI: blank,
    sLName: t.lastName,
    sCompany: blank,
    sAddr1: t.addr1,
    sAddr2: t.addr2 ?? blank,
    sCity: t.city,
    sRegion: t.region,
    sPostalCode: t.postalCode,
    sCountry: "US",
    sPhone: t.cellPhone,
    sMrMrsAlt: blank,
    sFNameAlt: t.altContactFirstName ?? blank,
    sMIAlt: blank,
    sLNameAlt: t.altContactLastName ?? blank,
    sAddr1Alt: blank,
    sAddr2Alt: blank,
    sCityAlt: blank,
    sRegionAlt: blank,
    sPostalCodeAlt: blank,
    sCountryAlt: blank,
    sPhoneAlt: t.altContactPhone ?? blank,
    sMrMrsBus: blank,
    sFNameBus: blank,
    sMIBus: blank,
    sLNameBus: blank,
    sCompanyBus: blank,
    sAddr1Bus: blank,
    sAddr2Bus: blank,
    sCityBus: blank,
    sRegionBus: blank,
    sPostalCodeBus: blank,
    sCountryBus: blank,
    sPhoneBus: blank,
    sFax: blank,
    sEmail: email,
    sPager: blank,
    sMobile: t.cellPhone,
    bCommercial: t.isCommercial,
    bCompanyIsTenant: t.isCompany,
    dDOB: "1900-01-01T00:00:00",
    sTenNote: note,
    sLicense: blank,
    sLicRegion: blank,
    sSSN: blank,
    sGateCode: blank,
    sEmailAlt: blank,
    sRelationshipAlt: blank,
    sTaxID: blank,
    // The renter's texting opt-in (decision 511); false when none was given.
    bSMSOptIn: t.smsOptIn === true,
    sCountryCode: blank,
  };
}
