/**
 * The storage-management software port (DEVELOPERS.md, conventions.md): everything the site asks of
 * a facility's software. One adapter per `software` value; routes and the domain never import an
 * adapter, they ask `storageFor(location)` (./index.server.ts).
 *
 * Money is in integer cents, sizes in feet, dates as "YYYY-MM-DD" in the location's time zone.
 * Ids are strings so that SiteLink's ids fit as well as ours.
 */
import type { UnitCategory } from "~/db/schema/unit";
import type { CardDetails } from "~/services/payment-gateway.server";

// ---------------------------------------------------------------- inventory (issue 3)

export interface SiteInformation {
  locationId: number;
  name: string;
  /** IANA time zone of the site. */
  timeZone: string;
}

export interface UnitTypeAvailability {
  id: string;
  locationId: number;
  name: string;
  category: UnitCategory;
  width: number;
  length: number;
  height: number | null;
  floor: number;
  features: string[];
  description: string;
  standardRate: number;
  webRate: number;
  /** Units of the type that can be rented right now (not rented, reserved, held or unavailable). */
  availableCount: number;
  totalCount: number;
}

export interface InsurancePlanOption {
  id: string;
  coverage: number;
  premium: number;
  percentOfTheftCoverage: string;
  description: string;
  provider: string;
}

export interface CheckoutChargeOption {
  id: string | null;
  name: string;
  amount: number;
  tax1Rate: number;
  tax2Rate: number;
  isRecurring: boolean;
}

export interface Inventory {
  getSiteInformation(): Promise<SiteInformation>;
  /** Every unit type of the site with its live availability (one read per call). */
  listUnitTypes(): Promise<UnitTypeAvailability[]>;
  getUnitType(unitTypeId: string): Promise<UnitTypeAvailability | null>;
  listInsurancePlans(): Promise<InsurancePlanOption[]>;
  listCheckoutCharges(): Promise<CheckoutChargeOption[]>;
}

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

export interface Rentals {
  /** Holds one available unit of the type for a short time; throws UnitUnavailableError. */
  holdUnit(input: { unitTypeId: string; holdToken: string; until: Date; now: Date }): Promise<UnitHold>;
  releaseHold(holdToken: string): Promise<void>;
}

// ---------------------------------------------------------------- tenants and billing (issue 5)

export interface Payment {
  id: string;
  amount: number;
  status: "approved" | "declined";
  cardBrand: string;
  cardLast4: string;
  authReference: string | null;
  declineReason: string | null;
  createdAt: Date;
}

export type { CardDetails };

/** The whole port. Adapters implement every part; a part they cannot serve throws NotSupportedError. */
export interface StorageSoftware extends Inventory, Rentals {
  readonly kind: "local" | "sitelink";
}
