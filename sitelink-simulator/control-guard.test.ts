/**
 * Issue 19: the simulator's control API (/__sim/) has no authentication, so it answers only this
 * machine's own tools: a Host that is not loopback (DNS rebinding), a cross-site Origin and a body that
 * is not application/json (what a web page can send without a CORS preflight) are refused.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSiteLinkSimulator, type RunningSimulator } from "./server";

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSiteLinkSimulator({ port: 0, clock: () => new Date("2026-03-10T15:00:00Z") });
});
afterAll(() => sim?.close());

/** A raw request, so that Host, Origin and Content-Type are exactly as a browser would send them. */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: sim.port, method, path, headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const local = () => `127.0.0.1:${sim.port}`;

describe("the control API answers this machine's tools only", () => {
  it("refuses a Host that is not loopback (a rebound DNS name), for reads and writes", async () => {
    sim.control.clearFaults();
    for (const host of [`rebind.attacker.example:${sim.port}`, `192.168.1.20:${sim.port}`, "127.0.0.1.nip.io"]) {
      expect((await raw("GET", "/__sim/state", { host })).status).toBe(403);
      expect((await raw("POST", "/__sim/faults", { host, "content-type": "application/json" }, JSON.stringify({ operation: "*", kind: "http_503" }))).status).toBe(403);
    }
    expect(sim.control.listFaults()).toEqual([]);
    expect((await raw("GET", "/__sim/health", { host: local() })).status).toBe(200);
    expect((await raw("GET", "/__sim/health", { host: `localhost:${sim.port}` })).status).toBe(200);
    expect((await raw("GET", "/__sim/health", { host: `[::1]:${sim.port}` })).status).toBe(200);
  });

  it("refuses JSON sent as text/plain or a form (no CORS preflight), and a cross-site origin", async () => {
    const fault = JSON.stringify({ operation: "*", kind: "http_503" });
    for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      expect((await raw("POST", "/__sim/faults", { host: local(), "content-type": type }, fault)).status).toBe(415);
    }
    expect((await raw("POST", "/__sim/faults", { host: local() }, fault)).status).toBe(415);
    expect((await raw("POST", "/__sim/reset", { host: local(), origin: "https://attacker.example" })).status).toBe(403);
    expect((await raw("POST", "/__sim/reset", { host: local(), origin: "null" })).status).toBe(403);
    expect((await raw("GET", "/__sim/state", { host: local(), "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect(sim.control.listFaults()).toEqual([]);
  });

  it("still takes what the test harnesses send: JSON bodies, and bodiless POSTs and DELETEs", async () => {
    const added = await raw("POST", "/__sim/faults", { host: local(), "content-type": "application/json; charset=utf-8" }, JSON.stringify({ operation: "SiteInformation", kind: "http_503", nth: 1 }));
    expect(added.status).toBe(201);
    expect((await raw("DELETE", "/__sim/faults", { host: local() })).status).toBe(200);
    expect((await raw("POST", "/__sim/reset", { host: local() })).status).toBe(200);
    expect((await raw("POST", "/__sim/reset", { host: local(), origin: `http://localhost:3000` })).status).toBe(200);
    // The SOAP surface is unchanged (SiteLink clients send text/xml).
    expect((await raw("GET", "/CCWs_3.5/CallCenterWs.asmx?WSDL", { host: `sitelink.example:${sim.port}` })).status).toBe(200);
  });
});
