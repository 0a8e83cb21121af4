/**
 * The autopay box at the end of an online rental, from the account's flags (spec §9):
 * is_autopay_enabled offers it, is_force_autopay makes it required (with the reason shown next to the
 * box), is_autopay_prechecked starts it ticked. Pure.
 */
import type { AccountGlobalSettings } from "../shared/account-settings";

export interface AutopayChoice {
  /** The box is shown (and autopay can be set up with the rental). */
  offered: boolean;
  /** Autopay comes with every online rental: the box is ticked and cannot be unticked. */
  required: boolean;
  /** The box starts ticked. */
  checked: boolean;
  /** Why it is required, shown next to the box; null when it is not. */
  reason: string | null;
}

export const FORCED_AUTOPAY_REASON =
  "Autopay is required for online rentals: your monthly rent is charged to this card on each due date. You can change the card in the customer portal or at the office.";

export function autopayChoice(
  settings: Pick<AccountGlobalSettings, "is_autopay_enabled" | "is_force_autopay" | "is_autopay_prechecked">,
): AutopayChoice {
  // Forcing autopay needs autopay: a forced box is shown even if the portal's autopay flag is off.
  const required = settings.is_force_autopay;
  const offered = settings.is_autopay_enabled || required;
  return {
    offered,
    required,
    checked: offered && (required || settings.is_autopay_prechecked),
    reason: required ? FORCED_AUTOPAY_REASON : null,
  };
}
