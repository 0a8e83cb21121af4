/**
 * HTTP for the fault tests: every request is bounded in time (AbortSignal.timeout) and recorded
 * (who, what, when, how it ended), and each simulated visitor keeps its own cookie jar.
 */

const REQUEST_TIMEOUT_MS = 10_000;

export type Outcome = number | "timeout" | "error";

export interface Sample {
  who: string;
  method: string;
  path: string;
  start: number;
  end: number;
  outcome: Outcome;
  error?: string;
}

export class Recorder {
  readonly samples: Sample[] = [];
  add(s: Sample) {
    this.samples.push(s);
  }
  /** Samples whose time overlaps [from, to]. */
  between(from: number, to: number): Sample[] {
    return this.samples.filter((s) => s.end >= from && s.start <= to);
  }
}

export interface Reply {
  outcome: Outcome;
  status: number;
  location: string | null;
  retryAfter: string | null;
  text: string;
}

let visitors = 0;

/**
 * One visitor: a cookie jar, an address of their own and a recorder. Never follows redirects by
 * itself. Each visitor comes from its own IP (X-Forwarded-For, trusted from loopback as from a proxy),
 * as real renters do, so the per-IP limits (holds, card attempts) see separate people.
 */
export class Visitor {
  private readonly jar = new Map<string, string>();
  private readonly ip = `203.0.113.${(++visitors % 250) + 1}`;
  constructor(
    readonly name: string,
    readonly baseUrl: string,
    private readonly recorder: Recorder,
  ) {}

  cookieHeader(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private keepCookies(headers: Headers) {
    for (const sc of headers.getSetCookie()) {
      const [pair, ...attrs] = sc.split(";");
      const eq = pair!.indexOf("=");
      if (eq < 0) continue;
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => {
        const [k, v] = a.split("=").map((x) => x.trim());
        if (k?.toLowerCase() === "max-age") return Number(v) <= 0;
        if (k?.toLowerCase() === "expires") return Date.parse(v ?? "") <= Date.now();
        return false;
      });
      if (expired || value === "") this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }

  async request(method: "GET" | "POST", path: string, form?: Record<string, string>): Promise<Reply> {
    const start = Date.now();
    const headers: Record<string, string> = { Accept: "text/html", "User-Agent": `gatehouse-fault-test (${this.name})`, "X-Forwarded-For": this.ip };
    const cookie = this.cookieHeader();
    if (cookie) headers.Cookie = cookie;
    let body: string | undefined;
    if (form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(form).toString();
    }
    const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    try {
      const res = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: "manual", signal });
      this.keepCookies(res.headers);
      const text = await res.text();
      const reply: Reply = {
        outcome: res.status,
        status: res.status,
        location: res.headers.get("location"),
        retryAfter: res.headers.get("retry-after"),
        text,
      };
      this.recorder.add({ who: this.name, method, path, start, end: Date.now(), outcome: res.status });
      return reply;
    } catch (error) {
      const timedOut = signal.aborted || (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"));
      const outcome: Outcome = timedOut ? "timeout" : "error";
      const message = error instanceof Error ? `${error.message}${error.cause ? ` (${String((error.cause as Error).message ?? error.cause)})` : ""}` : String(error);
      this.recorder.add({ who: this.name, method, path, start, end: Date.now(), outcome, error: message });
      return { outcome, status: 0, location: null, retryAfter: null, text: "" };
    }
  }
}

/** The value of a hidden or text input by name, from server-rendered HTML. */
export function inputValue(html: string, name: string): string | null {
  const re = new RegExp(`<input[^>]*\\bname="${name}"[^>]*>`, "g");
  for (const tag of html.match(re) ?? []) {
    const v = /\bvalue="([^"]*)"/.exec(tag);
    if (v) return decodeHtml(v[1]!);
  }
  return null;
}

/** Every value of the radio buttons with this name. */
export function radioValues(html: string, name: string): string[] {
  const re = new RegExp(`<input[^>]*\\bname="${name}"[^>]*>`, "g");
  return (html.match(re) ?? []).filter((t) => /type="radio"/.test(t)).map((t) => decodeHtml(/\bvalue="([^"]*)"/.exec(t)?.[1] ?? ""));
}

function decodeHtml(s: string): string {
  return s.replace(/&quot;/g, '"').replace(/&#x27;|&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** A count of outcomes, e.g. { "200": 40, "503": 12, timeout: 1 }. */
export function countOutcomes(samples: Sample[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) out[String(s.outcome)] = (out[String(s.outcome)] ?? 0) + 1;
  return out;
}
