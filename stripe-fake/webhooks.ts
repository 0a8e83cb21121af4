/**
 * Events and their delivery as Stripe does it (https://docs.stripe.com/webhooks):
 * - the body is the event as JSON (pretty-printed, as Stripe sends it), `Content-Type:
 *   application/json; charset=utf-8`, `User-Agent: Stripe/1.0 (+https://stripe.com/docs/webhooks)`;
 * - `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` with the
 *   endpoint's `whsec_…` secret (https://docs.stripe.com/webhooks#verify-manually), which
 *   `stripe.webhooks.constructEvent` verifies;
 * - every attempt is signed afresh (new `t`), so a redelivered event has the same id and body but a new signature.
 * Test controls: `pause(types?)` holds deliveries (all, or of those event types) until `resume()`
 * (a webhook that arrives late);
 * `redeliver(eventId)` sends an event again (a duplicate); `settled()` waits for deliveries in flight.
 */
import { createHmac, randomBytes } from "node:crypto";

export interface WebhookEndpoint {
  id: string;
  url: string;
  secret: string;
  /** Event types, or ["*"]. */
  enabled_events: string[];
}

export interface Delivery {
  eventId: string;
  type: string;
  endpoint: string;
  /** HTTP status, or 0 when the endpoint could not be reached. */
  status: number;
  redelivery: boolean;
  at: string;
}

export interface StripeEvent {
  id: string;
  object: "event";
  type: string;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  [key: string]: unknown;
}

export function signPayload(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`, "utf8").digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString("base64url")}`;
}

export class WebhookDispatcher {
  endpoints: WebhookEndpoint[] = [];
  deliveries: Delivery[] = [];
  /** false, true (every event) or the event types held. */
  private paused: boolean | ReadonlySet<string> = false;
  private held: Array<{ event: StripeEvent; redelivery: boolean }> = [];
  private inFlight = new Set<Promise<void>>();

  constructor(private readonly log?: (line: string) => void) {}

  addEndpoint(endpoint: WebhookEndpoint): WebhookEndpoint {
    this.endpoints.push(endpoint);
    return endpoint;
  }

  reset(): void {
    this.endpoints = [];
    this.deliveries = [];
    this.held = [];
    this.paused = false;
  }

  /** Queue an event for every endpoint that listens to it (after the API response, as Stripe does). */
  emit(event: StripeEvent, redelivery = false): void {
    if (this.paused === true || (this.paused && this.paused.has(event.type))) {
      this.held.push({ event, redelivery });
      return;
    }
    for (const endpoint of this.endpoints) {
      if (!endpoint.enabled_events.includes("*") && !endpoint.enabled_events.includes(event.type)) continue;
      const p = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.send(endpoint, event, redelivery));
      this.inFlight.add(p);
      void p.finally(() => this.inFlight.delete(p));
    }
  }

  /** Hold every event, or only events of these types (the others are delivered). */
  pause(types?: string[]): void {
    this.paused = types?.length ? new Set(types) : true;
  }

  /** Deliver what was held, in order. */
  resume(): void {
    this.paused = false;
    const held = this.held;
    this.held = [];
    for (const h of held) this.emit(h.event, h.redelivery);
  }

  heldEvents(): StripeEvent[] {
    return this.held.map((h) => h.event);
  }

  /** Resolves once every delivery started so far (and any it started) has finished. */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private async send(endpoint: WebhookEndpoint, event: StripeEvent, redelivery: boolean): Promise<void> {
    const payload = JSON.stringify(event, null, 2);
    let status = 0;
    try {
      const res = await fetch(endpoint.url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json; charset=utf-8",
          "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
          "Stripe-Signature": signPayload(payload, endpoint.secret),
        },
        body: payload,
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch {
      status = 0;
    }
    this.deliveries.push({ eventId: event.id, type: event.type, endpoint: endpoint.url, status, redelivery, at: new Date().toISOString() });
    this.log?.(`webhook ${event.type} ${event.id} → ${endpoint.url} ${status || "unreachable"}${redelivery ? " (redelivery)" : ""}`);
  }
}
