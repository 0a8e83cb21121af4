/**
 * The Twilio fake against the real `twilio` package (decision 492): the app's provider
 * (app/platform/texts/twilio.server.ts) sends through it over HTTP; its webhooks arrive signed so that
 * the package's own validateRequest accepts them; Twilio's errors come back as the package reports them.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import twilio from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTwilioTexts } from "../app/platform/texts/twilio.server";
import { startTwilioFake, type RunningTwilioFake } from "./index";

const NUMBER = "+19105550100";
const PHONE = "+19105550199";
let fake: RunningTwilioFake;
let receiver: http.Server;
let receiverUrl: string;
const received: Array<{ path: string; params: Record<string, string>; signature: string }> = [];
let answer = "<Response/>";

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      received.push({ path: req.url ?? "", params: Object.fromEntries(new URLSearchParams(raw)), signature: String(req.headers["x-twilio-signature"] ?? "") });
      res.writeHead(200, { "Content-Type": "text/xml" }).end(answer);
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  fake = await startTwilioFake({ port: 0, numbers: [{ number: NUMBER, smsUrl: `${receiverUrl}/inbound` }] });
});
afterAll(async () => {
  await fake?.close();
  await new Promise((r) => receiver?.close(r));
});

const provider = () => createTwilioTexts({ accountSid: fake.accountSid, authToken: fake.authToken, apiBase: fake.url });

describe("the Twilio fake", () => {
  it("takes a text from the twilio package, then reports sent and delivered to its StatusCallback, signed for validateRequest", async () => {
    const r = await provider().send({ from: NUMBER, to: PHONE, body: "Hello", statusCallback: `${receiverUrl}/status?x=1` });
    expect(r).toMatchObject({ outcome: "accepted", status: "queued" });
    await fake.control.settled();
    const callbacks = received.filter((c) => c.path === "/status?x=1");
    expect(callbacks.map((c) => c.params.MessageStatus)).toEqual(["sent", "delivered"]);
    for (const c of callbacks) expect(twilio.validateRequest(fake.authToken, c.signature, `${receiverUrl}/status?x=1`, c.params)).toBe(true);
    expect(twilio.validateRequest("another-token-0000", callbacks[0]!.signature, `${receiverUrl}/status?x=1`, callbacks[0]!.params)).toBe(false);
    expect(fake.control.messages().find((m) => r.outcome === "accepted" && m.sid === r.sid)).toMatchObject({ status: "delivered", body: "Hello", from: NUMBER, to: PHONE });
  });

  it("answers Twilio's errors: a number not the account's (21606), a bad To (21211), wrong credentials (20003)", async () => {
    expect(await provider().send({ from: "+19105550111", to: PHONE, body: "x", statusCallback: `${receiverUrl}/s` })).toMatchObject({ outcome: "refused", code: "21606" });
    expect(await provider().send({ from: NUMBER, to: "555", body: "x", statusCallback: `${receiverUrl}/s` })).toMatchObject({ outcome: "refused", code: "21211" });
    const wrong = createTwilioTexts({ accountSid: fake.accountSid, authToken: "not-the-token-0000", apiBase: fake.url });
    expect(await wrong.send({ from: NUMBER, to: PHONE, body: "x", statusCallback: `${receiverUrl}/s` })).toMatchObject({ outcome: "refused", code: "20003" });
  });

  it("posts an inbound text to the number's webhook, sends the TwiML reply back, and honours STOP (21610) until START", async () => {
    answer = provider().replyDocument("You are unsubscribed.").body;
    const out = await fake.control.inbound({ from: PHONE, to: NUMBER, body: "STOP" });
    const posted = received.at(-1)!;
    expect(posted).toMatchObject({ path: "/inbound", params: { From: PHONE, To: NUMBER, Body: "STOP", SmsStatus: "received" } });
    expect(twilio.validateRequest(fake.authToken, posted.signature, `${receiverUrl}/inbound`, posted.params)).toBe(true);
    expect(out.reply).toMatchObject({ body: "You are unsubscribed.", from: NUMBER, to: PHONE, direction: "outbound-reply" });
    expect(await provider().send({ from: NUMBER, to: PHONE, body: "x", statusCallback: `${receiverUrl}/s` })).toMatchObject({ outcome: "refused", code: "21610" });
    answer = "<Response/>";
    await fake.control.inbound({ from: PHONE, to: NUMBER, body: "start" });
    expect(await provider().send({ from: NUMBER, to: PHONE, body: "x", statusCallback: `${receiverUrl}/s` })).toMatchObject({ outcome: "accepted" });
    await fake.control.settled();
  });

  it("a request that times out is reported as unknown (not refused): it may have gone", async () => {
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const p = createTwilioTexts({ accountSid: fake.accountSid, authToken: fake.authToken, apiBase: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, timeoutMs: 200 });
    expect(await p.send({ from: NUMBER, to: PHONE, body: "x", statusCallback: `${receiverUrl}/s` })).toMatchObject({ outcome: "unknown" });
    silent.closeAllConnections();
    await new Promise((r) => silent.close(r));
  });
});
