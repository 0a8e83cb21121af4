/** The SiteLink simulator's public entry points (for tests, scripts and main.ts). */
export { startSiteLinkSimulator, DEFAULT_PORT, type RunningSimulator, type StartOptions } from "./server";
export { DEMO_CORP, DEMO_SITES, corpUserName } from "./seed";
