/**
 * The simulator's state: one corporation with its sites, each with its own ids (TenantID, LedgerID,
 * UnitID... are site-scoped in SiteLink, study §2). Plain JSON-able objects so a snapshot can be
 * written to and read from a file. Money in integer cents, dates as the site's wall clock.
 */
import type { CardBrand } from "./values";

export interface Corp {
  corpCode: string;
  userName: string;
  apiKey: string;
  password: string;
}

export interface BillingRules {
  /** true: anniversary billing (full first month from the move-in date, no proration). */
  anniversary: boolean;
  /** First-of-month billing: the day from which the first month is prorated (1 = a move-in on the 1st pays a full month). */
  iDayStrtProrating: number;
  /** First-of-month billing: a move-in on or after this day also pays the whole next month. */
  iDayStrtProratePlusNext: number;
  b2ndMonthProrate: boolean;
}

export interface PaymentType {
  PmtTypeID: number;
  sPmtTypeDesc: string;
  sCategory: "Cash" | "Check" | "Credit Card" | "ACH";
  brand?: CardBrand;
}

export interface InsuranceCoverage {
  InsurCoverageID: number;
  coverage: number;
  premium: number;
  pcTheft: string;
  description: string;
  provider: string;
  /** Tax on the premium, percent. */
  tax1Rate: number;
}

export interface ChargeDescription {
  ChargeDescID: number;
  sChgDesc: string;
  sChgCategory: string;
  price: number;
  tax1Rate: number;
  tax2Rate: number;
  /** Posted (and required) at every move-in (a lock, an admin fee). */
  applyAtMoveIn: boolean;
  prorateAtMoveIn: boolean;
  recurring: boolean;
  disabled: string | null;
}

/** A SiteLink "unit type" is a category (Drive-Up, Climate Controlled...): sizes live on the units. */
export interface UnitTypeRecord {
  UnitTypeID: number;
  sTypeName: string;
}

export interface UnitRecord {
  UnitID: number;
  UnitTypeID: number;
  sUnitName: string;
  width: number;
  length: number;
  floor: number;
  climate: boolean;
  inside: boolean;
  power: boolean;
  alarm: boolean;
  stdRate: number;
  webRate: number;
  pushRate: number;
  /** Security deposit, cents. */
  secDep: number;
  rentable: boolean;
  needsService: boolean;
  excludeFromWebsite: boolean;
  deleted: string | null;
  rented: boolean;
  waitingListReserved: boolean;
  note: string;
  /** .NET ticks (as a decimal string) of the last change, for lngLastTimePolled. */
  updatedTicks: string;
  updatedAt: string;
}

export interface TenantRecord {
  TenantID: number;
  fields: Record<string, string | boolean | null>;
  accessCode: string;
  webPassword: string;
  military: boolean;
  created: string;
  updated: string;
}

export interface AutoBill {
  iAutoBillType: number;
  iCreditCardTypeID: number;
  sCreditCardNum: string;
  dCreditCardExpir: string | null;
  sCreditCardHolderName: string;
  sCreditCardStreet: string;
  sCreditCardZip: string;
  iDaysAfterDue: number;
}

export interface LedgerRecord {
  LedgerID: number;
  TenantID: number;
  UnitID: number;
  iLeaseNum: number;
  movedIn: string;
  /** Day of the month rent is due (anniversary) or 1. */
  anniversaryDay: number;
  /** Last day paid for (date). */
  paidThru: string;
  /** Last day rent has been charged for (the billing run posts the next period after it). */
  chargedThru: string;
  schedOut: string | null;
  rent: number;
  insurCoverageId: number | null;
  insurPremium: number;
  accessCode: string;
  autobill: AutoBill | null;
  lastAutopayDecline: string | null;
  /** Money paid beyond every posted charge, cents. */
  credit: number;
  active: boolean;
  /** The discount plan the move-in named, as it was then: the billing run discounts its later months. */
  concession?: ConcessionPlan | null;
}

export interface ChargeRecord {
  ChargeID: number;
  LedgerID: number;
  ChargeDescID: number;
  sChgDesc: string;
  sChgCategory: string;
  amount: number;
  tax1: number;
  tax2: number;
  start: string;
  end: string;
  paid: number;
  moveIn: boolean;
  /** The discount a concession took off this charge (`amount` is net of it) and the plan's ConcessionID. */
  discount?: number;
  ConcessionID?: number;
}

/**
 * One of the site's discount plans (ConcessionPlans; issue 40, decisions 604 and 672), with the columns
 * the outside sources read. Only ConcessionID, sPlanName and pcDiscount are required; the rest default
 * to a plan of one month from the month moved in.
 */
export interface ConcessionPlan {
  ConcessionID: number;
  sPlanName: string;
  /** dcPCDiscount: percent off (100 = free). */
  pcDiscount: number;
  /** dcFixedDiscount: cents off. */
  fixedDiscount?: number;
  /** iAmtType: 0 an amount off, 1 a percentage off, 2 a fixed rent (dcChgAmt). Default: 1 when pcDiscount > 0, else 0. */
  amtType?: 0 | 1 | 2;
  /** dcChgAmt: the rent, cents, of a fixed-rent plan. */
  chgAmt?: number;
  /** dcMaxAmountOff: the most a month's discount may be, cents (0 none). */
  maxAmountOff?: number;
  /** iInMonth: the month of the rental the discount starts in (default 1, the month moved in). */
  inMonth?: number;
  /** iExpirMonths: for how many months (default 1). */
  expirMonths?: number;
  /** bNeverExpires (read as `readings.neverExpires` says). */
  neverExpires?: boolean;
  /** bPrepay and iPrePaidMonths. */
  prepay?: boolean;
  prePaidMonths?: number;
  /** bRound and dcRoundTo (cents): the discount rounded to a multiple of it (MC). */
  round?: boolean;
  roundTo?: number;
  /** dDisabled set: DiscountPlansRetrieve no longer lists it, and a move-in naming it is refused. */
  disabled?: boolean;
  /** dPlanStrt / dPlanEnd ("YYYY-MM-DD"): the offer's dates in SiteLink. */
  planStart?: string;
  planEnd?: string;
}

export interface PaymentRecord {
  Receipt: number;
  LedgerID: number;
  TenantID: number;
  at: string;
  amount: number;
  description: string;
  payMethod: number;
  cardTypeId: number | null;
  last4: string | null;
  checkNumber: string | null;
  testMode: boolean;
  source: number;
}

export interface ReservationRecord {
  WaitingID: number;
  iGlobalWaitingNum: number;
  TenantID: number;
  UnitID: number;
  dNeeded: string;
  dExpires: string;
  dFollowup: string | null;
  dFollowupLast: string | null;
  bFollowup: boolean;
  /** 0 open, 1 converted to a move-in, 2 cancelled (decision 106). */
  iWaitingStatus: number;
  dConverted: string | null;
  quotedRate: number;
  ConcessionID: number;
  QTRentalTypeID: number;
  QTCancellationTypeID: number;
  sCancellationReason: string;
  iInquiryType: number;
  sComment: string;
  iSource: number;
  sSource: string;
  sTrackingCode: string;
  created: string;
  updated: string;
}

export interface NoteRecord {
  NoteID: number;
  LedgerID: number;
  TenantID: number;
  sNote: string;
  iNoteType: number;
  at: string;
}

/**
 * How a site answers where the outside sources disagree (issue 20, decision 180). Per site, so that
 * the adapter is tested against every reading; set with the control API (`configureSite(code,
 * { readings: {...} })`, `PATCH /__sim/sites/:code {"readings": {...}}`) or a seed fixture.
 */
export interface SiteReadings {
  /**
   * MoveInWithDiscount_v7's iPayMethod. "lsetup" (default; LK's notes from SiteLink's test site):
   * 0 none (refused with -2), 1 card, 2 cash, 3 check, 4 ACH. "manual" (MC's transcription of the
   * API manual): 0 card, 1 check, 2 cash, 3 debit card, 4 ACH.
   */
  payMethod: "lsetup" | "manual";
  /**
   * The success code of the writes no source shows an answer of (ScheduleMoveOut, TenantUpdate_v3,
   * PaymentSimpleWithSource, PaymentSimpleCheckWithSource). "id" (default): a positive id (the
   * LedgerID, TenantID, Receipt); "zero": Ret_Code 0 on success.
   */
  successCode: "id" | "zero";
  /**
   * What MoveInWithDiscount_v7 does with bTestMode true (no source says, issue 37). "records" (default):
   * like any move-in (a ledger, the payment, the unit rented; the adapter's tests rent in test mode).
   * "nothing": every check as usual, then a LedgerID answered and nothing written.
   */
  testMode?: "records" | "nothing";
  /**
   * Where DiscountPlansRetrieve answers the site's plans (issue 40). "table" (default; LK's production
   * pipeline, ST and S3 §7.18): a `ConcessionPlans` table. "empty": no plan rows, as LK's discovery
   * report saw on LSETUP although plans existed (evidence §3): the adapter then offers no plan.
   */
  discountPlans?: "table" | "empty";
  /**
   * Which of a move-in's rent lines a plan discounts (decision 672). "first" (default; LK's LSETUP
   * test of 2026-04-17: "SiteLink doesn't apply move-in discounts to the 2nd month line — only to the
   * first month"): the first rent line only, when the plan covers month 1. "each" (ST's SiteLinkService
   * charges the plan's months at move-in with the discount on each): every rent line whose month the
   * plan covers. Months billed later are discounted under both when the plan covers them.
   */
  planMonths?: "first" | "each";
  /**
   * A plan with both a percentage and an amount. "amtType" (default; ST and MC): iAmtType decides.
   * "percentFirst" (LK's candidates pipeline: "percentage discount wins over fixed if both are set
   * (matches the SOAP calculator's behaviour)").
   */
  planType?: "amtType" | "percentFirst";
  /**
   * bNeverExpires. "recurring" (default; LK's ECRI view: a concession expires iExpirMonths after it
   * started only when bNeverExpires is false): the discount never ends. "offer" (LK's candidates
   * pipeline: it only lifts dPlanEnd): the offer has no end date; the discount lasts iExpirMonths.
   */
  neverExpires?: "recurring" | "offer";
  /** iInMonth 0. "every" (default; MC's transformer: a permanent discount): every month. "first" (MC's route, `|| 1`): month 1. */
  inMonthZero?: "every" | "first";
}

export const DEFAULT_READINGS: SiteReadings = {
  payMethod: "lsetup",
  successCode: "id",
  testMode: "records",
  discountPlans: "table",
  planMonths: "first",
  planType: "amtType",
  neverExpires: "recurring",
  inMonthZero: "every",
};

/** A site's readings (a snapshot from before readings existed has none: the defaults). */
export function readingsOf(site: { readings?: Partial<SiteReadings> }): SiteReadings {
  return { ...DEFAULT_READINGS, ...(site.readings ?? {}) };
}

export interface SiteRecord {
  SiteID: number;
  readings: SiteReadings;
  sLocationCode: string;
  sSiteName: string;
  address: { addr1: string; addr2: string; city: string; region: string; postal: string; country: string };
  phone: string;
  email: string;
  timeZone: string;
  billing: BillingRules;
  rentTax1Rate: number;
  rentTax2Rate: number;
  /** Admin fee charged at move-in, cents (0 = none) and its tax. */
  adminFee: number;
  adminFeeTax1Rate: number;
  /** SiteLink's own card processor ("PPI PayMover", "Authorize.Net") or null (-20 on card payments). */
  processor: string | null;
  /** Card configuration present (-21 otherwise). */
  cardConfig: boolean;
  /** iBillingFrequency values MoveIn accepts (-28 otherwise). */
  billingFrequencies: number[];
  /** Online payments refused this many days past due (PaymentSettings). */
  daysPastDueDisableOnlinePayments: number;
  paymentTypes: PaymentType[];
  insurance: InsuranceCoverage[];
  chargeDescriptions: ChargeDescription[];
  /** The site's discount plans (./concessions.ts applies them at move-in and in the billing run). */
  concessions: ConcessionPlan[];
  unitTypes: UnitTypeRecord[];
  units: UnitRecord[];
  tenants: TenantRecord[];
  ledgers: LedgerRecord[];
  charges: ChargeRecord[];
  payments: PaymentRecord[];
  reservations: ReservationRecord[];
  notes: NoteRecord[];
  seq: { unit: number; tenant: number; ledger: number; charge: number; receipt: number; waiting: number; note: number; access: number };
}

export interface SimState {
  corp: Corp;
  sites: SiteRecord[];
  /** Corp-wide reservation number (iGlobalWaitingNum). */
  globalWaitingNum: number;
  /** Last .NET tick handed out (decimal string): every change and every poll gets a later one. */
  lastTicks: string;
  /** Milliseconds added to the base clock by advanceClock. */
  clockOffsetMs: number;
  /** Fixed "now" set by the control API (ISO), or null to follow the base clock. */
  clockFixed: string | null;
}
