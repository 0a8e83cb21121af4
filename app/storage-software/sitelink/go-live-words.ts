/**
 * The go-live check in the operator's words (issue 40, decision 681): each item of a report as the
 * console lists it, what it checked in words a site manager knows ("Unit types and their prices",
 * not `UnitTypePriceList_v2`), its result, what SiteLink said (kept, for SiteLink's support), and
 * what to do when it did not pass. And the settings the check found the site uses, which the console
 * offers to save where the location's own are missing or differ (its card types, the pay-method ids
 * its test move-in took). Pure.
 */
import type { GoLiveItem, GoLiveSuggestions, SiteLinkPayMethodIds } from "~/db/schema";
import { PAY_METHOD_READINGS, type CheckStatus, type GoLiveReport, type OperationCheck } from "./verify-report";

/** What each operation the adapter uses is for, in words. */
const OPERATION_WORDS: Record<string, string> = {
  SiteInformation: "Signing in to SiteLink and reading the site",
  UnitTypePriceList_v2: "Unit types and their prices",
  UnitsInformation_v3: "The list of units",
  UnitsInformationByUnitID: "A unit read again before it is rented",
  InsuranceCoverageRetrieve_V2: "Protection plans",
  DiscountPlansRetrieve: "Discount plans (promotions)",
  ChargeDescriptionsRetrieve: "Fees and charges",
  PaymentTypesRetrieve: "Payment types",
  MoveInCostRetrieveWithDiscount_v4: "A move-in quote",
  TenantSearchDetailed: "Finding a tenant by e-mail",
  TenantInfoByTenantID: "A tenant's record",
  LedgersByTenantID_v3: "A tenant's rentals",
  ChargesAllByLedgerID: "A rental's charges",
  PaymentsByLedgerID: "A rental's payments",
  CustomerAccountsBalanceDetailsWithPrepayment: "A tenant's balance and paying ahead",
  TenantBillingInfoByTenantID_v3: "A tenant's autopay details",
  ReservationList_v3: "Reservations",
  TenantLogin: "A tenant's sign-in to the portal",
  TenantNewDetailed_v3: "Making the check's own test tenant",
  MoveInWithDiscount_v7: "A move-in, in test mode",
  ReservationNewWithSource_v5: "making a reservation",
  ReservationUpdate_v4: "changing a reservation",
  TenantUpdate_v3: "changing a tenant's contact details",
  TenantUpdateMilitary: "a tenant's military status",
  TenantNoteInsert_v2: "a note on a tenant",
  TenantBillingInfoUpdate_v2: "turning autopay on or off",
  PaymentSimpleWithSource: "a card payment",
  PaymentSimpleCheckWithSource: "a payment recorded as cash or check",
  ScheduleMoveOut: "a move-out notice",
};

const RESULT: Record<CheckStatus, GoLiveItem["result"]> = {
  ok: "passed",
  warning: "passed with a warning",
  differs: "failed",
  "not checked": "not checked",
  "not sent": "not sent",
};

/** Reads that need a tenant with a rental: the check reads that tenant's records, never writes them. */
const NEEDS_LEASE_HOLDER = new Set(["ChargesAllByLedgerID", "PaymentsByLedgerID"]);
/** Reads of the check's own test tenant, made (once) by its test move-in. */
const NEEDS_TEST_TENANT = new Set(["TenantInfoByTenantID", "LedgersByTenantID_v3", "CustomerAccountsBalanceDetailsWithPrepayment", "TenantBillingInfoByTenantID_v3", "TenantLogin"]);
/** Reads that need a free unit. */
const NEEDS_FREE_UNIT = new Set(["UnitsInformationByUnitID", "MoveInCostRetrieveWithDiscount_v4"]);

const LEASE_HOLDER_FIX = "Give the SiteLink TenantID of a tenant with a rental at this site (“A tenant to read”) and run the check again: it only reads that tenant's records.";
const FREE_UNIT_FIX = "Give the SiteLink UnitID of a free unit (“A unit to use”) and run the check again, or make a unit available in SiteLink.";
const SUPPORT_FIX = "Your SiteLink answers without what the website reads (the details name it). Send the details to SiteLink's support before going live, then run the check again.";

/** What to do about an operation that did not pass. */
function operationFix(o: OperationCheck, report: GoLiveReport): string | null {
  if (o.status === "ok" || o.status === "not sent") return null;
  const notes = o.notes.join(" ");
  if (o.status === "warning") return "Nothing stops going live: the website falls back where SiteLink leaves this out.";
  if (o.status === "not checked") {
    if (NEEDS_LEASE_HOLDER.has(o.operation)) return LEASE_HOLDER_FIX;
    if (NEEDS_FREE_UNIT.has(o.operation)) return FREE_UNIT_FIX;
    if (NEEDS_TEST_TENANT.has(o.operation)) return "Read with the check's own test tenant, made by its test move-in: see “The check's test move-in”.";
    return "Run the check again once the site has what it reads (the details say what was missing).";
  }
  if (o.operation === "SiteInformation") return "SiteLink refused the sign-in or the site: check the corp code, the location code, the user name and the password, then run the check again.";
  if (/no usable answer/.test(notes)) return "SiteLink gave no usable answer. Run the check again; if it fails again, send the details to SiteLink's support.";
  if (/answered Ret_Code -/.test(notes)) return `SiteLink refused this (the details give its code): make sure the SiteLink user may read ${(OPERATION_WORDS[o.operation] ?? o.operation).toLowerCase()} at this site, then run the check again.`;
  if (o.operation === "MoveInWithDiscount_v7" && report.payMethod.status === "differs") return "See “How a card is recorded” below.";
  return SUPPORT_FIX;
}

/** The site's card types matched to the brands the website takes, by their names in SiteLink. */
function siteCardTypes(report: GoLiveReport): Record<string, number> {
  const brands: Array<[string, RegExp]> = [
    ["visa", /\bvisa\b/i],
    ["mastercard", /\bmaster\s*card\b|\bmc\b/i],
    ["discover", /\bdiscover\b/i],
    ["amex", /\bamex\b|american express/i],
  ];
  const found: Record<string, number> = {};
  for (const [brand, pattern] of brands) {
    const rows = report.cardTypes.site.filter((t) => pattern.test(t.description) && /^\d+$/.test(t.id));
    // Two rows naming one brand: which one the office uses is theirs to say (none is proposed).
    if (rows.length === 1) found[brand] = Number(rows[0]!.id);
  }
  return found;
}

/** The pay-method ids the site takes, when the test move-in showed the location's differ. */
function sitePayMethodIds(report: GoLiveReport): SiteLinkPayMethodIds | null {
  const p = report.payMethod;
  if (p.status !== "differs" || p.works === null || !p.configured) return null;
  return p.reading ? { ...PAY_METHOD_READINGS[p.reading].ids } : { ...p.configured, card: p.works };
}

/** Settings the check proposes (see the module comment): only where the location's differ or are missing. */
export function goLiveSuggestions(report: GoLiveReport): GoLiveSuggestions {
  const suggested: GoLiveSuggestions = {};
  if (report.cardTypes.status === "differs") {
    const cards = siteCardTypes(report);
    if (Object.keys(cards).length) suggested.cardTypeIds = cards;
  }
  const pay = sitePayMethodIds(report);
  if (pay) suggested.payMethodIds = pay;
  return suggested;
}

const list = (ids: Record<string, number>) =>
  Object.entries(ids)
    .map(([brand, id]) => `${brand === "mastercard" ? "Master Card" : brand === "amex" ? "American Express" : brand[0]!.toUpperCase() + brand.slice(1)} = ${id}`)
    .join(", ");

/** The report's items as the console lists them (see the module comment). */
export function goLiveItems(report: GoLiveReport): GoLiveItem[] {
  if (report.unreachable) {
    return [
      {
        label: `Reaching SiteLink at ${report.endpoint}`,
        result: "failed",
        details: [report.unreachable],
        fix: "Check the web service address, and that SiteLink is up (its status page, or the office's SiteLink). Then run the check again. Nothing else was checked, and the location's go-live state is as it was.",
      },
    ];
  }
  const items: GoLiveItem[] = [
    {
      label: "The SiteLink settings saved for this location",
      result: RESULT[report.settings.status],
      details: report.settings.notes.length ? report.settings.notes : ["accepted; the password resolves"],
      fix: report.settings.status === "differs" ? "The server refuses these settings (the details say why). Set what they name on the server, or save the settings again with npm run sitelink:configure." : null,
    },
  ];
  const sent = report.operations.filter((o) => o.status !== "not sent");
  for (const o of sent) {
    items.push({ label: OPERATION_WORDS[o.operation] ?? o.operation, result: RESULT[o.status], details: [`SiteLink ${o.operation}${o.notes.length ? `: ${o.notes.join("; ")}` : ": answered as the website reads it"}`], fix: operationFix(o, report) });
  }
  const unsent = report.operations.filter((o) => o.status === "not sent");
  if (unsent.length) {
    items.push({
      label: "Changes the check never makes",
      result: "not sent",
      details: [
        `${unsent.map((o) => OPERATION_WORDS[o.operation] ?? o.operation).join(", ")}: the website reads every answer to these that is not a clear success back from SiteLink, so it does not rely on their codes.`,
      ],
      fix: null,
    });
  }
  if (report.settings.status !== "differs") {
    const suggested = goLiveSuggestions(report);
    const c = report.cardTypes;
    items.push({
      label: "Card types",
      result: RESULT[c.status],
      details: [
        `SiteLink lists: ${c.site.map((t) => `${t.description} = ${t.id}`).join(", ") || "none read"}`,
        `This location's: ${list(c.configured) || "none"}`,
        ...c.notes,
      ],
      fix:
        c.status === "differs"
          ? suggested.cardTypeIds
            ? `Use the card types SiteLink lists (${list(suggested.cardTypeIds)}) with the button below, then run the check again.`
            : "Set each card brand's payment type as SiteLink lists it (npm run sitelink:configure … --card-type visa=<id>), then run the check again."
          : c.status === "not checked"
            ? "Read with “Payment types”: see it above."
            : null,
    });
    const p = report.payMethod;
    items.push({
      label: "How a card is recorded (the pay method)",
      result: RESULT[p.status],
      details: [...(p.configured ? [`This location sends card ${p.configured.card}, cash ${p.configured.cash}, check ${p.configured.check}`] : []), ...p.notes],
      fix:
        p.status === "differs"
          ? suggested.payMethodIds
            ? `Use the ids this site takes (card ${suggested.payMethodIds.card}, cash ${suggested.payMethodIds.cash}, check ${suggested.payMethodIds.check}) with the button below, then run the check again.`
            : "No pay method was taken by the test move-in (see the details): ask SiteLink's support which iPayMethod the site takes for a card."
          : p.status === "not checked"
            ? "Shown by the check's test move-in: see “The check's test move-in”."
            : null,
    });
    const b = report.billingFrequency;
    items.push({
      label: "Billing frequency",
      result: RESULT[b.status],
      details: [`${b.configured}: ${b.note}`],
      fix: b.status === "differs" ? "Ask SiteLink which billing frequency the site takes, set it with npm run sitelink:configure, then run the check again." : null,
    });
    items.push(testMoveInItem(report));
  }
  return items;
}

/** The test move-in: what happened to it, and what the office must do afterwards. */
function testMoveInItem(report: GoLiveReport): GoLiveItem {
  const t = report.testMoveIn;
  const label = "The check's test move-in";
  if (!t) return { label, result: "not checked", details: ["not sent"], fix: "Run the check from the console (it always makes a test move-in)." };
  const notes = t.notes.join(" ");
  const held = /still holds unit/.test(notes);
  const sent = report.payMethod.works !== null;
  const officeMust = /The office must move the test tenant out/.test(notes);
  return {
    label,
    result: held || !sent ? (report.payMethod.status === "differs" ? "failed" : "not checked") : "passed",
    details: [`unit ${t.unitId || "none"}${t.ledgerId ? `, ledger ${t.ledgerId}` : ""}`, ...t.notes],
    fix: held
      ? "Have the office move the test tenant out of that unit (and void its test payment), then run the check again."
      : officeMust
        ? "Afterwards, at the office: finish the test tenant's move-out and void its test payment. Until then the next check takes no other unit."
        : !sent && /no free unit/.test(notes)
          ? FREE_UNIT_FIX
          : !sent && /no card type configured/.test(notes)
            ? "Set the card types first: see “Card types”."
            : null,
  };
}
