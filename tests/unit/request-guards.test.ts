import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyGuard, collapseDoubleSlashes, hostGuard, requestTargetGuard } from "../../server/guards";
import { isAllowedHost, STRIPE_WEBHOOK_PATH } from "~/domain/web/request-rules";

/**
 * The request guards of server/app.ts on a plain Express app, over real HTTP: nothing reaches the
 * handler (which records what it saw) unless the guards let it.
 */
let server: http.Server;
let port: number;
const seen: Array<{ method: string; url: string; bodyBytes: number }> = [];

beforeAll(async () => {
  const app = express();
  app.use(requestTargetGuard);
  app.use(collapseDoubleSlashes);
  app.use(
    hostGuard({
      isAllowed: (host) => isAllowedHost(host, { domain: "www.gatehousestorage.example", stagingDomain: "staging.gatehousestorage.example", production: false }),
      canonicalOrigin: () => "https://www.gatehousestorage.example",
      oldDomainRedirect: async (host) => (host.replace(/^www\./, "") === "lumbertonselfstorage.example" ? "https://www.gatehousestorage.example/locations/lumberton-nc-28358" : null),
    }),
  );
  app.use(bodyGuard({ jsonOnly: (path) => path === STRIPE_WEBHOOK_PATH }));
  app.use((req, res) => {
    seen.push({ method: req.method, url: req.originalUrl, bodyBytes: res.locals.body?.length ?? -1 });
    res.type("text").send("handled");
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One raw HTTP request (node:http lets us set Host and stream a chunked body). */
function send(options: { method?: string; path: string; headers?: Record<string, string | number>; body?: Buffer | string; chunks?: { size: number; count: number } }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path, headers: { Host: `localhost:${port}`, ...options.headers } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e)));
    if (options.chunks) {
      const chunk = Buffer.alloc(options.chunks.size, "a");
      let i = 0;
      const write = () => {
        while (i < options.chunks!.count) {
          i++;
          if (req.destroyed) return;
          if (!req.write(chunk)) return void req.once("drain", write);
        }
        req.end();
      };
      write();
    } else {
      req.end(options.body);
    }
  });
}

const form = { "Content-Type": "application/x-www-form-urlencoded" };

describe("body size (413 before the body is read)", () => {
  it("refuses a declared 30 MB form at once, without reading it", async () => {
    const before = seen.length;
    const started = Date.now();
    // Only the headers are sent: the answer cannot depend on reading 30 MB.
    const answer = await new Promise<Answer>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/customer-portal/login", headers: { ...form, "Content-Length": 30 * 1024 * 1024 } }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      });
      req.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e)));
      req.write("csrf=x&");
      req.flushHeaders();
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toContain("Form too large");
    expect(Date.now() - started).toBeLessThan(2000);
    expect(seen.length).toBe(before);
  });

  it("counts a chunked body and refuses it once it passes the limit", async () => {
    const before = seen.length;
    const answer = await send({ method: "POST", path: "/customer-portal/login", headers: { ...form, "Transfer-Encoding": "chunked" }, chunks: { size: 64 * 1024, count: 480 } });
    expect(answer.status).toBe(413);
    expect(seen.length).toBe(before);
  });

  it("lets a small form through with its body, and the contact form a bigger one", async () => {
    const small = await send({ method: "POST", path: "/customer-portal/login", headers: form, body: "email=a%40b.c&password=x" });
    expect(small.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ method: "POST", bodyBytes: 24 });
    const forty = "message=" + "a".repeat(40 * 1024);
    expect((await send({ method: "POST", path: "/customer-portal/login", headers: form, body: forty })).status).toBe(413);
    expect((await send({ method: "POST", path: "/contact", headers: form, body: forty })).status).toBe(200);
    expect((await send({ method: "POST", path: "/contact", headers: form, body: "m=" + "a".repeat(70 * 1024) })).status).toBe(413);
  });
});

describe("methods and body types", () => {
  it.each(["PUT", "DELETE", "TRACE", "PATCH", "OPTIONS"])("%s answers 405 with Allow", async (method) => {
    const r = await send({ method, path: "/faqs", headers: form, body: method === "TRACE" ? undefined : "a=b" });
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe("GET, HEAD, POST");
    expect(r.headers["content-type"]).toMatch(/text\/html/);
  });

  it.each([
    ["application/json", '{"email":"a@b.c"}', 415],
    ["text/plain", "email=a@b.c", 415],
    ["application/xml", "<a/>", 415],
  ])("a POST of %s answers %s", async (type, body, status) => {
    const r = await send({ method: "POST", path: "/customer-portal/login", headers: { "Content-Type": type }, body });
    expect(r.status).toBe(status);
  });

  it("Stripe's webhook path takes JSON (as Stripe sends it) within the same limit, and nothing else; no other path takes JSON", async () => {
    const event = JSON.stringify({ id: "evt_1", object: "event" }, null, 2);
    const json = { "Content-Type": "application/json; charset=utf-8" };
    const taken = await send({ method: "POST", path: STRIPE_WEBHOOK_PATH, headers: json, body: event });
    expect(taken.status).toBe(200);
    expect(seen.at(-1)).toMatchObject({ method: "POST", url: STRIPE_WEBHOOK_PATH, bodyBytes: Buffer.byteLength(event) });
    expect((await send({ method: "POST", path: STRIPE_WEBHOOK_PATH, headers: form, body: "a=b" })).status).toBe(415);
    expect((await send({ method: "POST", path: STRIPE_WEBHOOK_PATH, headers: { "Content-Type": "text/plain" }, body: event })).status).toBe(415);
    expect((await send({ method: "POST", path: STRIPE_WEBHOOK_PATH, headers: json, body: `"${"a".repeat(17 * 1024)}"` })).status).toBe(413);
    expect((await send({ method: "POST", path: `${STRIPE_WEBHOOK_PATH}/x`, headers: json, body: event })).status).toBe(415);
    expect((await send({ method: "POST", path: "/webhooks/Stripe", headers: json, body: event })).status).toBe(415);
  });

  it("a POST with no body answers 400", async () => {
    const r = await send({ method: "POST", path: "/contact", headers: { "Content-Length": 0 } });
    expect(r.status).toBe(400);
    expect(r.body).toContain("arrived empty");
  });

  it("a bad Content-Length answers 400", async () => {
    // node:http refuses to send a malformed Content-Length, so this one is written by hand.
    const net = await import("node:net");
    const raw = await new Promise<string>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => s.write(`POST /contact HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: abc\r\n\r\n`));
      let out = "";
      s.on("data", (d) => (out += d));
      s.on("end", () => resolve(out));
      s.on("error", () => resolve(out));
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
  });
});

describe("hosts", () => {
  it("answers its own hosts", async () => {
    for (const host of ["www.gatehousestorage.example", "staging.gatehousestorage.example", `localhost:${port}`, "127.0.0.1:1", "[::1]:3000"]) {
      expect((await send({ path: "/faqs", headers: { Host: host } })).status, host).toBe(200);
    }
  });

  it("sends an unknown Host to the same path on the canonical origin", async () => {
    const r = await send({ path: "/customer-portal/forgot-password?x=1", headers: { Host: "evil.example" } });
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe("https://www.gatehousestorage.example/customer-portal/forgot-password?x=1");
  });

  it("treats an unknown X-Forwarded-Host the same way", async () => {
    const r = await send({ path: "/faqs", headers: { "X-Forwarded-Host": "evil.example" } });
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe("https://www.gatehousestorage.example/faqs");
  });

  it("refuses a POST to an unknown host with 400 (nothing is handled)", async () => {
    const before = seen.length;
    const r = await send({ method: "POST", path: "/customer-portal/forgot-password", headers: { Host: "evil.example", ...form }, body: "email=a%40b.c" });
    expect(r.status).toBe(400);
    const r2 = await send({ method: "POST", path: "/customer-portal/forgot-password", headers: { "X-Forwarded-Host": "evil.example", ...form }, body: "email=a%40b.c" });
    expect(r2.status).toBe(400);
    expect(seen.length).toBe(before);
  });

  it("keeps the old domains' 301s", async () => {
    const r = await send({ path: "/", headers: { Host: "www.lumbertonselfstorage.example" } });
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe("https://www.gatehousestorage.example/locations/lumberton-nc-28358");
  });

  it("refuses malformed hosts", async () => {
    expect((await send({ path: "/faqs", headers: { Host: "evil.example@localhost" } })).status).toBe(301);
  });
});

describe("doubled slashes", () => {
  it.each([
    ["//faq", "/faq"],
    ["//faqs?x=1", "/faqs?x=1"],
    ["/locations//lumberton-nc-28358", "/locations/lumberton-nc-28358"],
    ["///evil.example/", "/evil.example/"],
  ])("%s → 301 %s", async (path, location) => {
    const r = await send({ path });
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe(location);
    // Only a doubled slash inside the path is cached; a path that starts like a scheme-relative link is not (issue 19).
    expect(r.headers["cache-control"]).toBe(path.startsWith("//") ? "no-store" : "public, max-age=3600");
  });
});

describe("request targets that are not a path (issue 19)", () => {
  it.each([
    ["GET", "*"],
    ["HEAD", "*"],
    ["OPTIONS", "*"],
    ["GET", "ftp://localhost/faqs"],
    ["GET", "http://user:pw@localhost/faqs"],
  ])("%s %s → 400, nothing handled, never cached", async (method, path) => {
    const before = seen.length;
    const r = await send({ method, path });
    expect(r.status).toBe(400);
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(r.headers.location).toBeUndefined();
    expect(seen.length).toBe(before);
  });

  it.each(["faqs", "localhost:1"])("GET %s → 400 (Node's parser refuses it before the app)", async (path) => {
    const before = seen.length;
    const r = await send({ path });
    expect(r.status).toBe(400);
    expect(r.headers.location).toBeUndefined();
    expect(seen.length).toBe(before);
  });

  it("an absolute-form POST is handled as its path, its authority as the Host", async () => {
    const before = seen.length;
    const r = await send({ method: "POST", path: `http://localhost:${port}/customer-portal/login?x=1`, headers: form, body: "email=a%40b.example" });
    expect(r.status).toBe(200);
    expect(seen.slice(before)).toEqual([{ method: "POST", url: "/customer-portal/login?x=1", bodyBytes: 19 }]);
  });

  it("an absolute-form GET with doubled slashes stays on the site: never http:/evil.example", async () => {
    const own = await send({ path: `http://localhost:${port}//evil.example/x?y=1` });
    expect(own.status).toBe(301);
    expect(own.headers.location).toBe("/evil.example/x?y=1");
    expect(own.headers["cache-control"]).toBe("no-store");
    // Another authority: a path on the same authority (the doubled slash collapses first), then the
    // host check sends it to the canonical origin, not stored anywhere.
    const other = await send({ path: "http://evil.example//x" });
    expect(other.status).toBe(301);
    expect(other.headers.location).toBe("/x");
    const next = await send({ path: "http://evil.example/x" });
    expect(next.status).toBe(301);
    expect(next.headers.location).toBe("https://www.gatehousestorage.example/x");
    expect(next.headers["cache-control"]).toBe("no-store");
  });
});
