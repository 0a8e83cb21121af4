/** Inventory part of the StorageSoftware port (issue 3). See ./port.ts. */
import type { UnitCategory } from "~/db/schema/unit";
import type { PromotionTerms } from "~/domain/rental/promotion";
import type { Image } from "~/db/schema/shared";

// ---------------------------------------------------------------- inventory (issue 3)

export interface SiteInformation {
  locationId: number;
  name: string;
  /** IANA time zone of the site. */
  timeZone: string;
}

export interface UnitTypeAvailability {
  /** Our unit_types.id (local) or the software's UnitTypeID (SiteLink), as a string. */
  id: string;
  locationId: number;
  /** The software's name for the type, e.g. "Climate Controlled"; what specific_unit_types_to_show matches. */
  name: string;
  category: UnitCategory;
  /** Feet. */
  width: number;
  length: number;
  height: number | null;
  floor: number;
  features: string[];
  description: string;
  /**
   * The website's presentation of the type, from our catalogue whatever the software (issue 24): kept
   * off the website (not listed, not rentable or reservable online), the promotion that applies to it
   * today in words ("" for none: decision 674), and its photos.
   */
  isHiddenOnline: boolean;
  promotion: string;
  images: Image[];
  /** Cents per month. */
  standardRate: number;
  /** Cents per month; charged instead of the standard rate when the account's web rates flag is on. */
  webRate: number;
  /** Units of the type that can be rented right now (not rented, reserved, held or unavailable). */
  availableCount: number;
  /** Every unit of the type, whatever its status. */
  totalCount: number;
}

/**
 * One of the site's discount plans: its id (SiteLink's ConcessionID), its name and what it gives: an
 * amount or a percentage off, from which month, for how many (decision 672). `terms` is null when
 * what it gives cannot be worded for certain (a fixed rent, a prepay plan, a column the sources read
 * two ways…): then it is never offered, and `notOffered` says why.
 */
export interface DiscountPlanOption {
  id: number;
  name: string;
  terms: PromotionTerms | null;
  notOffered: string | null;
}

export interface InsurancePlanOption {
  id: string;
  /** Cents of coverage. */
  coverage: number;
  /** Cents per month. */
  premium: number;
  percentOfTheftCoverage: string;
  description: string;
  provider: string;
}

export interface ExtraChargeOption {
  id: string | null;
  name: string;
  /** Cents. */
  amount: number;
  /** Percentages (6.75 means 6.75 %). */
  tax1Rate: number;
  tax2Rate: number;
  isRecurring: boolean;
}

/**
 * Options of an availability read. `now` decides which rental holds still count (a unit held
 * until a time at or before `now` is available again); adapters default to the app clock.
 */
export interface AvailabilityOptions {
  now?: Date;
}

/**
 * Errors (./errors.ts): an unknown location or unreadable operator data raises StorageSoftwareError;
 * an adapter that cannot reach its software raises SoftwareUnreachableError. A unit type that does not
 * exist (or belongs to another location) is not an error: getUnitType answers null.
 */
export interface Inventory {
  getSiteInformation(): Promise<SiteInformation>;
  /** Every unit type of the site with its live availability, smallest first (one read per call). */
  listUnitTypes(options?: AvailabilityOptions): Promise<UnitTypeAvailability[]>;
  /** One unit type of this site with its live availability; null when there is no such type here. */
  getUnitType(unitTypeId: string, options?: AvailabilityOptions): Promise<UnitTypeAvailability | null>;
  /** The site's protection (insurance) plans, lowest coverage first. */
  listInsurancePlans(): Promise<InsurancePlanOption[]>;
  /**
   * The site's own discount plans a promotion may name (issue 40, decision 600): SiteLink's
   * DiscountPlansRetrieve; none at a local location (its promotions are an amount or a percentage).
   */
  listDiscountPlans(): Promise<DiscountPlanOption[]>;
  /** The site's extra charges (charges_to_show_at_checkout, validated), amounts in cents. */
  listExtraCharges(): Promise<ExtraChargeOption[]>;
  /**
   * When the counts of listUnitTypes/getUnitType were read from the facility's software: null when
   * they are live (our own database), a time when they come from a sync and may be that old (pages
   * say "Availability as of 2:41 PM"; holding a unit always re-checks it).
   */
  availabilityAsOf(): Promise<Date | null>;
}
