import { pinClockForTests } from "~/platform/clock.server";
import { setPaymentGatewayForTests, setPaymentGatewayNameForTests } from "~/platform/payments/gateway.server";

/**
 * The integration files share their worker's modules (`isolate: false`, decision 521): each file
 * starts with the process as the first one found it. The environment is put back as it was when the
 * worker started (tests set SMTP_URL, NODE_ENV, FAKE_NOW … as they go), and the switches tests may
 * leave set (the payment gateway, a pinned clock) are reset. Everything else a file makes (servers,
 * databases, fakes) it closes itself, as it always had to.
 */
const store = globalThis as { __gatehouseStartEnv?: Record<string, string | undefined> };
const own = (key: string) => !key.startsWith("VITEST") && key !== "TEST" && key !== "NODE_V8_COVERAGE";
if (!store.__gatehouseStartEnv) {
  store.__gatehouseStartEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => own(k)));
} else {
  const start = store.__gatehouseStartEnv;
  for (const key of Object.keys(process.env)) if (own(key) && !(key in start)) delete process.env[key];
  for (const [key, value] of Object.entries(start)) if (process.env[key] !== value) process.env[key] = value;
}
// The process-wide database (getDatabase) of a file that closed it is not the next file's.
delete (globalThis as { __gatehouseDb?: unknown }).__gatehouseDb;
setPaymentGatewayForTests(null);
setPaymentGatewayNameForTests(null);
pinClockForTests(null);
