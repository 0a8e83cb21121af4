/**
 * The demo corporation's credentials (the simulator's own choice, docs/decisions/105-sitelink-simulator.md),
 * apart from the seed so that a SOAP client (sitelink-simulator/test-client.ts, the browser tests) can
 * name them without loading the demo inventory and, through it, the app's storage-software port.
 */
import type { Corp } from "./state";

export const DEMO_CORP: Corp = {
  corpCode: "GHTEST",
  userName: "gatehouse_web",
  apiKey: "SIM-API-KEY-2026",
  password: "Simulator-Pass-1",
};

/** What the SOAP client sends as sCorpUserName ("{user}:::{APIKEY}", LK-SC). */
export function corpUserName(corp: Corp = DEMO_CORP): string {
  return `${corp.userName}:::${corp.apiKey}`;
}
