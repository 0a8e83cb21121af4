/**
 * The demo corporation: the spec's operator (seeds/operator.ts) as SiteLink would hold it, with
 * Lumberton and Jacksonville, the same demo inventory as the local seed (seeds/demo-units.ts: same
 * sizes, rates, statuses and unit names), the four insurance tiers, the lock fee (7.00, 6.75 % tax)
 * and Visa / Master Card / Discover. Values the spec does not give are simulator choices
 * (docs/decisions/105-sitelink-simulator.md).
 */
import { demoInventory } from "../seeds/demo-units";
import { insuranceTiers, lockFee, locations } from "../seeds/operator";
import { DEFAULT_READINGS, type ChargeDescription, type LedgerRecord, type PaymentType, type SimState, type SiteRecord, type UnitRecord } from "./state";
import { addDays, addMonths, localParts, parseIsoDate, ticksOf } from "./values";
import { CHARGE_DESC, periodCharges, postCharge } from "./ledger";
import { DEMO_CORP } from "./corp";

// The corporation's credentials live apart (./corp.ts), so a SOAP client can name them without loading
// the demo inventory (and, through it, the app's storage-software port).
export { corpUserName, DEMO_CORP } from "./corp";

/** SiteLink UnitTypeIDs (categories); the same ids at both sites, as they can coincide (study §3.1). */
const UNIT_TYPE_IDS: Record<string, number> = {
  "Climate Controlled": 277,
  Indoor: 278,
  "Drive-Up": 279,
  Parking: 280,
};


export interface DemoSiteSpec {
  name: string;
  slug: string;
  SiteID: number;
  sLocationCode: string;
  unitIdBase: number;
  anniversary: boolean;
  processor: string | null;
  paymentTypes: PaymentType[];
  officeTenant: { first: string; last: string; email: string; webPassword: string };
}

export const DEMO_SITES: DemoSiteSpec[] = [
  {
    name: "Lumberton",
    slug: "lumberton-nc-28358",
    SiteID: 41001,
    sLocationCode: "L001",
    unitIdBase: 1000,
    anniversary: true,
    processor: "PPI PayMover",
    paymentTypes: [
      { PmtTypeID: 1, sPmtTypeDesc: "Cash", sCategory: "Cash" },
      { PmtTypeID: 2, sPmtTypeDesc: "Check", sCategory: "Check" },
      { PmtTypeID: 5, sPmtTypeDesc: "Master Card", sCategory: "Credit Card", brand: "mastercard" },
      { PmtTypeID: 6, sPmtTypeDesc: "Visa", sCategory: "Credit Card", brand: "visa" },
      { PmtTypeID: 8, sPmtTypeDesc: "Discover", sCategory: "Credit Card", brand: "discover" },
    ],
    officeTenant: { first: "Pat", last: "Office", email: "pat.office@example.com", webPassword: "gate1234" },
  },
  {
    name: "Jacksonville",
    slug: "jacksonville-nc-28546",
    SiteID: 41002,
    sLocationCode: "L002",
    unitIdBase: 2000,
    anniversary: false,
    processor: null,
    paymentTypes: [
      { PmtTypeID: 1, sPmtTypeDesc: "Cash", sCategory: "Cash" },
      { PmtTypeID: 2, sPmtTypeDesc: "Check", sCategory: "Check" },
      { PmtTypeID: 5, sPmtTypeDesc: "Visa", sCategory: "Credit Card", brand: "visa" },
      { PmtTypeID: 6, sPmtTypeDesc: "Master Card", sCategory: "Credit Card", brand: "mastercard" },
      { PmtTypeID: 7, sPmtTypeDesc: "Discover", sCategory: "Credit Card", brand: "discover" },
    ],
    officeTenant: { first: "Jordan", last: "Office", email: "jordan.office@example.com", webPassword: "gate5678" },
  },
];

const PREFIX: Record<string, string> = { climate_controlled: "C", indoor: "B", drive_up: "D", parking: "P" };

function chargeDescriptions(): ChargeDescription[] {
  const base = { tax2Rate: 0, prorateAtMoveIn: false, recurring: false, disabled: null, applyAtMoveIn: false };
  return [
    { ...base, ChargeDescID: CHARGE_DESC.rent, sChgDesc: "Rent", sChgCategory: "Rent", price: 0, tax1Rate: 0, prorateAtMoveIn: true, recurring: true },
    { ...base, ChargeDescID: CHARGE_DESC.admin, sChgDesc: "Administrative Fee", sChgCategory: "AdminFee", price: 0, tax1Rate: 0 },
    {
      ...base,
      ChargeDescID: CHARGE_DESC.lock,
      sChgDesc: lockFee.name,
      sChgCategory: "Merchandise",
      price: Math.round(lockFee.amount * 100),
      tax1Rate: lockFee.tax_1_rate,
      tax2Rate: lockFee.tax_2_rate,
      applyAtMoveIn: true,
      recurring: lockFee.is_recurring,
    },
    { ...base, ChargeDescID: CHARGE_DESC.insurance, sChgDesc: "Insurance", sChgCategory: "Insurance", price: 0, tax1Rate: 0, prorateAtMoveIn: true, recurring: true },
    { ...base, ChargeDescID: CHARGE_DESC.deposit, sChgDesc: "Security Deposit", sChgCategory: "SecDep", price: 0, tax1Rate: 0 },
    { ...base, ChargeDescID: CHARGE_DESC.lateFee, sChgDesc: "Late Fee", sChgCategory: "LateFee", price: 2000, tax1Rate: 0 },
  ];
}

/** An empty site with the demo corp's configuration (no units, no tenants). */
export function emptySite(spec: Pick<DemoSiteSpec, "name" | "SiteID" | "sLocationCode" | "unitIdBase" | "anniversary" | "processor" | "paymentTypes">): SiteRecord {
  const loc = locations.find((l) => l.name === spec.name);
  return {
    SiteID: spec.SiteID,
    readings: { ...DEFAULT_READINGS },
    sLocationCode: spec.sLocationCode,
    sSiteName: `Gatehouse Self Storage ${spec.name}`,
    address: {
      addr1: loc?.address.street1 ?? "1 Main St",
      addr2: "",
      city: loc?.address.city ?? spec.name,
      region: loc?.address.stateProvince ?? "NC",
      postal: loc?.address.postal ?? "28000",
      country: "US",
    },
    phone: "9105550134",
    email: "office@gatehousestorage.example",
    timeZone: "America/New_York",
    billing: { anniversary: spec.anniversary, iDayStrtProrating: 1, iDayStrtProratePlusNext: 17, b2ndMonthProrate: false },
    rentTax1Rate: 0,
    rentTax2Rate: 0,
    adminFee: 0,
    adminFeeTax1Rate: 0,
    processor: spec.processor,
    cardConfig: spec.processor !== null,
    billingFrequencies: [3],
    daysPastDueDisableOnlinePayments: 60,
    paymentTypes: spec.paymentTypes.map((p) => ({ ...p })),
    insurance: insuranceTiers.map((t) => ({
      InsurCoverageID: Number(t.sitelinkId),
      coverage: t.coverage,
      premium: t.premium,
      pcTheft: t.percentOfTheftCoverage,
      description: t.description,
      provider: t.provider,
      tax1Rate: 0,
    })),
    chargeDescriptions: chargeDescriptions(),
    concessions: [],
    unitTypes: Object.entries(UNIT_TYPE_IDS).map(([sTypeName, UnitTypeID]) => ({ UnitTypeID, sTypeName })),
    units: [],
    tenants: [],
    ledgers: [],
    charges: [],
    payments: [],
    reservations: [],
    notes: [],
    seq: { unit: spec.unitIdBase, tenant: 5000, ledger: 7000, charge: 20000, receipt: 9000, waiting: 300, note: 100, access: 0 },
  };
}

/** A new unit record (available, updated "now"). */
export function newUnit(site: SiteRecord, init: Omit<UnitRecord, "UnitID" | "updatedTicks" | "updatedAt" | "rented" | "waitingListReserved" | "deleted" | "needsService" | "note" | "excludeFromWebsite" | "rentable"> & Partial<UnitRecord>, ticks: string, at: string): UnitRecord {
  site.seq.unit += 1;
  return {
    rentable: true,
    needsService: false,
    excludeFromWebsite: false,
    deleted: null,
    rented: false,
    waitingListReserved: false,
    note: "",
    ...init,
    UnitID: site.seq.unit,
    updatedTicks: ticks,
    updatedAt: at,
  };
}

/** The gate code SiteLink assigns to a new tenant (deterministic per site). */
export function nextAccessCode(site: SiteRecord): string {
  site.seq.access += 1;
  return String(100000 + ((site.seq.access * 7919 + site.SiteID) % 900000));
}

const SYNTHETIC_FIRST = ["Alex", "Sam", "Chris", "Taylor", "Morgan", "Casey", "Riley", "Jamie", "Drew", "Robin"];
const SYNTHETIC_LAST = ["Smith", "Johnson", "Brown", "Davis", "Miller", "Wilson", "Moore", "Clark", "Lewis", "Walker"];

/** The demo corp with both sites, at `now`. */
export function demoState(now: Date): SimState {
  const ticks = ticksOf(now).toString();
  const state: SimState = {
    corp: { ...DEMO_CORP },
    sites: [],
    globalWaitingNum: 880000,
    lastTicks: ticks,
    clockOffsetMs: 0,
    clockFixed: null,
  };
  for (const spec of DEMO_SITES) {
    const site = emptySite(spec);
    const local = localParts(now, site.timeZone);
    const at = `${local.date}T${local.time}`;
    const counters = new Map<string, number>();
    const inventory = demoInventory(spec.slug);
    let synthetic = 0;
    inventory.forEach(({ entry, standardRate, webRate, statuses }) => {
      const category = entry.category;
      const prefix = PREFIX[category] ?? "U";
      for (const status of statuses) {
        const key = `${prefix}${entry.floor}`;
        const n = (counters.get(key) ?? 0) + 1;
        counters.set(key, n);
        const name = category === "parking" ? `${prefix}${String(n).padStart(2, "0")}` : `${prefix}${entry.floor * 100 + n}`;
        const unit = newUnit(
          site,
          {
            UnitTypeID: UNIT_TYPE_IDS[entry.name] ?? 277,
            sUnitName: name,
            width: entry.width,
            length: entry.length,
            floor: entry.floor,
            climate: category === "climate_controlled",
            inside: category === "climate_controlled" || category === "indoor",
            power: false,
            alarm: false,
            stdRate: standardRate,
            webRate,
            pushRate: standardRate,
            secDep: 0,
          },
          ticks,
          at,
        );
        site.units.push(unit);
        if (status === "unavailable") unit.rentable = false;
        if (status === "rented" || status === "reserved") {
          const first = synthetic === 0 && status === "rented" ? spec.officeTenant.first : SYNTHETIC_FIRST[synthetic % 10]!;
          const last = synthetic === 0 && status === "rented" ? spec.officeTenant.last : SYNTHETIC_LAST[Math.floor(synthetic / 10) % 10]!;
          const email =
            synthetic === 0 && status === "rented" ? spec.officeTenant.email : `${first}.${last}${synthetic}@example.com`.toLowerCase();
          const tenant = addSyntheticTenant(site, { first, last, email, at, webPassword: synthetic === 0 && status === "rented" ? spec.officeTenant.webPassword : "" });
          synthetic += 1;
          if (status === "rented") {
            const movedIn = addMonths(local.date, -(2 + (synthetic % 7)));
            let k = 1;
            while (addDays(addMonths(movedIn, k), -1) < local.date) k += 1;
            const chargedThru = addDays(addMonths(movedIn, k), -1);
            addOfficeLedger(site, { TenantID: tenant.TenantID, UnitID: unit.UnitID, movedIn, paidThru: chargedThru, chargedThru, rent: standardRate, accessCode: tenant.accessCode });
            unit.rented = true;
          } else {
            addOfficeReservation(site, state, { TenantID: tenant.TenantID, UnitID: unit.UnitID, dNeeded: `${addDays(local.date, 3)}T00:00:00`, dExpires: `${addDays(local.date, 365)}T00:00:00`, quotedRate: standardRate, at });
            unit.waitingListReserved = true;
          }
        }
      }
    });
    state.sites.push(site);
  }
  return state;
}

export function addSyntheticTenant(
  site: SiteRecord,
  t: { first: string; last: string; email: string; at: string; webPassword: string },
) {
  site.seq.tenant += 1;
  const tenant = {
    TenantID: site.seq.tenant,
    fields: {
      sFName: t.first,
      sLName: t.last,
      sEmail: t.email,
      sPhone: "9105550100",
      sMobile: "9105550100",
      sAddr1: "100 Market St",
      sCity: site.address.city,
      sRegion: "NC",
      sPostalCode: site.address.postal,
      sCountry: "US",
      bCommercial: false,
      bCompanyIsTenant: false,
    },
    accessCode: nextAccessCode(site),
    webPassword: t.webPassword,
    military: false,
    created: t.at,
    updated: t.at,
  };
  site.tenants.push(tenant);
  return tenant;
}

/**
 * A lease rented at the office (SiteLink's ledger row), numbered from the site's sequence, with the
 * history SiteLink keeps of it: each month's charges from the move-in through `chargedThru`, each paid
 * at the office on its first day (the ledger is paid through `paidThru`, so the portal shows the
 * charges and payments that got it there; an office lease with a paid-through date and no charges
 * or payments is not something SiteLink answers, decision 202).
 */
export function addOfficeLedger(
  site: SiteRecord,
  l: { TenantID: number; UnitID: number; movedIn: string; paidThru: string; chargedThru: string; rent: number; accessCode: string },
): LedgerRecord {
  site.seq.ledger += 1;
  const ledger: LedgerRecord = {
    LedgerID: site.seq.ledger,
    TenantID: l.TenantID,
    UnitID: l.UnitID,
    iLeaseNum: 1,
    movedIn: l.movedIn,
    anniversaryDay: parseIsoDate(l.movedIn).d,
    paidThru: l.paidThru,
    chargedThru: l.chargedThru,
    schedOut: null,
    rent: l.rent,
    insurCoverageId: null,
    insurPremium: 0,
    accessCode: l.accessCode,
    autobill: null,
    lastAutopayDecline: null,
    credit: 0,
    active: true,
  };
  site.ledgers.push(ledger);
  for (let k = 1; ; k++) {
    const start = addMonths(l.movedIn, k - 1);
    const end = addDays(addMonths(l.movedIn, k), -1);
    if (end > l.chargedThru) break;
    const paid = end <= l.paidThru;
    let total = 0;
    for (const c of periodCharges(site, ledger)) {
      const charge = postCharge(site, ledger, c, start, end, k === 1);
      if (paid) charge.paid = c.amount + c.tax1 + c.tax2;
      total += c.amount + c.tax1 + c.tax2;
    }
    if (!paid || total === 0) continue;
    site.seq.receipt += 1;
    site.payments.push({
      Receipt: site.seq.receipt,
      LedgerID: ledger.LedgerID,
      TenantID: l.TenantID,
      at: `${start}T09:00:00`,
      amount: total,
      description: "Payment: Cash",
      payMethod: 2,
      cardTypeId: null,
      last4: null,
      checkNumber: null,
      testMode: false,
      source: 0,
    });
  }
  return ledger;
}

/** A reservation taken at the office (a waiting-list row), numbered from the site's and the corp's sequences. */
export function addOfficeReservation(
  site: SiteRecord,
  state: Pick<SimState, "globalWaitingNum">,
  r: { TenantID: number; UnitID: number; dNeeded: string; dExpires: string; quotedRate: number; at: string },
): void {
  site.seq.waiting += 1;
  state.globalWaitingNum += 1;
  site.reservations.push({
    WaitingID: site.seq.waiting,
    iGlobalWaitingNum: state.globalWaitingNum,
    TenantID: r.TenantID,
    UnitID: r.UnitID,
    dNeeded: r.dNeeded,
    dExpires: r.dExpires,
    dFollowup: null,
    dFollowupLast: null,
    bFollowup: false,
    iWaitingStatus: 0,
    dConverted: null,
    quotedRate: r.quotedRate,
    ConcessionID: -999,
    QTRentalTypeID: 2,
    QTCancellationTypeID: 0,
    sCancellationReason: "",
    iInquiryType: 1,
    sComment: "Reserved at the office",
    iSource: 0,
    sSource: "Office",
    sTrackingCode: "",
    created: r.at,
    updated: r.at,
  });
}
