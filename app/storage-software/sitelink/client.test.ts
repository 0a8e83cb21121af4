import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSiteLinkClient, type SiteLinkLog } from "./client";
import { SiteLinkCallError } from "./errors";
import { SoftwareUnreachableError } from "../errors";
import { testContract } from "./fixtures/contract";
import * as fx from "./fixtures/answers";

// A real HTTP server on an ephemeral port: each test queues how the next requests are answered.
type Reply = { status?: number; body?: string; hang?: boolean; reset?: boolean };
let queue: Reply[] = [];
let received: { action: string | undefined; type: string | undefined; body: string }[] = [];
let server: http.Server;
let endpoint = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      received.push({ action: req.headers.soapaction as string | undefined, type: req.headers["content-type"], body });
      const reply = queue.shift() ?? { status: 500, body: fx.iisError };
      if (reply.hang) return; // never answers
      if (reply.reset) return req.socket.destroy();
      res.writeHead(reply.status ?? 200, { "Content-Type": "text/xml; charset=utf-8" });
      res.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/CCWs_3.5/CallCenterWs.asmx`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const PASSWORD = "s3cret-Pa55";
const API_KEY = "APIKEY-9f8e7d";
const CARD = "4111111111111111";
const CVV = "737";
let lines: string[] = [];
const log: SiteLinkLog = {
  debug: (fields, message) => lines.push(JSON.stringify({ level: "debug", ...fields, message })),
  info: (fields, message) => lines.push(JSON.stringify({ level: "info", ...fields, message })),
  warn: (fields, message) => lines.push(JSON.stringify({ level: "warn", ...fields, message })),
};

beforeEach(() => {
  queue = [];
  received = [];
  lines = [];
});

const client = (extra: Partial<Parameters<typeof createSiteLinkClient>[0]> = {}) =>
  createSiteLinkClient({
    endpoint,
    contract: testContract,
    credentials: { corpCode: "CCTST", locationCode: "L001", corpUser: "web", password: PASSWORD, apiKey: API_KEY },
    retryDelayMs: 1,
    log,
    ...extra,
  });

const moveIn = {
  TenantID: 12,
  UnitID: 5001,
  dStartDate: "2026-11-24",
  dcPaymentAmount: "139.81",
  sCreditCardNumber: CARD,
  sCreditCardCVV: CVV,
  bTestMode: true,
};

function expectNoSecrets() {
  const all = lines.join("\n");
  for (const secret of [PASSWORD, API_KEY, CARD, CVV === "737" ? "<sCreditCardCVV>" : CVV]) expect(all).not.toContain(secret);
}

describe("SiteLink client", () => {
  it("posts SOAP 1.1 with the quoted SOAPAction and returns the tables; logs operation and latency only", async () => {
    queue.push({ body: fx.priceListTwoRows });
    const answer = await client().call("UnitTypePriceList_v2", {});
    expect(answer.tables.Table).toHaveLength(2);
    expect(received).toHaveLength(1);
    expect(received[0]!.action).toBe('"http://tempuri.org/CallCenterWs/CallCenterWs/UnitTypePriceList_v2"');
    expect(received[0]!.type).toBe("text/xml; charset=utf-8");
    expect(received[0]!.body).toContain(`<sCorpPassword>${PASSWORD}</sCorpPassword>`);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ level: "debug", operation: "UnitTypePriceList_v2", location: "L001", attempt: 1 });
    expect(typeof line.ms).toBe("number");
    expectNoSecrets();
  });

  it("retries a read once after HTTP 503, then answers", async () => {
    queue.push({ status: 503, body: "Service Unavailable" }, { body: fx.priceListOneRow });
    const answer = await client().call("UnitTypePriceList_v2", {});
    expect(answer.tables.Table).toHaveLength(1);
    expect(received).toHaveLength(2);
  });

  it("retries a read at most once: two failures throw SoftwareUnreachableError", async () => {
    queue.push({ status: 503, body: "x" }, { status: 503, body: "x" }, { body: fx.priceListOneRow });
    const error = await client().call("UnitTypePriceList_v2", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SoftwareUnreachableError);
    expect((error as SiteLinkCallError).failure).toBe("http");
    expect(received).toHaveLength(2);
  });

  it("retries a read once after a connection reset", async () => {
    queue.push({ reset: true }, { body: fx.priceListOneRow });
    await client().call("UnitTypePriceList_v2", {});
    expect(received).toHaveLength(2);
  });

  it("never retries a write: HTTP 503 after a MoveIn is an unknown outcome, sent once", async () => {
    queue.push({ status: 503, body: "x" }, { body: fx.moveInOk });
    const error = (await client().call("MoveInWithDiscount_v7", moveIn).catch((e: unknown) => e)) as SiteLinkCallError;
    expect(error).toBeInstanceOf(SiteLinkCallError);
    expect(error.write).toBe(true);
    expect(error.outcomeUnknown).toBe(true);
    expect(received).toHaveLength(1);
    expectNoSecrets();
  });

  it("a write that does not answer in time times out, is sent once, and its outcome is unknown", async () => {
    queue.push({ hang: true }, { body: fx.moveInOk });
    const started = Date.now();
    const error = (await client({ writeTimeoutMs: 300 }).call("MoveInWithDiscount_v7", moveIn).catch((e: unknown) => e)) as SiteLinkCallError;
    expect(error.failure).toBe("timeout");
    expect(error.outcomeUnknown).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(received).toHaveLength(1);
    expectNoSecrets();
  });

  it("a read that does not answer in time throws SoftwareUnreachableError (no second wait)", async () => {
    queue.push({ hang: true }, { hang: true });
    const error = (await client({ readTimeoutMs: 200 }).call("SiteInformation", {}).catch((e: unknown) => e)) as SiteLinkCallError;
    expect(error).toBeInstanceOf(SoftwareUnreachableError);
    expect(error.failure).toBe("timeout");
    expect(received).toHaveLength(1);
  });

  it("a soap:Client Fault on a write was refused before it ran (outcome known); a soap:Server one is unknown", async () => {
    queue.push({ status: 500, body: fx.soapFault });
    const refused = (await client().call("MoveInWithDiscount_v7", moveIn).catch((e: unknown) => e)) as SiteLinkCallError;
    expect(refused.failure).toBe("fault");
    expect(refused.faultCode).toBe("soap:Client");
    expect(refused.outcomeUnknown).toBe(false);
    queue.push({ status: 500, body: fx.serverFault });
    const unknown = (await client().call("MoveInWithDiscount_v7", moveIn).catch((e: unknown) => e)) as SiteLinkCallError;
    expect(unknown.outcomeUnknown).toBe(true);
    expect(received).toHaveLength(2);
  });

  it("HTML instead of SOAP (IIS error page) and malformed XML are SoftwareUnreachableError", async () => {
    queue.push({ status: 500, body: fx.iisError });
    const html = (await client().call("SiteInformation", {}).catch((e: unknown) => e)) as SiteLinkCallError;
    expect(html.failure).toBe("http");
    queue.push({ status: 200, body: "<soap:Envelope><soap:Body><Broken" });
    const broken = (await client().call("SiteInformation", {}).catch((e: unknown) => e)) as SiteLinkCallError;
    expect(broken).toBeInstanceOf(SoftwareUnreachableError);
    expect(broken.failure).toBe("malformed");
  });

  it("a Fault that echoes the card number or the password is redacted before it is logged or thrown", async () => {
    const echo = fx.serverFault.replace("Object reference", `Bad value ${CARD} for ${PASSWORD}; Object reference`);
    queue.push({ status: 500, body: echo });
    const error = (await client().call("MoveInWithDiscount_v7", moveIn).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("[redacted]");
    expect(error.message).not.toContain(CARD);
    expect(error.message).not.toContain(PASSWORD);
    expectNoSecrets();
  });

  it("refuses to send an envelope the contract does not allow (nothing reaches the server)", async () => {
    await expect(client().call("MoveInWithDiscount_v7", { ...moveIn, iTenantId: 1 })).rejects.toThrow(/unknown parameter/);
    await expect(client().call("NoSuchOperation", {})).rejects.toThrow(/Unknown SiteLink operation/);
    expect(received).toHaveLength(0);
  });

  it("an unreachable endpoint is SoftwareUnreachableError (network)", async () => {
    const error = (await client({ endpoint: "http://127.0.0.1:1/CCWs_3.5/CallCenterWs.asmx" }).call("SiteInformation", {}).catch((e: unknown) => e)) as SiteLinkCallError;
    expect(error).toBeInstanceOf(SoftwareUnreachableError);
    expect(error.failure).toBe("network");
    expectNoSecrets();
  });
});
