/** Rentals part of the StorageSoftware port (issue 4): holds, quotes, move-ins, reservations. See ./port.ts. */
import type { PaymentMethodInput } from "~/domain/payments/method";
import type { TenantContact } from "~/domain/shared/tenant-form";
import type { MoveInQuote, QuotePromotion } from "~/domain/rental/move-in-quote";

/** The figures of a move-in (what is shown, signed and charged): `quoteMoveIn`'s answer. */
export type { MoveInQuote };

// ---------------------------------------------------------------- rentals (issue 4)

export interface UnitHold {
  unitId: string;
  unitName: string;
  holdToken: string;
  heldUntil: Date;
}

export interface TenantInput {
  firstName: string;
  lastName: string;
  email: string;
  /** Ten digits. */
  cellPhone: string;
  /** Plain password: the adapter hashes it (local) or passes it to the software (SiteLink). */
  webPw: string;
  addr1: string;
  addr2?: string | null;
  city: string;
  region: string;
  postalCode: string;
  isMilitary: boolean;
  isCompany: boolean;
  isCommercial: boolean;
  altContactFirstName?: string | null;
  altContactLastName?: string | null;
  altContactPhone?: string | null;
  /** The tenant agreed to texts (the rental's opt-in, issue 40, decision 511): SiteLink's bSMSOptIn. */
  smsOptIn?: boolean;
}

/** A tenant as the software holds it: the contact details of the account form (spec §3), a cell phone and its id. */
export type Tenant = TenantContact & { id: string; cellPhone: string };

/** The tenant of a move-in: the rental keeps only the password's bcrypt hash, never the password. */
export type MoveInTenant = Omit<TenantInput, "webPw"> & { webPwHash: string };

/** One line of the move-in charges (from the domain's quote). */
export interface MoveInChargeLine {
  kind: "rent" | "discount" | "insurance" | "charge";
  description: string;
  /** Cents; negative for a discount. */
  amount: number;
  tax: number;
  postingKey: string;
  periodStart: string | null;
  periodEnd: string | null;
}

export interface MoveInInput {
  /** The rental's id: its hold token, and the key that makes the move-in happen at most once. */
  rentalId: string;
  idempotencyKey: string;
  unitTypeId: string;
  tenant: MoveInTenant;
  moveInDate: string;
  paidThroughDate: string;
  nextDueDate: string;
  monthlyRate: number;
  insurancePlanId: string | null;
  insurancePremium: number;
  lines: MoveInChargeLine[];
  /** What is charged now, cents (= Σ line amount + tax): the total of `quoteMoveIn`, unchanged. */
  total: number;
  /**
   * The promotion of the quote (issue 40): at SiteLink its plan goes with the move-in (ConcessionPlanID);
   * locally its later months are discounted by the billing run. Null or absent: none.
   */
  promotion?: QuotePromotion | null;
  /** The payer's card: our own card fields or a processor's token (decision 079). Never stored or logged. */
  payment: PaymentMethodInput;
  /** Save the card (tokenised) and enrol the lease in autopay. */
  autopay: boolean;
  lease: { text: string; hash: string; signedName: string; signedAt: Date; signedIp: string };
  now: Date;
}

export interface MoveInResult {
  leaseId: string;
  tenantId: string;
  unitId: string;
  unitName: string;
  gateCode: string;
  paymentId: string;
  authReference: string;
  cardBrand: string;
  cardLast4: string;
  /** False when this rental had already been completed: the first result, nothing charged again. */
  created: boolean;
}

/**
 * Where a move-in whose outcome was unknown (OutcomeUnknownError) stands after reading the software
 * back: gone through (the result, as `moveIn` would have answered), still unknown, or known not to have
 * gone through (nothing charged; the rental is open again with a new idempotency key).
 */
export type MoveInCheck =
  | { status: "completed"; result: MoveInResult }
  | { status: "pending" }
  | { status: "not_completed"; reason: string };

export interface MoveInQuoteInput {
  unitTypeId: string;
  /** A plan of `listInsurancePlans`, or null for none. */
  insurancePlanId: string | null;
  /** "YYYY-MM-DD" in the location's time zone. */
  moveInDate: string;
  /** The account's pricing flags (web rates instead of standard rates; the online discount on the first month). */
  pricing: { isWebRatesEnabled: boolean; fakeDiscountPercentage: number };
  now: Date;
}

/** A completed move-in as the confirmation page, the email and the lease document read it. */
export interface MoveInRecord {
  leaseId: string;
  tenantId: string;
  unitName: string;
  gateCode: string;
  firstName: string;
  email: string;
  moveInDate: string;
  paidThroughDate: string;
  nextDueDate: string;
  /** Cents a month. */
  monthlyRate: number;
  autopayEnabled: boolean;
  /**
   * The visitor chose autopay but it could not be turned on with the move-in (e.g. the move-in was
   * only confirmed by reading the software back, when the card could no longer be used): the
   * confirmation and the email say so and link to the portal's autopay page.
   */
  autopayNotSetUp: boolean;
  /** When the move-in was recorded (the confirmation page is shown for a while after it). */
  createdAt: Date;
  /** The charges and credits of the lease (no payments); credits have a negative amount. */
  lines: Array<{ description: string; kind: "charge" | "credit"; amount: number; tax: number }>;
  /** The approved move-in payment, or null. */
  payment: { id: string; amount: number; cardBrand: string; cardLast4: string; authReference: string | null } | null;
  /** The signed lease. */
  lease: { text: string; hash: string; signedName: string; signedAt: Date; signedIp: string | null };
}

export interface ReserveInput {
  unitTypeId: string;
  firstName: string;
  lastName: string;
  email: string;
  /** Ten digits. */
  phone: string;
  desiredMoveInDate: string;
  expiresAt: Date;
  /** SHA-256 (hex) of the token in the cancel link. */
  cancelTokenHash: string;
  confirmationCode: string;
  idempotencyKey: string;
  now: Date;
  /**
   * The reservation's full form (reservation short form flag off): the tenant account to create with
   * the reservation, in the same transaction, so the visitor can sign in to the portal. Throws
   * StorageValidationError({ email }) when the email belongs to a tenant already.
   */
  tenant?: MoveInTenant | null;
}

export interface ReservationRecord {
  id: string;
  unitTypeId: string;
  unitId: string;
  unitName: string;
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  desiredMoveInDate: string;
  status: "active" | "cancelled" | "expired" | "converted";
  expiresAt: Date;
  confirmationCode: string;
  cancelTokenHash: string;
  createdAt: Date;
  /** The tenant account made with the reservation (full form), or null (short form). */
  tenantId: string | null;
}

export interface Rentals {
  /**
   * Who charges the cards of this location's rentals and portal payments (docs/decisions/200):
   * "gateway" our payment gateway (the local adapter; SiteLink under option B), "software" the
   * facility's software with its own processor (SiteLink under option A). Where it is "gateway" and
   * no gateway is configured (`paymentGatewayFor`), the pages offer "call the office" instead of a card form.
   */
  cardsChargedBy(): Promise<"gateway" | "software">;
  /**
   * Whether online rentals and card payments may go through this location's software now (issue 37,
   * decision 470): always at the local adapter; at a SiteLink location only while its latest
   * `sitelink:verify` passed with the settings now saved. Where not, the pages ask the visitor to call
   * the office (as with rentals switched off) and the forms refuse on the server.
   */
  goLive(): Promise<{ live: boolean; reason: string }>;
  /**
   * Holds one available unit of the type until `until` for this hold token (a rental). Renews the
   * token's own hold when it still has one. Throws UnitUnavailableError when none is free.
   */
  holdUnit(input: {
    unitTypeId: string;
    holdToken: string;
    until: Date;
    now: Date;
    /**
     * The caller has swept expired reservations at `now` in this request (or knew none was due): an
     * adapter that sweeps before it holds need not (decision 420). Absent: the adapter decides.
     */
    swept?: boolean;
  }): Promise<UnitHold>;
  releaseHold(holdToken: string): Promise<void>;
  /**
   * The move-in figures the visitor is shown, signs and is charged: the local adapter computes them
   * with app/domain/rental/move-in-quote.ts; a SiteLink adapter asks SiteLink (its proration, fees and tax
   * rounding). Throws UnitUnavailableError for a unit type that is not this location's.
   */
  quoteMoveIn(input: MoveInQuoteInput): Promise<MoveInQuote>;
  /**
   * Creates the tenant, the lease, its ledger lines and the payment in one transaction, charging the
   * card once. Idempotent on `rentalId`/`idempotencyKey`. Throws UnitUnavailableError,
   * PaymentDeclinedError (nothing written, nothing charged; the declined attempt is recorded for the
   * office by the adapter) or StorageValidationError (e.g. email taken).
   */
  moveIn(input: MoveInInput): Promise<MoveInResult>;
  /**
   * Settles a move-in that raised OutcomeUnknownError by reading the software back; never sends the
   * move-in again. Safe to call at any time (page reload, background sweep).
   */
  confirmMoveIn(input: { rentalId: string; now: Date }): Promise<MoveInCheck>;
  /** A move-in of this location by its lease id, or null (unknown id, another location's lease). */
  getMoveIn(leaseId: string): Promise<MoveInRecord | null>;
  /** True when the email already belongs to a tenant of this operator. */
  isEmailRegistered(email: string): Promise<boolean>;
  /** Reserves one available unit of the type; throws UnitUnavailableError. Idempotent on the key. */
  reserveUnit(input: ReserveInput): Promise<ReservationRecord>;
  /** The reservation (expired first if its time has passed), or null. */
  getReservation(input: { id?: string; confirmationCode?: string; now: Date }): Promise<ReservationRecord | null>;
  /** Cancels an active reservation when the token hash matches; returns the record or null. */
  cancelReservation(input: { id: string; cancelTokenHash: string; now: Date }): Promise<ReservationRecord | null>;
  /** Marks every active reservation whose time has passed as expired and frees its unit. Returns how many. */
  expireReservations(now: Date): Promise<number>;
}
