/** Tenants part of the StorageSoftware port (issue 5): sign-in, ledgers, payments, autopay, move-out. See ./port.ts. */
import type { CardBrand } from "~/domain/payments/cards";
import type { CardDetails, PaymentMethodInput } from "~/domain/payments/method";
import type { Transaction } from "~/db/client.server";
import type { TenantContact } from "~/domain/shared/tenant-form";
import type { Tenant } from "./port-rentals";

// ---------------------------------------------------------------- tenants and billing (issue 5)

export interface Payment {
  id: string;
  amount: number;
  /** "refunded": approved, then refunded in full from the back office (decision 280). */
  status: "approved" | "declined" | "refunded";
  cardBrand: string;
  cardLast4: string;
  authReference: string | null;
  declineReason: string | null;
  createdAt: Date;
}

export type { CardDetails, PaymentMethodInput };

export interface SavedCard {
  id: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** One of the tenant's units at this location, as the dashboard shows it. */
export interface TenantLease {
  leaseId: string;
  locationId: number;
  unitName: string;
  unitTypeName: string;
  width: number;
  length: number;
  status: "active" | "moved_out";
  moveInDate: string;
  /** Cents a month. */
  monthlyRate: number;
  insurancePremium: number;
  /** Coverage in cents, when a protection plan is on the lease. */
  insuranceCoverage: number | null;
  paidThroughDate: string;
  nextDueDate: string;
  /** Cents owed now (negative: a credit). */
  balance: number;
  gateCode: string;
  /**
   * `enabled` only when autopay will really charge a card: `card` is then that card (the software's
   * own card on file where it runs autopay). `notSetUp`: the tenant chose autopay when renting online
   * and it is not on (the portal says so and links to set it up).
   */
  autopay: { enabled: boolean; card: SavedCard | null; notSetUp?: boolean };
  moveOutDate: string | null;
  /** The last autopay attempt, when it was declined and nothing was paid since. */
  autopayDecline: { date: Date; amount: number; reason: string } | null;
}

export interface LedgerEntry {
  id: string;
  kind: "charge" | "payment" | "credit";
  description: string;
  amount: number;
  tax: number;
  entryDate: string;
  /** Balance after this line, cents. */
  runningBalance: number;
  /** The payment behind a payment line: its receipt. */
  paymentId: string | null;
}

/**
 * How a tenant pays: a card given now (our own card fields or a processor's token, the gateway's
 * `PaymentMethodInput`; optionally kept for later) or a saved card.
 */
export type PaymentMethod = (PaymentMethodInput & { saveCard: boolean }) | { kind: "saved"; savedCardId: string };

export interface PrepayLine {
  description: string;
  amount: number;
  tax: number;
}

export interface PrepayOffer {
  months: number;
  /** Balance due now, included in the total (negative: a credit). */
  balance: number;
  lines: PrepayLine[];
  total: number;
  newPaidThroughDate: string;
}

export interface Receipt {
  payment: Payment;
  leaseId: string;
  unitName: string;
  description: string;
  entryDate: string;
  source: "move_in" | "portal" | "prepay" | "autopay" | "pay_link";
  /** The lease now. */
  balance: number;
  paidThroughDate: string;
}

/** What a refund changed, for the caller's audit row (written in the refund's transaction). */
export interface RefundChange {
  paymentId: number;
  leaseId: number;
  amount: number;
  /** The reversing ledger line. */
  ledgerEntryId: number;
  entryDate: string;
  balanceBefore: number;
  balanceAfter: number;
  /** Refunded before this refund, and in all after it (= the payment's amount when refunded in full). */
  refundedBefore: number;
  refundedAfter: number;
  /** The rental was cancelled with it: the lease ended, the unit freed, `writtenOff` cents credited. */
  cancelled: boolean;
  writtenOff: number;
}

export type RefundOutcome =
  | { kind: "refunded"; change: RefundChange }
  /** Refunded (in part) since the desk looked (`refundedBefore` differs): nothing was refunded now. */
  | { kind: "changed"; refundedNow: number }
  /** Refunded before (a double submit): nothing was refunded or written again. */
  | { kind: "already_refunded" }
  /** Nothing was refunded; `message` says why, in the office's words. */
  | { kind: "refused"; message: string };

/** A contact change: the contact details of the account form (spec §3), mapped once in the domain. */
export type ContactUpdate = TenantContact;

/**
 * Everything a signed-in tenant may do. Every call names the tenant and the adapter checks that the
 * lease, payment or card is theirs (null / StorageValidationError otherwise), so a guessed id never
 * reaches another tenant's data. Payments throw PaymentDeclinedError when declined (nothing charged).
 */
/** The answer to "I rented at the office: let me create my portal sign-in" (issue 11, decision 141). */
export type OfficeClaimResult =
  | { kind: "claimed"; tenantId: string }
  /** No office record here with that email and that web password (the same answer for either). */
  | { kind: "no_match" }
  /** Proven, but a portal sign-in with this email exists already. */
  | { kind: "has_account" }
  /** This location's software keeps no office tenant records. */
  | { kind: "not_supported" };

export interface Tenants {
  /**
   * A tenant who rented at the office proves who they are with the email and web password of the
   * software's tenant record; then our tenant (with `passwordHash`, bcrypt of the new password) is
   * created and linked, with the office leases.
   */
  claimOfficeTenant(input: { email: string; webPassword: string; passwordHash: string; now: Date }): Promise<OfficeClaimResult>;
  /** The tenant whose email and web password these are, or null (same answer whether or not the email exists). */
  authenticateTenant(input: { email: string; password: string }): Promise<{ tenantId: string } | null>;
  findTenantByEmail(email: string): Promise<Tenant | null>;
  getTenant(tenantId: string): Promise<Tenant | null>;
  verifyTenantPassword(tenantId: string, password: string): Promise<boolean>;
  setTenantPassword(tenantId: string, password: string): Promise<void>;
  /** Throws StorageValidationError({ email }) when the email belongs to another tenant. */
  updateTenantContact(tenantId: string, input: ContactUpdate): Promise<void>;
  /** Ten digits. */
  updateTenantPhone(tenantId: string, cellPhone: string): Promise<void>;
  /**
   * The tenant's texting opt-in changed after the move-in (the portal, STOP/START; issue 40, decision
   * 614): the software's own record is told (SiteLink's `bSMSOptIn`). "sent": the software shows it now;
   * "not_kept": this software keeps no such field (ours: the consent log is the record), or the tenant
   * is not linked here. Throws SoftwareUnreachableError when the software did not confirm it (the write
   * is journalled and read back, never sent again blindly) or StorageSoftwareError when it refused.
   */
  setTenantTextOptIn(tenantId: string, optedIn: boolean): Promise<"sent" | "not_kept">;

  /** The tenant's leases at this location (active first). */
  listTenantLeases(tenantId: string): Promise<TenantLease[]>;
  getTenantLease(tenantId: string, leaseId: string): Promise<TenantLease | null>;
  getLedger(tenantId: string, leaseId: string): Promise<LedgerEntry[] | null>;
  listSavedCards(tenantId: string): Promise<SavedCard[]>;

  /** Pays `amount` on the lease. Idempotent on `idempotencyKey`: a repeat returns the first result. */
  makePayment(input: { tenantId: string; leaseId: string; amount: number; method: PaymentMethod; idempotencyKey: string; now: Date }): Promise<Payment>;
  quotePrepay(tenantId: string, leaseId: string, months: number): Promise<PrepayOffer | null>;
  /** Posts the next `months` months and pays them with the balance; refuses when the total is not `expectedTotal`. */
  prepay(input: { tenantId: string; leaseId: string; months: number; expectedTotal: number; method: PaymentMethod; idempotencyKey: string; now: Date }): Promise<Payment>;
  getReceipt(tenantId: string, paymentId: string): Promise<Receipt | null>;
  /**
   * Refunds an approved card payment of the tenant's in full (the back office, decision 280): through
   * the gateway that took it (by the payment's idempotency key; a second refund does nothing there),
   * then, in one transaction, marks the payment refunded and posts the ledger line reversing it (a
   * payment line of minus the amount, dated the refund's local day); `record` runs inside that
   * transaction (the caller's audit row). Idempotent: a payment refunded already answers
   * `already_refunded`. SiteLink refuses: the payment is booked in SiteLink, which the port cannot
   * reverse.
   *
   * Partial refunds (issue 39, decision 509): `amount` (cents, default all that is left) is refunded;
   * the payment stays approved with its `refundedAmount` until all of it is given back. `refundedBefore`
   * is what the desk saw refunded already: when it differs (a double submit, or another refund
   * meanwhile) nothing is refunded (`changed`). `cancelRental` (a move-in payment's refund): in the
   * same transaction the lease ends on `moveOutDate`, autopay stops, the unit is free again and what
   * the lease still owes is written off (a credit line), as a move-out the desk records.
   */
  refundPayment(input: {
    tenantId: string;
    paymentId: string;
    amount?: number;
    refundedBefore?: number;
    cancelRental?: { moveOutDate: string };
    now: Date;
    record: (tx: Transaction, change: RefundChange) => Promise<void>;
  }): Promise<RefundOutcome>;

  enrolAutopay(input: { tenantId: string; leaseId: string; method: PaymentMethod; now: Date }): Promise<SavedCard>;
  cancelAutopay(input: { tenantId: string; leaseId: string }): Promise<void>;
  /** Records the notice for the office; `moveOutDate` is on or after today (the caller checks, in the location's time zone). */
  giveMoveOutNotice(input: { tenantId: string; leaseId: string; moveOutDate: string; reason: string | null; now: Date }): Promise<void>;
  /**
   * The office records that the tenant has moved out (issue 39): the lease ends on `moveOutDate` (on
   * or before today, the caller checks), autopay stops and the unit can be rented again; `record`
   * runs inside that transaction (the caller's audit row). A lease ended already answers
   * `already_moved_out`. SiteLink refuses: a move-out is done in SiteLink itself (no documented call
   * moves a tenant out, decision 500), and its ledger read then shows the lease ended.
   */
  recordMoveOut(input: { tenantId: string; leaseId: string; moveOutDate: string; now: Date; record: (tx: Transaction) => Promise<void> }): Promise<MoveOutOutcome>;
}

export type MoveOutOutcome =
  | { kind: "moved_out" }
  /** Ended before (a double submit): nothing was written again. */
  | { kind: "already_moved_out" }
  /** Nothing was changed; `message` says why, in the office's words. */
  | { kind: "refused"; message: string };
