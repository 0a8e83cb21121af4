/**
 * The one home of the web-rate rule (docs/decisions/215-one-home-per-rule.md): the monthly rate is the
 * web rate when the location's web rates are on and the type has one (above zero), else the standard
 * rate. Every page, quote and adapter reads it from here; tests/unit/one-home-per-rule.test.ts guards it.
 */

/** The two rates a unit type carries, in cents. */
interface UnitTypeRates {
  standardRate: number;
  webRate: number;
}

/** Whether the type has a web rate to offer (above zero). */
export function hasWebRate(rates: UnitTypeRates): boolean {
  return rates.webRate > 0;
}

/** The monthly rate in cents: the web rate when web rates are on and it is above zero, else the standard rate. */
export function monthlyRateFor(rates: UnitTypeRates, isWebRatesEnabled: boolean): number {
  return isWebRatesEnabled && hasWebRate(rates) ? rates.webRate : rates.standardRate;
}
