export { DEFAULT_ACCOUNT_SID, DEFAULT_AUTH_TOKEN, DEFAULT_PORT, startTwilioFake } from "./server";
export type { Delivery, FakeNumber, RunningTwilioFake, TwilioFakeControl, TwilioFakeOptions } from "./server";
export type { FakeMessage } from "./messages";
export { twilioSignature } from "./signature";
