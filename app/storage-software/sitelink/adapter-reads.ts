/**
 * What the adapter reads of each SiteLink answer, per operation: the tables and the columns its code
 * takes values from (`rows(answer, "Ledgers")`, `row.dPaidThru` ...). Written once here, with where
 * in the adapter each is read, so that `npm run sitelink:verify` checks an operator's own account
 * against exactly what the adapter relies on (issue 20), and a guard test (adapter-reads.test.ts) fails
 * when a column listed here is no longer read anywhere in the adapter or the simulator stops answering
 * it. `optional`: read with a fallback (no outside source shows the column; evidence §3): missing is a
 * warning, not a failure.
 *
 * Operations the adapter only writes with are listed with their answer table only (RT); sitelink:verify
 * never sends them, except MoveInWithDiscount_v7 with `bTestMode` when asked to. How each write's
 * Ret_Code is read (what success looks like) is not here: ./answers.ts is its one home.
 */
import { ANSWER_RULES } from "./answers";
import { columnsSentBackAsRead } from "./tenant-contact";

interface TableReads {
  /** Columns the adapter reads and cannot do without. */
  columns: string[];
  /** Columns read with a fallback. */
  optional?: string[];
  /** The answer must have at least one row of this table (for the settings to be usable). */
  needsRows?: boolean;
  /**
   * Columns a read-modify-write sends back as read (TenantUpdate_v3 overwrites every field it is sent):
   * one the answer lacks would go back blank, so no contact change is sent while it is missing (issue
   * 37): missing differs.
   */
  keptAsRead?: string[];
}

interface OperationReads {
  kind: "read" | "write";
  /** Where the adapter reads it (file: what for). */
  usedBy: string;
  tables: Record<string, TableReads>;
}

const RT: Record<string, TableReads> = { RT: { columns: ["Ret_Code"], optional: ["Ret_Msg"] } };

/** Unit rows (UnitsInformation_v3, UnitsInformationByUnitID): sync.ts, holds.ts, move-in.ts. */
const UNIT_COLUMNS = ["UnitID", "UnitTypeID", "sUnitName", "dcWidth", "dcLength", "bClimate", "bInside", "iFloor", "bRented", "bRentable", "bExcludeFromWebsite", "dcStdRate", "dcWebRate"];

export const ADAPTER_READS: Record<string, OperationReads> = {
  SiteInformation: {
    kind: "read",
    usedBy: "inventory.ts: the settings work (a site row); site-tax.ts: the rent tax rates of the monthly figure",
    tables: { Table: { columns: [], optional: ["dcTax1Rate_Rent", "dcTax2Rate_Rent"], needsRows: true } },
  },
  UnitTypePriceList_v2: {
    kind: "read",
    usedBy: "sync.ts: unit types and rates",
    tables: { Table: { columns: ["UnitTypeID", "sTypeName", "dcWidth", "dcLength", "bClimate", "bInside", "iFloor", "dcStdRate", "dcWebRate"] } },
  },
  UnitsInformation_v3: {
    kind: "read",
    usedBy: "sync.ts: units, their state, the poll marker",
    tables: {
      Table: { columns: UNIT_COLUMNS, optional: ["bWaitingListReserved", "dDeleted", "sTypeName"], needsRows: true },
      Table1: { columns: ["lngLastTimePolled"] },
    },
  },
  UnitsInformationByUnitID: {
    kind: "read",
    usedBy: "holds.ts, move-in.ts: a unit re-checked before it is held or rented, and after a -2 at move-in",
    tables: { Table: { columns: ["UnitID", "bRented", "bRentable"], optional: ["bWaitingListReserved", "dDeleted", "bExcludeFromWebsite"], needsRows: true } },
  },
  InsuranceCoverageRetrieve_V2: {
    kind: "read",
    usedBy: "inventory.ts, rentals.ts, tenants.ts: protection plans",
    tables: { Table: { columns: ["InsurCoverageID", "dcCoverage", "dcPremium"], optional: ["sCoverageDesc", "sProvidor", "dcPCTheft"] } },
  },
  DiscountPlansRetrieve: {
    kind: "read",
    usedBy: "discount-plans.ts (inventory.ts, rentals.ts, scheduler.ts): the site's discount plans a promotion names, and what each gives (issue 40, decision 672)",
    tables: {
      ConcessionPlans: {
        columns: ["ConcessionID"],
        // A column left out makes a plan "not offered" (what it gives is then uncertain), never an error.
        optional: [
          "sPlanName",
          "iAmtType",
          "dcPCDiscount",
          "dcFixedDiscount",
          "dcMaxAmountOff",
          "iInMonth",
          "iExpirMonths",
          "bNeverExpires",
          "bPrepay",
          "iPrePaidMonths",
          "bRound",
          "dcRoundTo",
          "dPlanStrt",
          "dPlanEnd",
          "dDisabled",
          "dDeleted",
          "dArchived",
        ],
      },
    },
  },
  ChargeDescriptionsRetrieve: {
    kind: "read",
    usedBy: "inventory.ts: extra charges (price, taxes)",
    tables: { Table: { columns: ["ChargeDescID", "sChgDesc", "dcPrice", "dcTax1Rate", "dcTax2Rate"], optional: ["bRecurring", "dDisabled"] } },
  },
  PaymentTypesRetrieve: {
    kind: "read",
    usedBy: "sitelink:configure --card-type: the site's card type ids",
    tables: { Table: { columns: ["PmtTypeID", "sPmtTypeDesc"], optional: ["sCategory"] } },
  },
  MoveInCostRetrieveWithDiscount_v4: {
    kind: "read",
    usedBy: "quote.ts, move-in.ts: the quote to the cent",
    tables: { Table: { columns: ["ChargeDescription", "ChargeAmount", "dcTotal", "bMoveInRequired", "StartDate", "EndDate"], optional: ["dcDiscount"], needsRows: true } },
  },
  TenantSearchDetailed: { kind: "read", usedBy: "move-in.ts: is the e-mail free", tables: { Table: { columns: ["TenantID", "sEmail"], optional: ["sTenNote", "sAccessCode"] } } },
  TenantInfoByTenantID: {
    kind: "read",
    usedBy: "tenant-contact.ts, office-tenants.ts, move-in.ts: the record (read-modify-write), the gate code",
    tables: {
      Table: {
        columns: ["TenantID", "sFName", "sLName", "sEmail", "sAddr1", "sCity", "sRegion", "sPostalCode", "sAccessCode"],
        optional: ["sAddr2", "sPhone", "sMobile", "sTenNote", "bMilitary"],
        // tenant-contact.ts: every TenantUpdate_v3 parameter, the v3 extras included (sTaxID, bSMSOptIn, sCountryCode).
        keptAsRead: columnsSentBackAsRead(),
      },
    },
  },
  LedgersByTenantID_v3: {
    kind: "read",
    usedBy: "move-in.ts, tenants.ts, autopay.ts, office-tenants.ts: leases, paid-through, balance",
    tables: { Ledgers: { columns: ["LedgerID", "UnitID", "dPaidThru", "sAccessCode", "dcRent"], optional: ["iLeaseNum", "dcTotalDue", "dcChargeBalance", "sUnitName", "dMovedIn", "dSchedOut", "dcInsurPremium", "InsurCoverageID"] } },
  },
  ChargesAllByLedgerID: {
    kind: "read",
    usedBy: "ledger.ts: the portal ledger's charges",
    tables: { Table: { columns: ["ChargeID", "dChgStrt", "sChgDesc", "dcAmt"], optional: ["sChgCategory", "dcTax1", "dcTax2", "dcPrice"] } },
  },
  PaymentsByLedgerID: {
    kind: "read",
    usedBy: "ledger.ts, tenants.ts, autopay.ts, move-in.ts: receipts (and finding a payment after no answer)",
    tables: { PmtHistory: { columns: ["Receipt", "dPmt", "Payment"], optional: ["Description"] } },
  },
  CustomerAccountsBalanceDetailsWithPrepayment: {
    kind: "read",
    usedBy: "tenants.ts: the balance to pay",
    tables: { Table1: { columns: ["LedgerID", "dcBalance"], optional: ["sItem", "UnitID"] } },
  },
  TenantBillingInfoByTenantID_v3: {
    kind: "read",
    usedBy: "tenants.ts: the autopay card SiteLink keeps",
    tables: { Table: { columns: ["LedgerID", "iAutoBillType"], optional: ["iCreditCardTypeID", "sCreditCardNum", "dCreditCardExpir"] } },
  },
  ReservationList_v3: {
    kind: "read",
    usedBy: "reservations.ts: a reservation read back before it is cancelled",
    tables: { Table: { columns: ["WaitingID", "TenantID", "UnitID", "iWaitingStatus", "dNeeded", "dExpires"], optional: ["QTCancellationTypeID", "QTRentalTypeID", "iInquiryType", "dcRate_Quoted", "ConcessionID", "sComment", "dFollowup", "dFollowupLast"] } },
  },
  // One RT row per tenant record (Ret_Code = TenantID), no Table: answers.ts tenantIdFromLogin picks the one with an active ledger.
  TenantLogin: { kind: "read", usedBy: "office-tenants.ts, answers.ts: an office tenant claims a web account", tables: { RT: { columns: ["Ret_Code", "bHasActiveLedger"] } } },
  // Ret_Code 1, the id in RT.TenantID (answers.ts), the gate code beside it.
  TenantNewDetailed_v3: {
    kind: "write",
    usedBy: "move-in.ts, reservations.ts: the SiteLink tenant",
    tables: { RT: { columns: ["Ret_Code", ANSWER_RULES.TenantNewDetailed_v3.column], optional: ["AccessCode"] } },
  },
  MoveInWithDiscount_v7: { kind: "write", usedBy: "move-in.ts: the move-in", tables: { RT: { columns: ["Ret_Code"], optional: ["iLeaseNum"] } } },
  ReservationNewWithSource_v5: { kind: "write", usedBy: "reservations.ts", tables: RT },
  ReservationUpdate_v4: { kind: "write", usedBy: "reservations.ts: cancel", tables: RT },
  TenantUpdate_v3: { kind: "write", usedBy: "tenant-contact.ts", tables: RT },
  TenantUpdateMilitary: { kind: "write", usedBy: "move-in.ts, tenant-contact.ts", tables: RT },
  TenantNoteInsert_v2: { kind: "write", usedBy: "move-in.ts: the signed lease's note", tables: RT },
  TenantBillingInfoUpdate_v2: { kind: "write", usedBy: "tenants.ts, move-in.ts: autopay card (option A)", tables: RT },
  PaymentSimpleWithSource: { kind: "write", usedBy: "tenants.ts: a portal payment (option A)", tables: RT },
  PaymentSimpleCheckWithSource: { kind: "write", usedBy: "tenants.ts, autopay.ts: a payment our gateway took (option B)", tables: RT },
  ScheduleMoveOut: { kind: "write", usedBy: "tenants.ts: a move-out notice", tables: RT },
};
