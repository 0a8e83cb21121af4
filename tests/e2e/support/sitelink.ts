/**
 * The SiteLink location of the browser tests: a second server (scripts/e2e-sitelink-server.ts,
 * started by playwright.config.ts) whose Lumberton is connected to the SiteLink simulator, and the
 * simulator's control API (/__sim/, never part of the SOAP surface) to read what SiteLink holds
 * and to inject faults.
 */
import { expect, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { loadContract } from "../../../sitelink-simulator/contract";
import { soapCall } from "../../../sitelink-simulator/test-client";
import { testHook } from "./hooks";
import { rentUpToCard } from "./portal";
import { ownServers } from "./servers";

/** This worker's SiteLink server and simulator (tests/e2e/support/servers.ts). */
export const SITELINK_BASE_URL = ownServers().sitelinkBaseURL;
export const SIM_URL = ownServers().simURL;
export const SITE = "L001";
/** Jacksonville: no SiteLink processor, our gateway charges cards and SiteLink records the payment (option B). */
export const SITE_B = "L002";

/** These specs run in the desktop js and no-js projects only (the server is the same for any viewport). */
export function sitelinkProject(testInfo: TestInfo): boolean {
  return testInfo.project.name === "js" || testInfo.project.name === "no-js";
}

async function sim<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${SIM_URL}/__sim/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`simulator ${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

interface SimCall {
  seq: number;
  operation: string | null;
  params: Record<string, string>;
  retCode: number | null;
  fault: string | null;
  processed: boolean;
}

interface SimSite {
  units: Array<{ UnitID: number; sUnitName: string; rented: boolean; rentable: boolean; waitingListReserved: boolean; excludeFromWebsite: boolean; deleted: string | null }>;
  tenants: Array<{ TenantID: number; accessCode: string; fields: Record<string, string | boolean | null> }>;
  ledgers: Array<{ LedgerID: number; TenantID: number; UnitID: number; accessCode: string }>;
  payments: Array<{ LedgerID: number; amount: number; payMethod: number; checkNumber: string | null }>;
}

export const simSite = (code = SITE) => sim<SimSite>("GET", `sites/${code}`);
export const simCalls = (operation: string, code = SITE) => sim<SimCall[]>("GET", `calls?operation=${encodeURIComponent(operation)}&location=${code}`);
/** A tenant created at the office with a web password, renting the unit (what office sign-in proves against). */
export const addOfficeTenant = (input: { firstName: string; lastName: string; email: string; webPassword: string; unitId: number }, code = SITE) =>
  sim<{ TenantID: number; accessCode: string; LedgerID: number }>("POST", `sites/${code}/tenants`, input);
export const addFault = (rule: { operation: string; kind: string; times?: number; retCode?: number; retMsg?: string }) => sim("POST", "faults", rule);
export const clearFaults = () => sim("DELETE", "faults");
export const setUnitStatus = (unitId: number, status: string) => sim("POST", `sites/${SITE}/units/${unitId}/status`, { status });

/**
 * The simulator's readings of what the sources leave open (issue 20, decision 180): `payMethod`
 * "lsetup" (iPayMethod 1 card, 2 cash, 3 check; 0 answers -2) or "manual" (0 card, 1 check, 2 cash),
 * `successCode` "id" or "zero" (ScheduleMoveOut, TenantUpdate_v3, PaymentSimple*WithSource).
 */
type SimReadings = { payMethod: "lsetup" | "manual"; successCode: "id" | "zero" };
export const DEFAULT_READINGS: SimReadings = { payMethod: "lsetup", successCode: "id" };
/** Our pay-method ids (sitelink_sites.pay_method_ids, decision 181) that match each payMethod reading. */
const PAY_METHOD_IDS = { lsetup: { card: 1, cash: 2, check: 3 }, manual: { card: 0, cash: 2, check: 1 } } as const;
const setReadings = (readings: Partial<SimReadings>, code = SITE) => sim<{ readings: SimReadings }>("PATCH", `sites/${code}`, { readings });

/**
 * Lumberton's site answers by `readings` and our settings carry the matching pay-method ids (the
 * server forgets its remembered adapter, so the next call reads them). Put back with
 * `useReadings(request, DEFAULT_READINGS)`.
 */
export async function useReadings(request: APIRequestContext, readings: SimReadings): Promise<void> {
  await setReadings(readings);
  await testHook(request, "setSiteLinkPayMethodIds", { locationSlug: LUMBERTON, payMethodIds: PAY_METHOD_IDS[readings.payMethod] });
}

const LUMBERTON = "lumberton-nc-28358";

/** The card form of the rental and portal pay pages (a good test card unless another is given). */
export async function fillCard(page: Page, name: string, number = "4242 4242 4242 4242") {
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry month").selectOption("12");
  await page.getByLabel("Expiry year").selectOption(String(new Date().getFullYear() + 2));
  await page.getByLabel("Security code (CVV)").fill("123");
  await page.getByLabel("Name on card").fill(name);
}

/**
 * A visitor's rental of Lumberton's 10' x 10' Drive-Up in SiteLink, as Grace Hopper with a portal
 * password, paid by card, up to the confirmation; returns the gate code shown.
 */
export async function rentAtLumberton(page: Page, request: APIRequestContext, account: { email: string; password: string }): Promise<string> {
  const html = await (await request.get(`/locations/${LUMBERTON}/units/10x10-drive-up`)).text();
  const rentPath = /href="(\/rent\/\d+)"/.exec(html)?.[1];
  expect(rentPath, "a Rent link on the SiteLink 10' x 10' Drive-Up page").toBeTruthy();
  await rentUpToCard(page, rentPath!, account);
  await fillCard(page, "Grace Hopper");
  await page.getByRole("button", { name: /^Pay \$[\d,.]+ and rent$/ }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Your rental is complete");
  return (await page.getByTestId("gate-code").innerText()).trim();
}

/** The last call the adapter made of an operation (the simulator's call log). */
export async function lastCall(operation: string, code = SITE): Promise<SimCall> {
  const calls = await simCalls(operation, code);
  const call = calls.at(-1);
  if (!call) throw new Error(`no ${operation} call in the simulator's log`);
  return call;
}

/**
 * The unit held for the visitor: the adapter checks it in SiteLink (UnitsInformationByUnitID) when
 * it holds it and again before paying.
 */
async function heldUnitId(): Promise<number> {
  return Number((await lastCall("UnitsInformationByUnitID")).params.UnitID);
}

/**
 * SiteLink's own answer for the held unit: the adapter's last MoveInCostRetrieveWithDiscount_v4
 * parameters (move-in date, plan, channel), asked again over SOAP for that unit, the rows' dcTotal
 * summed in cents.
 */
export async function siteLinkMoveInCost(): Promise<{ total: number; unitId: number }> {
  const call = await lastCall("MoveInCostRetrieveWithDiscount_v4");
  const unitId = await heldUnitId();
  const auth = new Set(["sCorpCode", "sLocationCode", "sCorpUserName", "sCorpPassword"]);
  const params = Object.fromEntries(Object.entries(call.params).filter(([k]) => !auth.has(k)));
  params.iUnitID = String(unitId);
  const answer = await soapCall(`${SIM_URL}${loadContract().path}`, "MoveInCostRetrieveWithDiscount_v4", params, { location: SITE });
  const rows = answer.tables.Table ?? [];
  if (rows.length === 0) throw new Error(`MoveInCostRetrieveWithDiscount_v4 answered no rows: ${answer.text.slice(0, 300)}`);
  return { total: rows.reduce((s, r) => s + Math.round(Number(r.dcTotal) * 100), 0), unitId };
}

export function dollars(cents: number): string {
  return `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
