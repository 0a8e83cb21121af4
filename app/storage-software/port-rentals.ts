/** Rentals part of the StorageSoftware port (issue 4): holds, move-ins, reservations. See ./port.ts. */

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

