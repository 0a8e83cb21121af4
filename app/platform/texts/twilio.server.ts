import twilio from "twilio";
import type { SendTextResult, TextMessageProvider } from "./provider-types";

interface TwilioConfig {
  accountSid: string;
  authToken: string;
  /** A stand-in for https://api.twilio.com (the Twilio fake): every API request goes there instead. */
  apiBase?: string;
  /** Per request; the default 10 s. No automatic retries: a text that timed out is not sent twice. */
  timeoutMs?: number;
}

type RequestOptions<TData> = Parameters<InstanceType<typeof twilio.RequestClient>["request"]>[0] & { data?: TData };

/**
 * Twilio's own HTTP client, with the API's address swapped for the fake's (tests, development): the
 * package builds every request (paths, form encoding, Basic auth, headers) exactly as it does for
 * api.twilio.com; only where it goes changes.
 */
class RedirectedRequestClient extends twilio.RequestClient {
  constructor(
    private readonly base: URL,
    timeout: number,
  ) {
    super({ timeout, autoRetry: false });
  }

  override request<TData>(opts: RequestOptions<TData>) {
    const target = new URL(opts.uri);
    return super.request<TData>({ ...opts, uri: new URL(target.pathname + target.search, this.base).href });
  }
}

function isRestError(error: unknown): error is { status: number; code?: number; message: string } {
  return typeof error === "object" && error !== null && "status" in error && typeof (error as { status: unknown }).status === "number" && "message" in error;
}

/** The text-message provider on Twilio's Programmable Messaging API (official `twilio` package). */
export function createTwilioTexts(config: TwilioConfig): TextMessageProvider {
  const timeout = config.timeoutMs ?? 10_000;
  const httpClient = config.apiBase ? new RedirectedRequestClient(new URL(config.apiBase), timeout) : new twilio.RequestClient({ timeout, autoRetry: false });
  const client = twilio(config.accountSid, config.authToken, { httpClient });
  return {
    async send(input): Promise<SendTextResult> {
      try {
        const m = await client.messages.create({ from: input.from, to: input.to, body: input.body, statusCallback: input.statusCallback });
        return { outcome: "accepted", sid: m.sid, status: m.status };
      } catch (error) {
        if (isRestError(error) && error.status >= 400 && error.status < 500) return { outcome: "refused", code: String(error.code ?? error.status), message: error.message };
        return { outcome: "unknown", message: error instanceof Error ? error.message : String(error) };
      }
    },
    verifyWebhook({ url, params, signature }) {
      if (!signature) return false;
      return twilio.validateRequest(config.authToken, signature, url, params);
    },
    replyDocument(reply) {
      const twiml = new twilio.twiml.MessagingResponse();
      if (reply) twiml.message(reply);
      return { body: twiml.toString(), contentType: "text/xml; charset=utf-8" };
    },
  };
}
