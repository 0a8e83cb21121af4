/** The SiteLink simulator's public entry points (for tests, scripts and main.ts). */
export { startSiteLinkSimulator, DEFAULT_PORT, type RunningSimulator, type StartOptions } from "./server";
export { SimControl, type CallLogEntry, type SiteFixture, type UnitStatus, type UnitTypeInput } from "./control";
export { SiteLinkSimulator, type SimulatorOptions } from "./simulator";
export { DEMO_CORP, DEMO_SITES, UNIT_TYPE_IDS, CHARGE_DESC, corpUserName } from "./seed";
export { DECLINED_CARDS, AUTOPAY_DECLINE_CARD } from "./cards";
export type { FaultKind, FaultRuleInput } from "./faults";
