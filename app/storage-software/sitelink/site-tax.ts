/**
 * The site's rent tax rates (SiteInformation: dcTax1Rate_Rent, dcTax2Rate_Rent, in percent), for the
 * monthly figure shown to renters (./quote.ts `monthlyRentTax`). Display only: a failed read or an
 * answer without the columns gives null and the quote infers the rate from its rent lines instead;
 * the amount charged at move-in is always SiteLink's own Σ dcTotal.
 */
import { rows } from "./calls";
import type { SiteLinkCall } from "./client";
import { decimalToNumber } from "./money";
import type { RentTaxRates } from "./quote";

export async function readRentTaxRates(call: SiteLinkCall): Promise<RentTaxRates | null> {
  try {
    const site = rows(await call("SiteInformation", {}, { write: false }), "Table")[0];
    if (!site || site.dcTax1Rate_Rent === undefined || site.dcTax1Rate_Rent.trim() === "") return null;
    return { tax1: decimalToNumber(site.dcTax1Rate_Rent, 0), tax2: decimalToNumber(site.dcTax2Rate_Rent, 0) };
  } catch {
    return null;
  }
}
