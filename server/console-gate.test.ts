import express from "express";
import type { AddressInfo } from "node:net";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleGate, withoutCookie } from "./console-gate";

/** The gate on a plain Express app over real HTTP (raw requests: the Host header is ours to choose). */
let server: http.Server;
let port = 0;
const seen: Array<{ host: string; cookie: string | undefined }> = [];

beforeAll(async () => {
  const app = express();
  app.use(
    consoleGate({
      consoleOrigin: () => "https://admin.example.com",
      publicOrigin: () => "https://www.example.com",
      isConsoleHost: (host) => (host ?? "").startsWith("admin.example.com"),
      staffCookie: "gh_staff",
    }),
  );
  app.use((req, res) => {
    seen.push({ host: req.headers.host ?? "", cookie: req.headers.cookie });
    res.send(`page ${req.originalUrl}`);
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function send(method: string, path: string, headers: Record<string, string>): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the console gate (decision 450)", () => {
  it("sends /admin on the public host to the console's configured origin, refuses its forms, and never passes on the staff cookie", async () => {
    const r = await send("GET", "/admin/staff?x=1", { Host: "www.example.com", Cookie: "__Host-gh_staff=abc" });
    expect(r).toMatchObject({ status: 302, location: "https://admin.example.com/admin/staff?x=1" });
    expect((await send("POST", "/admin/staff", { Host: "www.example.com" })).status).toBe(404);
    seen.length = 0;
    await send("GET", "/contact", { Host: "www.example.com", Cookie: "a=1; __Host-gh_staff=abc; gh_staff=def; b=2" });
    expect(seen[0]!.cookie).toBe("a=1; b=2");
  });

  it("serves only the console on its host: / to /admin, public paths to the public origin, other forms 404", async () => {
    expect(await send("GET", "/", { Host: "admin.example.com" })).toMatchObject({ status: 302, location: "/admin" });
    expect(await send("GET", "/contact?a=b", { Host: "admin.example.com" })).toMatchObject({ status: 302, location: "https://www.example.com/contact?a=b" });
    expect((await send("POST", "/contact", { Host: "admin.example.com" })).status).toBe(404);
    const own = await send("GET", "/admin/staff", { Host: "admin.example.com", "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty", Cookie: "__Host-gh_staff=abc" });
    expect(own).toMatchObject({ status: 200, body: "page /admin/staff" });
  });

  it("refuses what another site asks of the console, but a top-level navigation to a page", async () => {
    const fetched = await send("GET", "/admin/staff", { Host: "admin.example.com", "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty" });
    expect(fetched.status).toBe(403);
    expect(fetched.body).not.toContain("page /admin");
    expect((await send("POST", "/admin/staff", { Host: "admin.example.com", Origin: "https://www.example.com" })).status).toBe(403);
    expect((await send("GET", "/admin/staff", { Host: "admin.example.com", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" })).status).toBe(200);
  });

  it("takes only the staff cookie out of a Cookie header", () => {
    expect(withoutCookie("gh_staff=1", "gh_staff")).toBeUndefined();
    expect(withoutCookie("x_gh_staff=1; gh_staffy=2", "gh_staff")).toBe("x_gh_staff=1; gh_staffy=2");
    expect(withoutCookie(undefined, "gh_staff")).toBeUndefined();
  });
});
