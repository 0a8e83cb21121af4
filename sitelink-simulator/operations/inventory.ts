/** Inventory reads: site, price list, units (lngLastTimePolled), insurance, charges, payment types. */
import { readingsOf } from "../state";
import { bool, int, rt, str } from "../helpers";
import type { OpContext, OpHandler, SiteLinkSimulator } from "../simulator";
import type { SiteRecord, UnitRecord } from "../state";
import { money4, rate4, rateText } from "../values";
import { concessionRow } from "../concessions";
import type { ResultTable, Row } from "../wire";

function requireSite(ctx: OpContext): SiteRecord {
  if (!ctx.site) throw new Error("site required");
  return ctx.site;
}

function unitRow(sim: SiteLinkSimulator, site: SiteRecord, u: UnitRecord): Row {
  const type = site.unitTypes.find((t) => t.UnitTypeID === u.UnitTypeID);
  return {
    Ret_Code: 1,
    UnitID: u.UnitID,
    SiteID: site.SiteID,
    UnitTypeID: u.UnitTypeID,
    sTypeName: type?.sTypeName ?? "",
    sUnitName: u.sUnitName,
    dcWidth: rateText(u.width * 100),
    dcLength: rateText(u.length * 100),
    iFloor: u.floor,
    bClimate: u.climate,
    bInside: u.inside,
    bPower: u.power,
    bAlarm: u.alarm,
    bRented: u.rented,
    bRentable: u.rentable,
    bWaitingListReserved: u.waitingListReserved,
    bExcludeFromWebsite: u.excludeFromWebsite,
    bNeedsService: u.needsService,
    dDeleted: sim.dt(site, u.deleted),
    dcStdRate: rateText(u.stdRate),
    dcWebRate: rateText(u.webRate),
    dcPushRate: rateText(u.pushRate),
    dcBoardRate: rateText(u.stdRate),
    dcPreferredRate: rateText(u.webRate),
    dcStdSecDep: money4(u.secDep),
    sUnitNote: u.note || null,
    dUpdated: sim.dt(site, u.updatedAt),
  };
}

/** lngLastTimePolled: "" or "0" = every unit; otherwise .NET ticks, units changed after them. */
function parseTicks(text: string): bigint | null {
  const t = text.trim();
  if (t === "") return 0n;
  return /^\d+$/.test(t) ? BigInt(t) : null;
}

function unitsPoll(ctx: OpContext, filter: (u: UnitRecord) => boolean): ResultTable[] {
  const site = requireSite(ctx);
  const since = parseTicks(str(ctx.params.lngLastTimePolled));
  if (since === null) return [rt(-1, "General failure")];
  const rows = site.units.filter((u) => filter(u) && (since === 0n || BigInt(u.updatedTicks) > since));
  const latest = site.units.reduce((m, u) => (u.updatedAt > m ? u.updatedAt : m), "");
  const table1: ResultTable = {
    name: "Table1",
    rows: [{ lngLastTimePolled: ctx.sim.issueTicks(), dLatestUpdated: ctx.sim.dt(site, latest || null) }],
  };
  if (rows.length === 0) return [table1, rt(0, "No unit data found")];
  return [{ name: "Table", rows: rows.map((u) => unitRow(ctx.sim, site, u)) }, table1];
}

const SiteInformation: OpHandler = (ctx) => {
  const s = requireSite(ctx);
  return [
    {
      name: "Table",
      rows: [
        {
          SiteID: s.SiteID,
          sLocationCode: s.sLocationCode,
          sSiteName: s.sSiteName,
          sSiteAddr1: s.address.addr1,
          sSiteAddr2: s.address.addr2 || null,
          sSiteCity: s.address.city,
          sSiteRegion: s.address.region,
          sSitePostalCode: s.address.postal,
          sSiteCountry: s.address.country,
          sSitePhone: s.phone,
          sEmailAddress: s.email,
          dcTax1Rate_Rent: rate4(s.rentTax1Rate),
          dcTax2Rate_Rent: rate4(s.rentTax2Rate),
        },
      ],
    },
  ];
};

/** One price-list row per unit type and size (ST's grouping key: type, width, length, climate; plus floor and inside). */
function priceGroups(site: SiteRecord): Map<string, UnitRecord[]> {
  const groups = new Map<string, UnitRecord[]>();
  for (const u of site.units) {
    if (u.deleted) continue;
    const key = `${u.UnitTypeID}:${u.width}X${u.length}:${u.climate}:${u.floor}:${u.inside}`;
    const list = groups.get(key) ?? [];
    list.push(u);
    groups.set(key, list);
  }
  return groups;
}

const UnitTypePriceList_v2: OpHandler = (ctx) => {
  const site = requireSite(ctx);
  const rows: Row[] = [];
  const groups = [...priceGroups(site).values()].sort(
    (a, b) => a[0]!.width * a[0]!.length - b[0]!.width * b[0]!.length || a[0]!.UnitTypeID - b[0]!.UnitTypeID,
  );
  for (const units of groups) {
    const u = units[0]!;
    const type = site.unitTypes.find((t) => t.UnitTypeID === u.UnitTypeID);
    const vacant = units.filter((x) => !x.rented && x.rentable);
    // Reserved units still count as vacant (S3 §7.112); the first available one is not reserved.
    const first = vacant.find((x) => !x.waitingListReserved && !x.excludeFromWebsite) ?? vacant[0];
    rows.push({
      UnitTypeID: u.UnitTypeID,
      sTypeName: type?.sTypeName ?? "",
      dcWidth: rateText(u.width * 100),
      dcLength: rateText(u.length * 100),
      dcArea: rateText(u.width * u.length * 100),
      iFloor: u.floor,
      bClimate: u.climate,
      bInside: u.inside,
      bPower: u.power,
      bAlarm: u.alarm,
      dcStdRate: rateText(u.stdRate),
      dcWebRate: rateText(u.webRate),
      dcPushRate: rateText(u.pushRate),
      dcBoardRate: rateText(u.stdRate),
      dcPreferredRate: rateText(u.webRate),
      dcStdSecDep: money4(u.secDep),
      iTotalUnits: units.length,
      iTotalOccupied: units.filter((x) => x.rented).length,
      iTotalVacant: vacant.length,
      iTotalReserved: units.filter((x) => !x.rented && x.waitingListReserved).length,
      UnitID_FirstAvailable: first?.UnitID ?? 0,
      bRented_FirstAvailable: false,
      dcAdminFee: money4(site.adminFee),
      dcReservationFee: money4(0),
      ConcessionID: 0,
      DefaultCoverageID: 0,
      dcTax1Rate_Rent: rate4(site.rentTax1Rate),
      dcTax2Rate_Rent: rate4(site.rentTax2Rate),
      bExcludeFromInsurance: false,
    });
  }
  return rows.length ? [{ name: "Table", rows }] : [rt(0, "No unit data found")];
};

const UnitsInformation_v3: OpHandler = (ctx) =>
  unitsPoll(ctx, (u) => bool(ctx.params.bReturnExcludedFromWebsiteUnits) || !u.excludeFromWebsite);

/** Lists units that are not rented and rentable: waiting-list-reserved units are still listed (flagged). */
const UnitsInformationAvailableUnitsOnly_v2: OpHandler = (ctx) =>
  unitsPoll(ctx, (u) => !u.rented && u.rentable && !u.deleted && !u.excludeFromWebsite);

const UnitsInformationByUnitID: OpHandler = (ctx) => {
  const site = requireSite(ctx);
  const u = site.units.find((x) => x.UnitID === int(ctx.params.UnitID));
  if (!u) return [rt(0, "No unit data found")];
  return [{ name: "Table", rows: [unitRow(ctx.sim, site, u)] }];
};

const insuranceRows = (site: SiteRecord): Row[] =>
  [...site.insurance]
    .sort((a, b) => a.coverage - b.coverage)
    .map((i) => ({
      InsurCoverageID: i.InsurCoverageID,
      SiteID: site.SiteID,
      dcCoverage: money4(i.coverage),
      dcPremium: money4(i.premium),
      dcPCTheft: i.pcTheft,
      sCoverageDesc: i.description,
      sProvidor: i.provider,
      sBrochureUrl: null,
      sCertificateUrl: null,
    }));

const InsuranceCoverageRetrieve_V2: OpHandler = (ctx) => [{ name: "Table", rows: insuranceRows(requireSite(ctx)) }];
/** V3 answers no rows (LK-R §2.3: 0 plans on LSETUP while V1/V2 returned 11). */
const InsuranceCoverageRetrieve_V3: OpHandler = () => [{ name: "Table", rows: [] }];

const ChargeDescriptionsRetrieve: OpHandler = (ctx) => {
  const site = requireSite(ctx);
  return [
    {
      name: "Table",
      rows: site.chargeDescriptions.map((c) => ({
        ChargeDescID: c.ChargeDescID,
        SiteID: site.SiteID,
        sChgDesc: c.sChgDesc,
        sChgCategory: c.sChgCategory,
        dcPrice: money4(c.ChargeDescID === 2 ? site.adminFee : c.price),
        dcTax1Rate: rate4(c.sChgCategory === "Rent" ? site.rentTax1Rate : c.sChgCategory === "AdminFee" ? site.adminFeeTax1Rate : c.tax1Rate),
        dcTax2Rate: rate4(c.sChgCategory === "Rent" ? site.rentTax2Rate : c.tax2Rate),
        bApplyAtMoveIn: c.applyAtMoveIn || (c.sChgCategory === "AdminFee" && site.adminFee > 0),
        bProrateAtMoveIn: c.prorateAtMoveIn,
        bRecurring: c.recurring,
        dDisabled: ctx.sim.dt(site, c.disabled),
      })),
    },
  ];
};

const PaymentTypesRetrieve: OpHandler = (ctx) => [
  {
    name: "Table",
    rows: requireSite(ctx).paymentTypes.map((p) => ({ PmtTypeID: p.PmtTypeID, sPmtTypeDesc: p.sPmtTypeDesc, sCategory: p.sCategory })),
  },
];

const RentTaxRatesRetrieve: OpHandler = (ctx) => {
  const s = requireSite(ctx);
  return [{ name: "Table", rows: [{ SiteID: s.SiteID, dcTax1Rate: rate4(s.rentTax1Rate), dcTax2Rate: rate4(s.rentTax2Rate) }] }];
};

const ProrationInformationRetrieve: OpHandler = (ctx) => {
  const s = requireSite(ctx);
  return [
    {
      name: "Table",
      rows: [
        {
          SiteID: s.SiteID,
          bAnnivDateLeasing: s.billing.anniversary,
          b2ndMonthProrate: s.billing.b2ndMonthProrate,
          iDayStrtProrating: s.billing.iDayStrtProrating,
          iDayStrtProratePlusNext: s.billing.iDayStrtProratePlusNext,
        },
      ],
    },
  ];
};

/**
 * The site's plans in a `ConcessionPlans` table (none on the demo corp until configured), with the
 * columns the outside sources read (../concessions.ts); a disabled plan is not listed (this is not
 * DiscountPlansRetrieveIncludingDisabled). Under the "empty" reading no rows at all, as LK-R §2.4 saw
 * on LSETUP (evidence §3).
 */
const DiscountPlansRetrieve: OpHandler = (ctx) => {
  const site = requireSite(ctx);
  const listed = readingsOf(site).discountPlans !== "empty";
  return [
    {
      name: "ConcessionPlans",
      rows: (listed ? site.concessions.filter((c) => !c.disabled) : []).map((c) => concessionRow(site, c, (v) => ctx.sim.dt(site, v))),
    },
  ];
};

const PaymentSettings: OpHandler = (ctx) => {
  const s = requireSite(ctx);
  return [
    {
      name: "Table",
      rows: [{ SiteID: s.SiteID, iDaysPastDueDisableOnlinePayments: s.daysPastDueDisableOnlinePayments, bAllowPrepayments: true, iMaxPrepayMonths: 12 }],
    },
  ];
};

export const inventoryOperations: Record<string, OpHandler> = {
  SiteInformation,
  UnitTypePriceList_v2,
  UnitsInformation_v3,
  UnitsInformationAvailableUnitsOnly_v2,
  UnitsInformationByUnitID,
  InsuranceCoverageRetrieve_V2,
  InsuranceCoverageRetrieve_V3,
  ChargeDescriptionsRetrieve,
  PaymentTypesRetrieve,
  RentTaxRatesRetrieve,
  ProrationInformationRetrieve,
  DiscountPlansRetrieve,
  PaymentSettings,
};
