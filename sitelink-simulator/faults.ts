/**
 * Fault injection (study §6.5): per operation and per Nth call, deterministic (no randomness).
 *
 * A rule counts the calls that match it (its operation, or "*" for any) from the moment it is added.
 * It applies from call number `nth` (default 1) for `times` calls (default: 1 when `nth` is given,
 * every call otherwise). Several `latency` rules add up; of the other kinds the first matching rule
 * wins.
 */

export type FaultKind =
  /** Wait `ms` (default 2000) before processing (the call still commits, even if the client gave up). */
  | "latency"
  /** Same as latency (the word). */
  | "slow"
  /** Close the socket without processing anything. */
  | "drop_before"
  /** Process (commit), then never answer: the timeout-after-commit case. */
  | "commit_then_hang"
  /** Process (commit), then reset the connection. */
  | "commit_then_reset"
  /** HTTP 500 with an IIS-style HTML body, nothing processed. */
  | "http_500_html"
  /** HTTP 503 Service Unavailable, nothing processed. */
  | "http_503"
  /** HTTP 200 with a truncated (malformed) XML body, nothing processed. */
  | "malformed_xml"
  /** HTTP 500 soap:Fault (soap:Server), nothing processed. */
  | "soap_fault"
  /** HTTP 200 with RT(retCode, retMsg) (default -1 "General failure"), nothing processed. */
  | "rt_error";

export interface FaultRuleInput {
  operation: string;
  kind: FaultKind;
  nth?: number;
  times?: number;
  ms?: number;
  retCode?: number;
  retMsg?: string;
}

export interface FaultRule extends FaultRuleInput {
  id: number;
  /** Matching calls seen so far. */
  seen: number;
  /** Calls the rule was applied to. */
  applied: number;
}

interface FaultDecision {
  latencyMs: number;
  rule: FaultRule | null;
}

const FAULT_KINDS: readonly FaultKind[] = [
  "latency",
  "slow",
  "drop_before",
  "commit_then_hang",
  "commit_then_reset",
  "http_500_html",
  "http_503",
  "malformed_xml",
  "soap_fault",
  "rt_error",
];

export class Faults {
  private rules: FaultRule[] = [];
  private nextId = 1;

  add(input: FaultRuleInput): FaultRule {
    if (!FAULT_KINDS.includes(input.kind)) throw new Error(`Unknown fault kind: ${String(input.kind)}`);
    if (!input.operation) throw new Error("operation is required (an operation name or \"*\")");
    const rule: FaultRule = { ...input, kind: input.kind === "slow" ? "latency" : input.kind, id: this.nextId++, seen: 0, applied: 0 };
    this.rules.push(rule);
    return rule;
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  clear(): void {
    this.rules = [];
  }

  /** Counts this call against every matching rule and says what to do with it. */
  decide(operation: string | null): FaultDecision {
    let latencyMs = 0;
    let chosen: FaultRule | null = null;
    for (const rule of this.rules) {
      if (rule.operation !== "*" && rule.operation !== operation) continue;
      rule.seen += 1;
      const from = rule.nth ?? 1;
      const times = rule.times ?? (rule.nth !== undefined ? 1 : Number.POSITIVE_INFINITY);
      if (rule.seen < from || rule.applied >= times) continue;
      if (rule.kind === "latency") {
        rule.applied += 1;
        latencyMs += rule.ms ?? 2000;
      } else if (!chosen) {
        rule.applied += 1;
        chosen = rule;
      }
    }
    return { latencyMs, rule: chosen };
  }
}
