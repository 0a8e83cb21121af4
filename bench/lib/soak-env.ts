/**
 * Imported first by bench/soak.ts (before anything reads the configuration, which is parsed once
 * outside tests): this process makes the owners' sessions and the tenants as the servers would, with
 * the same secret, the same origins and the same production cookie names.
 */
import { productionEnv } from "../../tests/fault/support/server";

const base = Number(process.env.SOAK_PORT_BASE || 4600);
Object.assign(process.env, {
  NODE_ENV: "production",
  HTTPS: "false",
  PAYMENT_GATEWAY: "test",
  SESSION_SECRET: productionEnv({}).SESSION_SECRET,
  PUBLIC_URL: `http://127.0.0.1:${base}`,
  CONSOLE_URL: `http://admin.localhost:${base}`,
});
