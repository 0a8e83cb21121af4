/**
 * The simulator's HTTP server: SiteLink's SOAP surface at /CCWs_3.5/CallCenterWs.asmx (WSDL at
 * ?WSDL), the test control API under /__sim/, every SOAP call logged, faults injected.
 *
 *   const sim = await startSiteLinkSimulator({ port: 0 });
 *   sim.url          // http://127.0.0.1:PORT/CCWs_3.5/CallCenterWs.asmx
 *   sim.control      // reset, seedSite, setUnitStatus, setClock, runBilling, calls, addFault...
 *   await sim.close();
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { handleControl, redactParams, SimControl } from "./control";
import { SiteLinkSimulator, type SimulatorOptions } from "./simulator";
import { dataSetResponse, faultResponse, iisErrorPage, operationFromSoapAction, parseRequest, SoapFaultError, wsdl, type ParsedCall, type ResultTable } from "./wire";

export const DEFAULT_PORT = 8765;

export interface StartOptions extends SimulatorOptions {
  /** 0 = an ephemeral port (tests). Default DEFAULT_PORT. */
  port?: number;
  /** Default 127.0.0.1 (loopback only). */
  host?: string;
}

export interface RunningSimulator {
  /** The SOAP endpoint, http://host:port/CCWs_3.5/CallCenterWs.asmx. */
  url: string;
  /** http://host:port */
  origin: string;
  port: number;
  control: SimControl;
  sim: SiteLinkSimulator;
  /** Test-only: answer an operation with a table renamed or a column left out (until reset or cleared). */
  reshapeAnswers(rule: AnswerReshape): void;
  clearReshapes(): void;
  close(): Promise<void>;
}

/**
 * A test-only knob (issue 20, `sitelink:verify`'s tests): the simulator answers `operation` with a
 * table renamed or a column left out of the schema and of every row, as a SiteLink site that answers
 * differently would. Also `POST /__sim/answers` (a rule), `GET` (the rules), `DELETE` (none); reset clears them.
 */
export interface AnswerReshape {
  operation: string;
  dropColumn?: { table: string; column: string };
  renameTable?: { from: string; to: string };
}

/** The contract and tables of one answer with the reshaping rules of its operation applied. */
function reshapeAnswer<C extends { operations: Record<string, unknown> }>(contract: C, operation: string, tables: ResultTable[], rules: AnswerReshape[]): { contract: C; tables: ResultTable[] } {
  const mine = rules.filter((r) => r.operation === operation);
  if (!mine.length) return { contract, tables };
  const op = structuredClone(contract.operations[operation]) as { results?: Record<string, Record<string, string>> } | undefined;
  let out = tables.map((t) => ({ ...t, rows: t.rows.map((r) => ({ ...r })) }));
  for (const rule of mine) {
    if (rule.dropColumn) {
      const { table, column } = rule.dropColumn;
      if (op?.results?.[table]) delete op.results[table][column];
      for (const t of out) if (t.name === table) for (const r of t.rows) delete (r as Record<string, unknown>)[column];
    }
    if (rule.renameTable) {
      const { from, to } = rule.renameTable;
      if (op?.results?.[from]) {
        op.results[to] = op.results[from];
        delete op.results[from];
      }
      out = out.map((t) => (t.name === from ? { ...t, name: to } : t));
    }
  }
  return { contract: { ...contract, operations: { ...contract.operations, [operation]: op } }, tables: out };
}

const XML = "text/xml; charset=utf-8";

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function retOf(tables: ResultTable[]): { code: number | null; msg: string | null } {
  const row = tables.find((t) => t.name === "RT")?.rows[0];
  if (!row) return { code: null, msg: null };
  return { code: typeof row.Ret_Code === "number" ? row.Ret_Code : Number(row.Ret_Code), msg: row.Ret_Msg == null ? null : String(row.Ret_Msg) };
}

const LOOPBACK_NAMES = new Set(["localhost", "::1"]);

/** localhost, 127.0.0.0/8 or ::1 (brackets allowed). */
function isLoopbackName(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return LOOPBACK_NAMES.has(h) || /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** The host name of a Host header or an Origin ("127.0.0.1:8765", "[::1]:8765", "http://localhost:3000"). */
function hostNameOf(value: string): string | null {
  try {
    return new URL(value.includes("://") ? value : `http://${value}`).hostname;
  } catch {
    return null;
  }
}

/**
 * Why a request to the control API (/__sim/) is refused, or null (issue 19, docs/security.md). It has no
 * authentication: it answers only this machine's own tools.
 * - The Host must be loopback (or the address the simulator was bound to): a page that rebinds its DNS
 *   name to 127.0.0.1 still sends its own name as Host (DNS rebinding).
 * - A browser's cross-site request carries an Origin (or Sec-Fetch-Site): only a loopback origin passes.
 * - A body must be `application/json`: a `text/plain` or form body is what a page can send without a
 *   CORS preflight.
 */
function controlRequestProblem(req: IncomingMessage, boundHost: string): { status: number; message: string } | null {
  const host = hostNameOf(String(req.headers.host ?? ""));
  const bound = boundHost.toLowerCase();
  const hostOk = host !== null && (isLoopbackName(host) || (bound !== "0.0.0.0" && bound !== "::" && host.toLowerCase().replace(/^\[|\]$/g, "") === bound.replace(/^\[|\]$/g, "")));
  if (!hostOk) return { status: 403, message: "The simulator's control API answers only requests addressed to this machine (Host: 127.0.0.1 or localhost)" };
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const name = origin === "null" ? null : hostNameOf(origin);
    if (name === null || !isLoopbackName(name)) return { status: 403, message: "The simulator's control API does not answer web pages of other sites" };
  } else if (req.headers["sec-fetch-site"] === "cross-site") {
    return { status: 403, message: "The simulator's control API does not answer web pages of other sites" };
  }
  const method = req.method ?? "GET";
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  const type = String(req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (method !== "GET" && method !== "HEAD" && (hasBody || type !== "") && type !== "application/json") {
    return { status: 415, message: "The simulator's control API takes JSON only (Content-Type: application/json)" };
  }
  return null;
}

function createSimulatorServer(sim: SiteLinkSimulator, control: SimControl, origin: () => string, boundHost = "127.0.0.1", reshapes: AnswerReshape[] = []): Server {
  const contract = sim.contract;
  const hanging = new Set<ServerResponse>();

  async function soap(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const soapAction = String(req.headers.soapaction ?? "");
    let operation: string | null = null;
    try {
      operation = operationFromSoapAction(contract, soapAction);
    } catch {
      operation = null;
    }
    const decision = control.faults.decide(operation);
    const entry = control.record({
      operation,
      soapAction,
      locationCode: null,
      params: {},
      httpStatus: null,
      retCode: null,
      retMsg: null,
      fault: decision.rule?.kind ?? (decision.latencyMs ? "latency" : null),
      processed: false,
    });
    if (decision.latencyMs) await sleep(decision.latencyMs);
    const rule = decision.rule;
    const reply = (status: number, text: string, type = XML) => {
      entry.httpStatus = status;
      if (res.destroyed) return;
      res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(text) });
      res.end(text);
    };
    if (rule?.kind === "drop_before") {
      req.socket.destroy();
      return;
    }
    if (rule?.kind === "http_503") return reply(503, iisErrorPage(503, "Service Unavailable"), "text/html");
    if (rule?.kind === "http_500_html") return reply(500, iisErrorPage(500, "Internal server error."), "text/html");

    let call: ParsedCall;
    try {
      call = parseRequest(contract, body, soapAction);
    } catch (err) {
      if (err instanceof SoapFaultError) {
        entry.retMsg = err.faultstring;
        return reply(err.status, faultResponse(err));
      }
      throw err;
    }
    entry.params = redactParams(call.raw);
    entry.locationCode = typeof call.params.sLocationCode === "string" ? call.params.sLocationCode : null;
    if (rule?.kind === "soap_fault") {
      return reply(500, faultResponse(new SoapFaultError("soap:Server", "Server was unable to process request. ---> Object reference not set to an instance of an object.")));
    }
    if (rule?.kind === "rt_error") {
      const tables = [{ name: "RT", rows: [{ Ret_Code: rule.retCode ?? -1, Ret_Msg: rule.retMsg ?? "General failure" }] }];
      entry.retCode = rule.retCode ?? -1;
      return reply(200, dataSetResponse(contract, call.operation, tables));
    }
    if (rule?.kind === "malformed_xml") {
      const text = dataSetResponse(contract, call.operation, [{ name: "RT", rows: [{ Ret_Code: -1, Ret_Msg: "General failure" }] }]);
      return reply(200, text.slice(0, Math.floor(text.length / 2)));
    }
    let tables: ResultTable[];
    try {
      tables = sim.execute(call);
      entry.processed = true;
    } catch (err) {
      if (err instanceof SoapFaultError) {
        entry.retMsg = err.faultstring;
        return reply(err.status, faultResponse(err));
      }
      sim.log(`sitelink-simulator: ${call.operation} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return reply(500, faultResponse(new SoapFaultError("soap:Server", `Server was unable to process request. ---> ${err instanceof Error ? err.message : String(err)}`)));
    }
    const ret = retOf(tables);
    entry.retCode = ret.code;
    entry.retMsg = ret.msg;
    if (rule?.kind === "commit_then_reset") {
      req.socket.destroy();
      return;
    }
    if (rule?.kind === "commit_then_hang") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    const shaped = reshapeAnswer(contract, call.operation, tables, reshapes);
    reply(200, dataSetResponse(shaped.contract, call.operation, shaped.tables));
  }

  async function answersRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
      res.end(text);
    };
    if (req.method === "GET") return json(200, reshapes);
    if (req.method === "DELETE") {
      reshapes.length = 0;
      return json(200, { ok: true });
    }
    if (req.method !== "POST") return json(405, { error: "GET, POST or DELETE" });
    let rule: AnswerReshape;
    try {
      rule = JSON.parse(await readBody(req)) as AnswerReshape;
    } catch {
      return json(400, { error: "The body must be JSON" });
    }
    if (typeof rule?.operation !== "string" || !(rule.operation in contract.operations) || (!rule.dropColumn && !rule.renameTable)) {
      return json(400, { error: "Expected {operation, dropColumn?: {table, column}, renameTable?: {from, to}}" });
    }
    reshapes.push(rule);
    return json(201, reshapes);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const isService = url.pathname.toLowerCase() === contract.path.toLowerCase();
    (async () => {
      if (url.pathname.startsWith("/__sim")) {
        const refused = controlRequestProblem(req, boundHost);
        if (refused) {
          const text = JSON.stringify({ error: refused.message });
          res.writeHead(refused.status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
          return void res.end(text);
        }
        if (url.pathname.replace(/\/+$/, "") === "/__sim/answers") return answersRoute(req, res);
        if (url.pathname.replace(/\/+$/, "") === "/__sim/reset" && req.method === "POST") reshapes.length = 0;
        return handleControl(control, req, res, url);
      }
      if (isService && req.method === "GET") {
        const wantsWsdl = [...url.searchParams.keys()].some((k) => k.toLowerCase() === "wsdl");
        const text = wantsWsdl
          ? wsdl(contract, `${origin()}${contract.path}`)
          : `<html><head><title>CallCenterWs Web Service (simulator)</title></head><body><h1>CallCenterWs</h1><ul>${Object.keys(contract.operations)
              .map((n) => `<li>${n}</li>`)
              .join("")}</ul></body></html>`;
        res.writeHead(200, { "content-type": wantsWsdl ? XML : "text/html; charset=utf-8" });
        return void res.end(text);
      }
      if (isService && req.method === "POST") return soap(req, res);
      res.writeHead(404, { "content-type": "text/html" });
      res.end(iisErrorPage(404, "File or directory not found."));
    })().catch((err: unknown) => {
      sim.log(`sitelink-simulator: request failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/html" });
      res.end(iisErrorPage(500, "Internal server error."));
    });
  });
  server.on("close", () => {
    for (const r of hanging) r.destroy();
  });
  return server;
}

/** Starts the simulator (in-process for tests, or from main.ts). */
export async function startSiteLinkSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
  const sim = new SiteLinkSimulator(options);
  const control = new SimControl(sim);
  const host = options.host ?? "127.0.0.1";
  let origin = "";
  const reshapes: AnswerReshape[] = [];
  const server = createSimulatorServer(sim, control, () => origin, host, reshapes);
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_PORT, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://${host}:${port}`;
  return {
    url: `${origin}${sim.contract.path}`,
    origin,
    port,
    control,
    sim,
    reshapeAnswers: (rule) => void reshapes.push(rule),
    clearReshapes: () => void (reshapes.length = 0),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
