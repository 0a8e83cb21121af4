/**
 * The go-live check's report (issue 20, decisions 188, 471 and 681): what `sitelink:verify` and the
 * console's check return, and the two readings of iPayMethod it compares the location's ids with.
 * Apart from ./verify.ts so that ./go-live-words.ts reads it without importing the check itself.
 */
import type { SiteLinkPayMethodIds } from "~/db/schema";

export type CheckStatus = "ok" | "differs" | "warning" | "not checked" | "not sent";

export interface OperationCheck {
  operation: string;
  kind: "read" | "write";
  status: CheckStatus;
  notes: string[];
}

/**
 * The two readings of iPayMethod (evidence §4.9), as the pay-method ids an operator configures for each
 * (`sitelink:configure --pay-method`, decision 181). The adapter sends the location's own
 * `payMethodIds` (move-in.ts): its card id under option A, its cash id under option B.
 */
export const PAY_METHOD_READINGS = {
  manual: { ids: { card: 0, cash: 2, check: 1 }, label: "the manual's reading (0 card, 1 check, 2 cash)" },
  lsetup: { ids: { card: 1, cash: 2, check: 3 }, label: "the LSETUP reading (0 none, 1 card, 2 cash, 3 check)" },
} as const satisfies Record<string, { ids: SiteLinkPayMethodIds; label: string }>;

export interface GoLiveReport {
  generatedAt: string;
  location: { id: number; name: string; slug: string };
  endpoint: string;
  corpCode: string;
  locationCode: string;
  cardChargedBy: "sitelink" | "gateway";
  settings: { status: CheckStatus; notes: string[] };
  operations: OperationCheck[];
  cardTypes: { status: CheckStatus; site: Array<{ id: string; description: string; category: string }>; configured: Record<string, number>; notes: string[] };
  billingFrequency: { configured: number; status: CheckStatus; note: string };
  /** `configured`: the location's pay-method ids (what the adapter sends). */
  payMethod: { status: CheckStatus; configured: SiteLinkPayMethodIds | null; works: number | null; reading: keyof typeof PAY_METHOD_READINGS | null; notes: string[] };
  /** Per operation: the Ret_Code seen, and for each write how the adapter reads its answer (answers.ts). */
  successCodes: Record<string, string>;
  testMoveIn: null | { unitId: string; ledgerId: string | null; notes: string[] };
  ok: boolean;
  /** Operations (or parts) that differ, for the summary and the exit code. */
  differs: string[];
  /**
   * What the adapter relies on that this run did not see, each with the flag that would check it
   * (issue 37): any makes the result NOT READY, as a difference does.
   */
  notChecked: string[];
  /** The SiteLink TenantID of the test tenant this run used (made, found again or given), or null. */
  testTenantId: string | null;
  /**
   * Why SiteLink could not be reached (no answer to its first read: a network error, a timeout, an
   * HTTP error or a page that is not SiteLink's), or null. Then nothing was checked and the run does
   * not decide the location's go-live state (decision 681).
   */
  unreachable: string | null;
}
