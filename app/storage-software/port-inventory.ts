/** Inventory part of the StorageSoftware port (issue 3). See ./port.ts. */
import type { UnitCategory } from "~/db/schema/unit";

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

