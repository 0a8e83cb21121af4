/**
 * `npm run sitelink:simulator`: the SiteLink simulator as a dev server.
 *   PORT                     listening port (default 8765), on 127.0.0.1
 *   SITELINK_SIM_SNAPSHOT    optional JSON file: state loaded at start if it exists, written on exit
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { corpUserName, DEFAULT_PORT, DEMO_CORP, DEMO_SITES, startSiteLinkSimulator } from "./index";
import type { SimState } from "./state";

const port = process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT;
const snapshot = process.env.SITELINK_SIM_SNAPSHOT;
const seed = snapshot && existsSync(snapshot) ? (JSON.parse(readFileSync(snapshot, "utf8")) as SimState) : "demo";

const sim = await startSiteLinkSimulator({ port, seed, log: (line) => process.stdout.write(`${line}\n`) });
process.stdout.write(
  [
    `SiteLink simulator (CallCenterWs, SOAP 1.1)`,
    `  endpoint:   ${sim.url}`,
    `  WSDL:       ${sim.url}?WSDL`,
    `  control:    ${sim.origin}/__sim/ (reset, sites, unit-types, units/:id/status, clock, billing/run, calls, faults)`,
    `  corp code:  ${DEMO_CORP.corpCode}`,
    `  user name:  ${corpUserName()}   (sCorpUserName = user:::API key)`,
    `  password:   ${DEMO_CORP.password}`,
    ...DEMO_SITES.map((s) => `  location:   ${s.sLocationCode} = ${s.name} (SiteID ${s.SiteID})`),
    snapshot ? `  snapshot:   ${snapshot}` : "",
    "",
  ].join("\n"),
);

function stop() {
  if (snapshot) writeFileSync(snapshot, JSON.stringify(sim.control.snapshot(), null, 2));
  void sim.close().then(() => process.exit(0));
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
