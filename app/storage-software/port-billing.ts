/** Billing part of the StorageSoftware port (issue 5, docs/decisions/053-billing-run.md). See ./port.ts. */

// ---------------------------------------------------------------- billing (issue 5)

export interface BillingRunInput {
  /** "YYYY-MM-DD": the calendar date being billed, in the location's time zone. */
  runDate: string;
  now: Date;
  /** Only this tenant's leases (tests). */
  tenantId?: string;
}

/** What the run did to one lease. */
export interface LeaseBilling {
  leaseId: string;
  tenantId: string;
  /** Charge lines posted by this run (0 when the period was already posted). */
  chargesPosted: number;
  autopay: "none" | "approved" | "declined";
  /** Cents charged or tried by autopay (0 when none). */
  autopayAmount: number;
  declineReason: string | null;
  /**
   * The autopay charge waits for the cardholder's authentication (3-D Secure): the processor's intent
   * and the declined payment's key, for the e-mailed link that completes it (decision 395).
   */
  authentication?: { intentId: string; paymentKey: string };
}

export interface LocationBilling {
  /**
   * "us": this adapter ran autopay (local: and posted the charges; SiteLink under option B: SiteLink
   * posted them, decision 170); "software": the facility's software bills its own leases and charges
   * their autopay (SiteLink under option A) and nothing was done here (`leases` is empty).
   */
  billedBy: "us" | "software";
  leases: LeaseBilling[];
  /** Leases that could not be billed this time; the next run retries them (postings are idempotent). */
  failed: Array<{ leaseId: string; error: unknown }>;
}

export interface Billing {
  /**
   * The daily billing of the location's active leases that moved in on or before `runDate`: posts every
   * rent / protection / recurring-charge period that has started and is not posted yet, then charges
   * the autopay card once per due date when something is owed. Idempotent: a second run for the same
   * date posts and charges nothing. One lease's failure does not stop the others (see `failed`).
   */
  billLeases(input: BillingRunInput): Promise<LocationBilling>;
}
