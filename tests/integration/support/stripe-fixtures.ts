/**
 * What the Stripe integration tests share (issue 25): a test database, the Stripe fake, optionally
 * the app over real HTTP with the fake delivering signed webhooks to its /webhooks/stripe, a tenant
 * with a lease signed in to the portal on the Stripe gateway, and the money as the fake holds it,
 * for checking it against what we recorded.
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { Database, DatabaseHandle } from "~/db/client.server";
import { ledgerEntries, payments, rentals } from "~/db/schema";
import { rentalCookieHeader } from "~/services/rental/record.server";
import { action as rentAction, loader as rentLoader } from "~/routes/rental/rent";
import { getCsrfToken } from "~/services/web/csrf.server";
import { createTenantWithLease } from "~/services/portal/demo-tenant.server";
import { createTenantSession } from "~/services/web/session.server";
import { now as clockNow } from "~/platform/clock.server";
import { setPaymentGatewayForTests } from "~/platform/payments/gateway.server";
import { createStripeClient, createStripeGateway, type StripeGatewayConfig } from "~/platform/payments/stripe.server";
import { accountStorage, portalLocations } from "~/services/portal/context.server";
import { addMonthsIso, localDate } from "~/domain/shared/calendar";
import { startStripeFake, type RunningStripeFake } from "../../../stripe-fake";
import { startAppServer, type AppServer } from "./app-server";
import { createTestDatabase } from "./db";
import { callRoute } from "./route-helpers";
import { startSmtpServer, type TestSmtpServer } from "./smtp-server";

export interface StripeTestbed {
  handle: DatabaseHandle;
  fake: RunningStripeFake;
  /** The app over HTTP (webhooks on), else null. */
  app: AppServer | null;
  /** The SMTP server the mail goes to (with `smtp`), else null. */
  smtp: TestSmtpServer | null;
  /** A Stripe gateway on the fake (options: a short timeout without retries, for a timeout test). */
  gateway(options?: Pick<StripeGatewayConfig, "timeoutMs" | "maxNetworkRetries">): ReturnType<typeof createStripeGateway>;
  close(): Promise<void>;
}

/**
 * Starts the database, the fake and (with `webhooks`) the app over HTTP with the fake's webhook
 * endpoint pointed at it under `STRIPE_WEBHOOK_SECRET`. `now`: the clock of the test (FAKE_NOW);
 * `smtp`: a local SMTP server receives the mail (SMTP_URL).
 */
export async function startStripeTestbed(options: { webhooks?: boolean; secret?: string; now?: Date; smtp?: boolean } = {}): Promise<StripeTestbed> {
  if (options.now) process.env.FAKE_NOW = options.now.toISOString();
  // Read once by env() on first use in the test file: set before anything reads it.
  const smtp = options.smtp ? await startSmtpServer() : null;
  if (smtp) process.env.SMTP_URL = `smtp://127.0.0.1:${smtp.port}`;
  const handle = await createTestDatabase();
  const fake = await startStripeFake({ port: 0 });
  let app: AppServer | null = null;
  if (options.webhooks) {
    const secret = options.secret ?? "whsec_gatehouse_integration_test";
    app = await startAppServer(handle.db);
    fake.control.addWebhookEndpoint(`${app.origin}/webhooks/stripe`, { secret });
    process.env.STRIPE_WEBHOOK_SECRET = secret;
  }
  return {
    handle,
    fake,
    app,
    smtp,
    gateway: (o = {}) => createStripeGateway({ secretKey: fake.secretKey, apiBase: fake.url, ...o }),
    async close() {
      if (options.now) delete process.env.FAKE_NOW;
      if (options.webhooks) delete process.env.STRIPE_WEBHOOK_SECRET;
      setPaymentGatewayForTests(null);
      await fake.close();
      await app?.close();
      await handle.close();
      if (smtp) {
        delete process.env.SMTP_URL;
        await smtp.close();
      }
    },
  };
}

export interface PortalTenant {
  tenantId: number;
  leaseId: string;
  email: string;
  /** The portal's session cookie (name=value). */
  session: string;
  /** A form post from the signed-in tenant with the CSRF token. */
  form(body: Record<string, string>): RequestInit;
}

/**
 * A tenant with a lease, signed in to the portal. The move-in goes through the test gateway (as if
 * made earlier); from then on the location's gateway is Stripe on the fake.
 */
export async function portalTenant(bed: StripeTestbed, options: { moveInDate?: string; prefix?: string } = {}): Promise<PortalTenant> {
  const now = clockNow();
  setPaymentGatewayForTests(null);
  const email = `${options.prefix ?? "stripe"}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const t = await createTenantWithLease(bed.handle.db, { email, password: "secret1", now, withInsurance: false, ...(options.moveInDate ? { moveInDate: options.moveInDate } : {}) });
  const session = (await createTenantSession(bed.handle.db, { tenantId: String(t.tenantId), now })).split(";")[0]!;
  setPaymentGatewayForTests(bed.gateway());
  const csrf = (await getCsrfToken(new Request("http://localhost/", { headers: { Cookie: session } }))).token;
  const form = (body: Record<string, string>): RequestInit => ({
    method: "POST",
    body: new URLSearchParams({ csrf, ...body }),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: session },
  });
  return { tenantId: t.tenantId, leaseId: String(t.leaseId), email, session, form };
}

type StripeObject = Record<string, unknown>;
const keyOf = (o: StripeObject) => (o.metadata as Record<string, string> | undefined)?.gatehouse_key;

/** The PaymentIntent the fake made under our key. */
export function intentOf(fake: RunningStripeFake, key: string): { id: string; status: string; amount: number } | undefined {
  return fake.control.objects("payment_intent").find((pi) => keyOf(pi) === key) as { id: string; status: string; amount: number } | undefined;
}

/** The ledger's payment lines of a payment. */
export function paymentLines(bed: StripeTestbed, paymentId: number) {
  return bed.handle.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.paymentId, paymentId), eq(ledgerEntries.kind, "payment")));
}

/** Where money stands now: the fake's PaymentIntents and our payments, for what happens after it. */
export interface MoneyMark {
  intents: Set<string>;
  lastPaymentId: number;
}

export async function markMoney(bed: StripeTestbed): Promise<MoneyMark> {
  const [last] = await bed.handle.db.select({ id: sql<number | null>`max(${payments.id})` }).from(payments);
  return { intents: new Set(bed.fake.control.objects("payment_intent").map((pi) => pi.id as string)), lastPaymentId: Number(last?.id ?? 0) };
}

/**
 * The money since `mark`: at the fake (succeeded PaymentIntents made since, minus their refunds),
 * and in our records (payments approved since, and their ledger lines). Agreement is equality.
 */
export async function moneySince(bed: StripeTestbed, mark: MoneyMark): Promise<{ atStripe: number; recorded: number; ledger: number }> {
  const intents = bed.fake.control.objects("payment_intent").filter((pi) => !mark.intents.has(pi.id as string));
  const refunds = bed.fake.control.objects("refund");
  let atStripe = 0;
  for (const pi of intents) {
    if (pi.status !== "succeeded") continue;
    const refunded = refunds.filter((r) => r.payment_intent === pi.id && r.status === "succeeded").reduce((sum, r) => sum + (r.amount as number), 0);
    atStripe += (pi.amount_received as number) - refunded;
  }
  const ours = await bed.handle.db.select().from(payments).where(gt(payments.id, mark.lastPaymentId));
  const approved = ours.filter((p) => p.status === "approved");
  let ledger = 0;
  for (const p of approved) ledger += (await paymentLines(bed, p.id)).reduce((sum, l) => sum + l.amount, 0);
  return { atStripe, recorded: approved.reduce((sum, p) => sum + p.amount, 0), ledger };
}

/**
 * A tenant who moved in a month ago with autopay on a card saved earlier: `paymentMethod` (a test
 * PaymentMethod such as `pm_card_authenticationRequired`) attached to a Stripe Customer, enrolled as
 * the lease's autopay card. `balance()` reads the lease's balance.
 */
export async function autopayTenant(bed: StripeTestbed, paymentMethod: string, options: { prefix?: string; timeZone?: string } = {}) {
  const now = clockNow();
  const t = await portalTenant(bed, { prefix: options.prefix ?? "autopay", moveInDate: addMonthsIso(localDate(now, options.timeZone ?? "America/New_York"), -1) });
  const stripe = createStripeClient({ secretKey: bed.fake.secretKey, apiBase: bed.fake.url });
  const customer = await stripe.customers.create({});
  const pm = await stripe.paymentMethods.attach(paymentMethod, { customer: customer.id });
  const [account] = await bed.handle.db.query.accounts.findMany({ limit: 1 });
  const storage = accountStorage(bed.handle.db, await portalLocations(bed.handle.db, account!.id)).storage;
  await storage.enrolAutopay({ tenantId: String(t.tenantId), leaseId: t.leaseId, method: { kind: "token", token: `${customer.id}:${pm.id}`, saveCard: true }, now });
  const balance = async () => (await storage.getTenantLease(String(t.tenantId), t.leaseId))!.balance;
  return { ...t, storage, balance };
}

/**
 * The rental's pay step for a rental, as the browser posts it: `pay(rentalId, fields)` (the pay
 * button, with `payment_token` from Stripe's fields or none: Checkout), `get(rentalId, url)` (the
 * pay step's loader, e.g. Checkout's return), `leaseOf(rentalId)` (the lease it made, or null).
 */
export function rentalPayStep(db: Database, unitTypeId: string) {
  async function cookies(rentalId: string) {
    const { token, setCookie } = await getCsrfToken(new Request("http://localhost/rent"));
    return { csrf: token, cookie: `${setCookie!.split(";")[0]!}; ${(await rentalCookieHeader(rentalId)).split(";")[0]!}` };
  }
  return {
    async pay(rentalId: string, fields: Record<string, string>) {
      const { csrf, cookie } = await cookies(rentalId);
      return callRoute<{ formError: string | null }>(rentAction, db, `/rent/${unitTypeId}?step=pay`, {
        params: { unitTypeId },
        init: { method: "POST", body: new URLSearchParams({ csrf, intent: "pay", ...fields }), headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } },
      });
    },
    async get(rentalId: string, url: string) {
      const { cookie } = await cookies(rentalId);
      return callRoute<{ view: { step: string; hosted?: boolean; demonstration?: boolean } | null }>(rentLoader, db, url, { params: { unitTypeId }, init: { headers: { Cookie: cookie } } });
    },
    async leaseOf(rentalId: string) {
      return (await db.query.rentals.findFirst({ where: eq(rentals.id, rentalId) }))!.completedLeaseId;
    },
  };
}
