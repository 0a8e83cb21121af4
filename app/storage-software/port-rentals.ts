/** Rentals part of the StorageSoftware port (issue 4): holds, move-ins, reservations. See ./port.ts. */
import type { CardDetails } from "~/services/payment-gateway.server";

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
}

export interface Tenant {
  id: string;
  firstName: string;
  lastName: string;
  email: string;
  cellPhone: string;
  addr1: string;
  addr2: string | null;
  city: string;
  region: string;
  postalCode: string;
  isMilitary: boolean;
  isCompany: boolean;
  isCommercial: boolean;
  altContactFirstName: string | null;
  altContactLastName: string | null;
  altContactPhone: string | null;
}

/** The tenant of a move-in: the checkout keeps only the password's bcrypt hash, never the password. */
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
  /** The checkout's id: its hold token, and the key that makes the move-in happen at most once. */
  checkoutId: string;
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
  /** What is charged now, cents (= Σ line amount + tax). */
  total: number;
  card: CardDetails;
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
  /** False when this checkout had already been completed: the first result, nothing charged again. */
  created: boolean;
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
   * Holds one available unit of the type until `until` for this hold token (a checkout). Renews the
   * token's own hold when it still has one. Throws UnitUnavailableError when none is free.
   */
  holdUnit(input: { unitTypeId: string; holdToken: string; until: Date; now: Date }): Promise<UnitHold>;
  releaseHold(holdToken: string): Promise<void>;
  /**
   * Creates the tenant, the lease, its ledger lines and the payment in one transaction, charging the
   * card once. Idempotent on `checkoutId`/`idempotencyKey`. Throws UnitUnavailableError,
   * PaymentDeclinedError (nothing written, nothing charged) or StorageValidationError (e.g. email taken).
   */
  moveIn(input: MoveInInput): Promise<MoveInResult>;
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
