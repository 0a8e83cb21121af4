export { DEFAULT_PORT, startStripeFake } from "./server";
export type { RunningStripeFake } from "./server";
export { signPayload } from "./webhooks";
export type { Delivery } from "./webhooks";
