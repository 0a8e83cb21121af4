/**
 * `npm run twilio:fake`: the Twilio fake as a dev server.
 *   PORT                      listening port (default 13111), on 127.0.0.1
 *   TWILIO_FAKE_NUMBERS       the account's numbers, comma-separated E.164 (e.g. +19105550134)
 *   TWILIO_FAKE_INBOUND_URL   where texts to those numbers are posted (e.g. http://localhost:3000/webhooks/twilio/inbound)
 * The app: TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN as printed, TWILIO_API_BASE=http://127.0.0.1:PORT.
 */
import { DEFAULT_PORT, startTwilioFake } from "./index";

const fake = await startTwilioFake({
  port: process.env.PORT ? Number(process.env.PORT) : DEFAULT_PORT,
  numbers: (process.env.TWILIO_FAKE_NUMBERS ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean)
    .map((number) => ({ number, smsUrl: process.env.TWILIO_FAKE_INBOUND_URL ?? null })),
  log: (line) => process.stdout.write(`${line}\n`),
});
process.stdout.write(
  [
    "Twilio fake",
    `  API:                 ${fake.url}/2010-04-01   (TWILIO_API_BASE=${fake.url})`,
    `  TWILIO_ACCOUNT_SID:  ${fake.accountSid}`,
    `  TWILIO_AUTH_TOKEN:   ${fake.authToken}`,
    `  control:             ${fake.url}/__fake/ (messages, deliveries, numbers, inbound {from,to,body}, settled, reset)`,
    "",
  ].join("\n"),
);

function stop() {
  void fake.close().then(() => process.exit(0));
}
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
