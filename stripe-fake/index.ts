export { DEFAULT_PORT, DEFAULT_PUBLISHABLE_KEY, DEFAULT_SECRET_KEY, startStripeFake } from "./server";
export type { Fault, LoggedRequest, RunningStripeFake, StripeFakeControl, StripeFakeOptions } from "./server";
export { signPayload } from "./webhooks";
export type { Delivery, WebhookEndpoint } from "./webhooks";
