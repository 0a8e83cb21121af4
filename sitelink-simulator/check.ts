/**
 * `npm run sitelink:check`: compares a CallCenterWs WSDL with the operation contract.
 *   SITELINK_WSDL_URL   the WSDL to check (e.g. https://api.smdservers.net/CCWs_3.5/CallCenterWs.asmx?WSDL);
 *                       unset: a simulator is started and its own WSDL checked (a self-test).
 * Exits 1 when an operation is missing or its parameters differ (names, order, types).
 */
import { loadContract } from "./contract";
import { startSiteLinkSimulator } from "./server";
import { diffContract } from "./wsdl-check";

const url = process.env.SITELINK_WSDL_URL;
const sim = url ? null : await startSiteLinkSimulator({ port: 0 });
const wsdlUrl = url ?? `${sim!.url}?WSDL`;
try {
  const res = await fetch(wsdlUrl, { signal: AbortSignal.timeout(20_000) });
  if (!res.ok) throw new Error(`GET ${wsdlUrl}: HTTP ${res.status}`);
  const problems = diffContract(loadContract(), await res.text());
  const count = Object.keys(loadContract().operations).length;
  if (problems.length) {
    process.stdout.write(`${problems.length} of ${count} operations differ from ${wsdlUrl}:\n${problems.map((p) => `  ${p}`).join("\n")}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`All ${count} contract operations match ${wsdlUrl}\n`);
  }
} finally {
  await sim?.close();
}
