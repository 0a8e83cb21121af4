export { DEFAULT_PORT, startTwilioFake } from "./server";
export type { RunningTwilioFake } from "./server";
export { twilioSignature } from "./signature";
