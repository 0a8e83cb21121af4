/**
 * A local stand-in for Twilio's Programmable Messaging API (issue 40, decision 492), which the real
 * `twilio` package talks to over HTTP (the app points it here with TWILIO_API_BASE), with Twilio's
 * webhooks back to the app, signed as Twilio signs them:
 * - `POST /2010-04-01/Accounts/{AccountSid}/Messages.json` (Basic auth with the account SID and auth
 *   token; form fields To, From, Body, StatusCallback) answers 201 with the Message resource (status
 *   `queued`), or Twilio's error body and code: 20003 (authentication), 21602 (no body), 21603/21604
 *   (no From/To), 21211 (a To that is not E.164), 21606 (a From the account does not own), 21610 (a
 *   recipient who replied STOP to that number), 21617 (a body over 1,600 characters);
 * - `GET .../Messages/{Sid}.json` and `GET .../Messages.json` (To, From filters);
 * - after a send, status callbacks to its StatusCallback: `sent`, then `delivered` (or `undelivered`
 *   with ErrorCode 30003 for a number set unreachable);
 * - an inbound text (the control's `inbound`) is posted to the receiving number's messaging webhook
 *   (its SmsUrl) with Twilio's fields; a TwiML `<Message>` in the answer is sent back as a reply.
 *   STOP (and its synonyms) and START are honoured as Twilio's default opt-out handling does.
 * Every webhook is a form POST with `X-Twilio-Signature` over the URL and fields (signature.ts).
 * Control (tests, and `npm run twilio:fake`): `/__fake/messages`, `/__fake/inbound`, `/__fake/numbers`,
 * `/__fake/reset`, `/__fake/deliveries`; in process, `control`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { XMLParser } from "fast-xml-parser";
import { errorBody, messageOf, optKeyword, rfc2822, type FakeMessage } from "./messages";
import { twilioSignature } from "./signature";

export const DEFAULT_PORT = 13111;
const DEFAULT_ACCOUNT_SID = "AC00000000000000000000000000000000";
const DEFAULT_AUTH_TOKEN = "gatehouse_fake_auth_token_000000";

interface FakeNumber {
  /** E.164. */
  number: string;
  /** Where texts to this number are posted (the number's "A message comes in" webhook). */
  smsUrl: string | null;
}

interface Delivery {
  url: string;
  kind: "status" | "inbound";
  messageSid: string;
  /** HTTP status, 0 when unreachable. */
  status: number;
  at: string;
}

interface TwilioFakeOptions {
  port?: number;
  host?: string;
  accountSid?: string;
  authToken?: string;
  numbers?: FakeNumber[];
  log?: (line: string) => void;
}

export interface TwilioFakeControl {
  messages(): FakeMessage[];
  deliveries(): Delivery[];
  /** Adds (or changes) a number the account owns. */
  addNumber(number: string, smsUrl?: string | null): void;
  /** Texts to this number are `undelivered` (ErrorCode 30003, unreachable handset). */
  setUnreachable(number: string): void;
  /** A text from a phone (`from`) to one of the account's numbers (`to`): delivered to its webhook; the reply (if any) is sent back. */
  inbound(input: { from: string; to: string; body: string }): Promise<{ status: number; reply: FakeMessage | null; message: FakeMessage }>;
  /** Whether `phone` has opted out of texts from `number`. */
  optedOut(phone: string, number: string): boolean;
  /** Resolves when every webhook started so far has been delivered (and answered). */
  settled(): Promise<void>;
  reset(): void;
}

export interface RunningTwilioFake {
  url: string;
  port: number;
  accountSid: string;
  authToken: string;
  control: TwilioFakeControl;
  close(): Promise<void>;
}

const E164 = /^\+[1-9]\d{7,14}$/;

export async function startTwilioFake(options: TwilioFakeOptions = {}): Promise<RunningTwilioFake> {
  const accountSid = options.accountSid ?? DEFAULT_ACCOUNT_SID;
  const authToken = options.authToken ?? DEFAULT_AUTH_TOKEN;
  const log = options.log ?? (() => {});
  const numbers = new Map<string, FakeNumber>((options.numbers ?? []).map((n) => [n.number, n]));
  const messages: FakeMessage[] = [];
  const deliveries: Delivery[] = [];
  const unreachable = new Set<string>();
  /** `${phone} ${number}` pairs that replied STOP. */
  const stopped = new Set<string>();
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };

  async function post(url: string, params: Record<string, string>, kind: Delivery["kind"], messageSid: string): Promise<{ status: number; text: string }> {
    let status = 0;
    let text = "";
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          "User-Agent": "TwilioProxy/1.1",
          "X-Twilio-Signature": twilioSignature(authToken, url, params),
          "I-Twilio-Idempotency-Token": `${messageSid}-${kind}-${params.MessageStatus ?? params.SmsStatus ?? ""}`,
        },
        body: new URLSearchParams(params).toString(),
        signal: AbortSignal.timeout(15_000),
      });
      status = res.status;
      text = await res.text();
    } catch {
      status = 0;
    }
    deliveries.push({ url, kind, messageSid, status, at: new Date().toISOString() });
    log(`webhook ${kind} ${messageSid} → ${url} ${status || "unreachable"}`);
    return { status, text };
  }

  function setStatus(m: FakeMessage, status: string, error?: { code: number; message: string }) {
    m.status = status;
    m.date_updated = rfc2822(new Date());
    if (status === "sent") m.date_sent = m.date_updated;
    if (error) {
      m.error_code = error.code;
      m.error_message = error.message;
    }
  }

  /** Twilio's progress of an outbound text, each step reported to its StatusCallback in order. */
  async function progress(m: FakeMessage): Promise<void> {
    const steps: Array<[string, { code: number; message: string }?]> = unreachable.has(m.to)
      ? [["sent"], ["undelivered", { code: 30003, message: "Unreachable destination handset" }]]
      : [["sent"], ["delivered"]];
    for (const [status, error] of steps) {
      await new Promise((r) => setImmediate(r));
      setStatus(m, status, error);
      if (!m.status_callback) continue;
      const params: Record<string, string> = {
        AccountSid: accountSid,
        ApiVersion: "2010-04-01",
        From: m.from,
        To: m.to,
        MessageSid: m.sid,
        SmsSid: m.sid,
        MessageStatus: status,
        SmsStatus: status,
        ...(error ? { ErrorCode: String(error.code) } : {}),
      };
      await post(m.status_callback, params, "status", m.sid);
    }
  }

  function create(fields: URLSearchParams, direction: FakeMessage["direction"] = "outbound-api"): { status: number; body: unknown } {
    const to = fields.get("To")?.trim() ?? "";
    const from = fields.get("From")?.trim() ?? "";
    const body = fields.get("Body") ?? "";
    if (!to) return { status: 400, body: errorBody(400, 21604, "A 'To' phone number is required.") };
    if (!from) return { status: 400, body: errorBody(400, 21603, "A 'From' phone number is required.") };
    if (!body) return { status: 400, body: errorBody(400, 21602, "Message body is required.") };
    if (body.length > 1600) return { status: 400, body: errorBody(400, 21617, "The concatenated message body exceeds the 1600 character limit.") };
    if (!E164.test(to)) return { status: 400, body: errorBody(400, 21211, `The 'To' number ${to} is not a valid phone number.`) };
    if (!numbers.has(from)) return { status: 400, body: errorBody(400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`) };
    if (stopped.has(`${to} ${from}`)) return { status: 400, body: errorBody(400, 21610, "Attempt to send to unsubscribed recipient") };
    const m = messageOf({ accountSid, from, to, body, direction, status: "queued", statusCallback: fields.get("StatusCallback"), now: new Date() });
    messages.push(m);
    log(`message ${m.sid} ${from} → ${to}: ${JSON.stringify(body)}`);
    void track(progress(m));
    return { status: 201, body: m };
  }

  async function inbound(input: { from: string; to: string; body: string }) {
    const number = numbers.get(input.to);
    if (!number) throw new Error(`${input.to} is not one of the fake account's numbers (addNumber first)`);
    const m = messageOf({ accountSid, from: input.from, to: input.to, body: input.body, direction: "inbound", status: "received", now: new Date() });
    messages.push(m);
    const keyword = optKeyword(input.body);
    if (keyword === "out") stopped.add(`${input.from} ${input.to}`);
    if (keyword === "in") stopped.delete(`${input.from} ${input.to}`);
    if (!number.smsUrl) return { status: 0, reply: null, message: m };
    const params: Record<string, string> = {
      ToCountry: "US",
      ToState: "",
      SmsMessageSid: m.sid,
      NumMedia: "0",
      ToCity: "",
      FromZip: "",
      SmsSid: m.sid,
      FromState: "",
      SmsStatus: "received",
      FromCity: "",
      Body: input.body,
      FromCountry: "US",
      To: input.to,
      ToZip: "",
      NumSegments: m.num_segments,
      MessageSid: m.sid,
      AccountSid: accountSid,
      From: input.from,
      ApiVersion: "2010-04-01",
    };
    const answer = await track(post(number.smsUrl, params, "inbound", m.sid));
    let reply: FakeMessage | null = null;
    const said = answer.status === 200 ? twimlMessage(answer.text) : null;
    if (said) {
      // Twilio sends the TwiML reply even to a STOP (as the opt-out confirmation); a later send is refused.
      reply = messageOf({ accountSid, from: input.to, to: input.from, body: said, direction: "outbound-reply", status: "queued", now: new Date() });
      messages.push(reply);
      void track(progress(reply));
    }
    return { status: answer.status, reply, message: m };
  }

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      log(`error ${String(error)}`);
      if (!res.headersSent) send(res, 500, errorBody(500, 20500, "Internal Server Error"));
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    const raw = await readBody(req);
    if (url.pathname.startsWith("/__fake/")) return controlRoute(req.method ?? "GET", url, raw, res);
    const m = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages(?:\/([^/]+))?\.json$/.exec(url.pathname);
    if (!m) return send(res, 404, errorBody(404, 20404, `The requested resource ${url.pathname} was not found`));
    if (!authorised(req.headers.authorization) || m[1] !== accountSid) return send(res, 401, errorBody(401, 20003, "Authenticate"));
    if (req.method === "POST" && !m[2]) {
      const type = req.headers["content-type"] ?? "";
      if (!/^application\/x-www-form-urlencoded/i.test(type)) return send(res, 400, errorBody(400, 20001, "Content-Type must be application/x-www-form-urlencoded"));
      const out = create(new URLSearchParams(raw));
      return send(res, out.status, out.body);
    }
    if (req.method === "GET" && m[2]) {
      const found = messages.find((x) => x.sid === m[2]);
      return found ? send(res, 200, found) : send(res, 404, errorBody(404, 20404, `The requested resource ${url.pathname} was not found`));
    }
    if (req.method === "GET") {
      const to = url.searchParams.get("To");
      const from = url.searchParams.get("From");
      const list = messages.filter((x) => (!to || x.to === to) && (!from || x.from === from)).reverse();
      const page = url.pathname;
      return send(res, 200, { messages: list, end: Math.max(0, list.length - 1), first_page_uri: page, next_page_uri: null, page: 0, page_size: 50, previous_page_uri: null, start: 0, uri: page });
    }
    return send(res, 405, errorBody(405, 20004, "Method not allowed"));
  }

  function authorised(header: string | undefined): boolean {
    if (!header?.startsWith("Basic ")) return false;
    const [user, pass] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":");
    return user === accountSid && pass === authToken;
  }

  async function controlRoute(method: string, url: URL, raw: string, res: http.ServerResponse) {
    const json = raw ? (JSON.parse(raw) as Record<string, string>) : {};
    if (url.pathname === "/__fake/messages" && method === "GET") return send(res, 200, messages);
    if (url.pathname === "/__fake/deliveries" && method === "GET") return send(res, 200, deliveries);
    if (url.pathname === "/__fake/settled" && method === "POST") {
      await control.settled();
      return send(res, 200, { settled: true });
    }
    if (url.pathname === "/__fake/reset" && method === "POST") {
      control.reset();
      return send(res, 200, { reset: true });
    }
    if (url.pathname === "/__fake/numbers" && method === "POST") {
      control.addNumber(json.number ?? "", json.smsUrl ?? null);
      return send(res, 200, [...numbers.values()]);
    }
    if (url.pathname === "/__fake/inbound" && method === "POST") {
      const out = await inbound({ from: json.from ?? "", to: json.to ?? "", body: json.body ?? "" });
      return send(res, 200, out);
    }
    return send(res, 404, { error: "unknown control" });
  }

  const control: TwilioFakeControl = {
    messages: () => [...messages],
    deliveries: () => [...deliveries],
    addNumber(number, smsUrl = null) {
      numbers.set(number, { number, smsUrl });
    },
    setUnreachable(number) {
      unreachable.add(number);
    },
    inbound,
    optedOut: (phone, number) => stopped.has(`${phone} ${number}`),
    async settled() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    reset() {
      messages.length = 0;
      deliveries.length = 0;
      unreachable.clear();
      stopped.clear();
    },
  };

  await new Promise<void>((resolve) => server.listen(options.port ?? DEFAULT_PORT, options.host ?? "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    port,
    accountSid,
    authToken,
    control,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text), "Twilio-Request-Id": `RQ${Date.now().toString(16)}` });
  res.end(text);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The text of the first `<Message>` of a TwiML answer, or null. */
function twimlMessage(xml: string): string | null {
  try {
    const doc = new XMLParser({ ignoreAttributes: true, parseTagValue: false }).parse(xml) as { Response?: { Message?: unknown } };
    const m = doc.Response?.Message;
    const first = Array.isArray(m) ? m[0] : m;
    if (typeof first === "string") return first;
    if (first && typeof first === "object" && "Body" in first) return String((first as { Body: unknown }).Body);
    return null;
  } catch {
    return null;
  }
}
