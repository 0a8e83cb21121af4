// JavaScript per page (issue 10): opens each page that runs JavaScript in Chromium against a running
// built server, records every script the page loads (files, with their bytes as sent and gzipped as
// the server's compression sends them) and the inline scripts, and prints a table.
//
//   npx react-router build
//   PORT=3316 PGLITE_DIR=data/bench-js NODE_ENV=test E2E_HOOKS=1 node scripts/e2e-server.mjs &
//   BASE_URL=http://localhost:3316 node bench/js-weight.mjs
//
// The test hooks (E2E_HOOKS=1) create the signed-in tenant for the portal pages.
import { chromium } from "@playwright/test";
import { gzipSync } from "node:zlib";

const BASE = process.env.BASE_URL ?? "http://localhost:3316";
const PASSWORD = "weigh-pass1";

async function hook(intent, body = {}) {
  const res = await fetch(`${BASE}/__test/hooks`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ intent, ...body }) });
  if (!res.ok) throw new Error(`hook ${intent}: ${res.status} ${await res.text()}`);
  return res.json();
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
const context = await browser.newContext();
const page = await context.newPage();

async function weigh(path, label = path) {
  const files = new Map();
  const onResponse = async (response) => {
    if (response.request().resourceType() !== "script") return;
    try {
      const body = await response.body();
      files.set(new URL(response.url()).pathname, { raw: body.length, gzip: gzipSync(body).length });
    } catch {
      /* redirects have no body */
    }
  };
  page.on("response", onResponse);
  await page.goto(`${BASE}${path}`, { waitUntil: "networkidle" });
  page.off("response", onResponse);
  const inline = await page.evaluate(() =>
    [...document.querySelectorAll("script:not([src])")].filter((s) => s.type !== "application/ld+json").map((s) => s.textContent ?? ""),
  );
  const inlineRaw = inline.reduce((n, s) => n + Buffer.byteLength(s), 0);
  const inlineGzip = inline.length ? gzipSync(inline.join("\n")).length : 0;
  const list = [...files.values()];
  const row = {
    label,
    files: list.length,
    fileGzip: list.reduce((n, f) => n + f.gzip, 0),
    fileRaw: list.reduce((n, f) => n + f.raw, 0),
    inlineScripts: inline.length,
    inlineGzip,
    inlineRaw,
  };
  row.totalGzip = row.fileGzip + row.inlineGzip;
  return row;
}

await hook("clearRateLimits");
const unitTypeHtml = await (await fetch(`${BASE}/locations/lumberton-nc-28358/units/5x10-drive-up`)).text();
const rentPath = /href="(\/rent\/\d+)"/.exec(unitTypeHtml)?.[1];
const reservePath = /href="(\/reserve\/\d+)"/.exec(unitTypeHtml)?.[1];

const rows = [];
for (const p of ["/customer-portal/login", "/customer-portal/forgot-password", "/customer-portal/reset-password?token=x", "/contact"]) rows.push(await weigh(p));
if (rentPath) rows.push(await weigh(rentPath, "/rent/{id} (details step)"));
if (reservePath) rows.push(await weigh(reservePath, "/reserve/{id}"));

const email = `weigh-${Date.now()}@example.com`;
const t = await hook("createTenantWithLease", { email, password: PASSWORD });
await page.goto(`${BASE}/customer-portal/login`);
await page.getByLabel("Email address").fill(email);
await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
await page.getByRole("button", { name: "Sign in" }).click();
await page.waitForURL(`${BASE}/customer-portal`);
rows.push(await weigh("/customer-portal", "/customer-portal (dashboard)"));
for (const step of ["pay", "prepay", "autopay", "move-out"]) rows.push(await weigh(`/customer-portal/units/${t.leaseId}/${step}`, `/customer-portal/units/{id}/${step}`));
rows.push(await weigh("/customer-portal/profile"));
for (const p of ["/", "/locations/lumberton-nc-28358"]) rows.push(await weigh(p));

await browser.close();

const kb = (n) => (n / 1000).toFixed(1);
console.log("| Page | script files | files gzipped (raw) kB | inline scripts gzipped (raw) kB | total gzipped kB |");
console.log("|---|---:|---:|---:|---:|");
for (const r of rows) console.log(`| \`${r.label}\` | ${r.files} | ${kb(r.fileGzip)} (${kb(r.fileRaw)}) | ${kb(r.inlineGzip)} (${kb(r.inlineRaw)}) | ${kb(r.totalGzip)} |`);
if (process.env.JSON) console.log(JSON.stringify(rows));
