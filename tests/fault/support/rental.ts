/**
 * A renter, as a person with a browser without JavaScript: GET the form, POST it, follow the 303 to
 * the next step, until the confirmation page. The step sequence and field names are those of
 * app/routes/rental/rent.tsx (and tests/e2e/rental/flow.spec.ts). The renter does not know the steps in advance:
 * it answers whichever step form the server shows, so a server that sends it back (e.g. "your
 * charges changed, sign again") is followed like a person would.
 *
 * A step that answered 503 (or 500, a timeout, a refused connection) is tried again, like a person
 * clicking again, after Retry-After (capped) or a second, until the time budget runs out.
 */
import { inputValue, radioValues, Recorder, Visitor, type Reply } from "./http";
import { sleep } from "./ports";

export interface RenterSpec {
  index: number;
  email: string;
  firstName: string;
  lastName: string;
  /** A Luhn-valid Visa the test gateway approves, unique per renter (its last four identify the renter). */
  cardNumber: string;
  /** Take the first protection plan (true) or "No protection plan" (false). */
  protection: boolean;
}

export interface RentalResult {
  spec: RenterSpec;
  /** The renter saw "Your rental is complete". */
  confirmed: boolean;
  gateCode: string | null;
  /** Requests repeated after a 5xx, a timeout or a refused connection. */
  retries: number;
  /** Answers other than 2xx/3xx/503 the renter got (status → count). */
  unexpected: Record<string, number>;
  /** Left after a payment that got no answer (walkAwayOnPayFailure). */
  walkedAway: boolean;
  /** Why the renter stopped without a confirmation. */
  failure: string | null;
  trail: string[];
  finishedAt: number;
}

const INTENTS = ["details", "protection", "sign", "pay"] as const;

/** A Luhn-valid 16-digit Visa number starting 4242 4242 4242 with `n` (0-999) in the last four. */
function testCardNumber(n: number): string {
  const payload = `424242424242${String(800 + (n % 200)).padStart(3, "0")}`;
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${payload}${(10 - (sum % 10)) % 10}`;
}

export function renterSpec(index: number, runId: string): RenterSpec {
  return {
    index,
    email: `fault.${runId}.${index}@example.com`,
    firstName: "Fault",
    lastName: `Renter${String.fromCharCode(65 + (index % 26))}`,
    cardNumber: testCardNumber(index),
    protection: index % 2 === 0,
  };
}

function stepOf(html: string): (typeof INTENTS)[number] | "review" | null {
  for (const m of html.matchAll(/<input[^>]*name="intent"[^>]*>/g)) {
    const v = /value="([^"]*)"/.exec(m[0])?.[1];
    if (v && (INTENTS as readonly string[]).includes(v)) return v as (typeof INTENTS)[number];
  }
  if (/Continue to the lease/.test(html)) return "review";
  return null;
}

function alertText(html: string): string {
  const m = /role="alert"[^>]*>([\s\S]{0,400}?)<\/div>/.exec(html);
  return (m?.[1] ?? html.slice(0, 300)).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
}

export async function rent(
  v: Visitor,
  spec: RenterSpec,
  options: {
    unitTypeId: number;
    unitTypePage: string;
    deadline: number;
    thinkMs: () => number;
    shouldStop: () => boolean;
    /**
     * Leave when the payment gets no real answer (5xx, timeout, refused), like a person who closes the
     * tab instead of clicking again: whatever was charged must then be recorded or given back by the
     * server on its own (the recovery sweep).
     */
    walkAwayOnPayFailure?: boolean;
    /** Called before each step's form is sent (a test's fault injection point, e.g. stop SMTP before "pay"). */
    beforeSubmit?: (step: (typeof INTENTS)[number]) => Promise<void> | void;
  },
): Promise<RentalResult> {
  const result: RentalResult = { spec, confirmed: false, walkedAway: false, gateCode: null, retries: 0, unexpected: {}, failure: null, trail: [], finishedAt: 0 };
  const base = `/rent/${options.unitTypeId}`;

  /** One click: repeated while the answer says "try again" (503) or never came (5xx, timeout, refused). */
  const click = async (method: "GET" | "POST", path: string, form?: Record<string, string>, once = false): Promise<Reply | null> => {
    for (;;) {
      const r = await v.request(method, path, form);
      result.trail.push(`${method} ${path} → ${r.outcome}`);
      if (typeof r.outcome === "number" && r.status !== 503 && r.status < 500) return r;
      if (r.status !== 503) result.unexpected[String(r.outcome)] = (result.unexpected[String(r.outcome)] ?? 0) + 1;
      if (once || Date.now() >= options.deadline || options.shouldStop()) return null;
      result.retries++;
      const after = Number(r.retryAfter);
      await sleep(r.status === 503 && Number.isFinite(after) && after > 0 ? Math.min(after * 1000, 2000) : 1000);
    }
  };
  const finish = (failure: string | null) => {
    result.failure = failure;
    result.finishedAt = Date.now();
    return result;
  };

  // A look at the unit first, like a visitor.
  await click("GET", options.unitTypePage);
  let path = base;
  for (let hop = 0; hop < 40; hop++) {
    await sleep(options.thinkMs());
    const page = await click("GET", path);
    if (!page) return finish(`gave up on GET ${path} (time budget)`);
    if (page.status >= 300 && page.status < 400 && page.location) {
      path = page.location;
      continue;
    }
    if (page.status !== 200) return finish(`GET ${path} answered ${page.status}: ${alertText(page.text)}`);
    if (path.includes("/confirmation")) {
      if (!/Your rental is complete/.test(page.text)) return finish(`the confirmation page did not say the rental is complete`);
      result.confirmed = true;
      result.gateCode = /data-testid="gate-code"[^>]*>(\d+)</.exec(page.text)?.[1] ?? null;
      return finish(null);
    }
    const step = stepOf(page.text);
    if (!step) return finish(`GET ${path}: no rental step form on the page: ${alertText(page.text)}`);
    if (step === "review") {
      path = `${base}?step=sign`;
      continue;
    }
    const csrf = inputValue(page.text, "csrf");
    if (!csrf) return finish(`GET ${path}: no CSRF token in the form`);
    const fields: Record<string, string> = { csrf, intent: step };
    if (step === "details") {
      Object.assign(fields, {
        website_url: "",
        first_name: spec.firstName,
        last_name: spec.lastName,
        email: spec.email,
        cell_phone: "(910) 555-0134",
        addr_1: "1 Main St",
        addr_2: "",
        city: "Lumberton",
        region: "NC",
        postal_code: "28358",
        alt_contact_first_name: "",
        alt_contact_last_name: "",
        alt_contact_phone: "",
        web_pw: "Tidy-Unit-42",
        confirm_web_pw: "Tidy-Unit-42",
      });
    } else if (step === "protection") {
      const plans = radioValues(page.text, "insurance_plan");
      const choice = spec.protection ? plans.find((p) => p !== "none") : plans.includes("none") ? "none" : plans[0];
      if (!choice) return finish("the protection step offered no choice");
      fields.insurance_plan = choice;
    } else if (step === "sign") {
      fields.signed_name = `${spec.firstName} ${spec.lastName}`;
      fields.consent = "on";
    } else if (step === "pay") {
      Object.assign(fields, {
        card_number: spec.cardNumber,
        exp_month: "12",
        exp_year: "2030",
        cvv: "123",
        name_on_card: `${spec.firstName} ${spec.lastName}`,
        billing_postal_code: "28358",
        autopay: "on",
      });
    }
    await sleep(options.thinkMs());
    await options.beforeSubmit?.(step);
    const walkAway = step === "pay" && Boolean(options.walkAwayOnPayFailure);
    const sent = await click("POST", `${base}?step=${step}`, fields, walkAway);
    if (!sent && walkAway) {
      result.walkedAway = true;
      return finish("walked away after the payment got no answer");
    }
    if (!sent) return finish(`gave up on POST ${step} (time budget)`);
    if (sent.status >= 300 && sent.status < 400 && sent.location) {
      path = sent.location;
      continue;
    }
    return finish(`POST ${step} answered ${sent.status}: ${alertText(sent.text)}`);
  }
  return finish("more than 40 pages without reaching the confirmation");
}

/** One renter through the whole flow at `baseUrl`, at once (no thinking time), within 45 s: what the multi-process tests need. */
export async function rentOnce(baseUrl: string, label: string, unitType: { unitTypeId: number; unitTypePage: string }): Promise<RentalResult> {
  return rent(new Visitor("renter", baseUrl, new Recorder()), renterSpec(1, `${label}${Date.now()}`), {
    ...unitType,
    deadline: Date.now() + 45_000,
    thinkMs: () => 0,
    shouldStop: () => false,
  });
}
