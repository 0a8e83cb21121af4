/**
 * `npm run stripe:fake`: the Stripe fake as a dev server.
 *   PORT                          listening port (default 12111), on 127.0.0.1
 *   STRIPE_FAKE_WEBHOOK_URL       optional: deliver every event there
 *   STRIPE_FAKE_WEBHOOK_SECRET    optional: its signing secret (whsec_…; generated and printed when unset)
 */
import { DEFAULT_PORT, startStripeFake } from "./index";

const port = process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT;
const webhookUrl = process.env.STRIPE_FAKE_WEBHOOK_URL;
const webhookSecret = process.env.STRIPE_FAKE_WEBHOOK_SECRET;

const fake = await startStripeFake({
  port,
  webhooks: webhookUrl ? [{ url: webhookUrl, ...(webhookSecret ? { secret: webhookSecret } : {}) }] : [],
  log: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(
  [
    "Stripe fake (test mode)",
    `  API:              ${fake.url}/v1   (stripe package: new Stripe(key, { host: "${fake.host}", port: ${fake.port}, protocol: "http" }))`,
    `  secret key:       ${fake.secretKey}`,
    `  publishable key:  ${fake.publishableKey}`,
    `  Stripe.js:        ${fake.jsUrl}`,
    `  API version:      ${fake.apiVersion}`,
    ...fake.control.webhookEndpoints().map((w) => `  webhook:          ${w.url}  secret ${w.secret}`),
    `  control:          ${fake.url}/__fake/ (reset, objects, requests, faults, intents/:id/authenticate, webhooks, events/:id/redeliver)`,
    "",
  ].join("\n"),
);

function stop() {
  void fake.close().then(() => process.exit(0));
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
