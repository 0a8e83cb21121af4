/**
 * One home per rule (issue 21, docs/decisions/215-one-home-per-rule.md): each rule below is written
 * once, in its home, and read from there. These guards read the source tree and fail when a rule's
 * expression appears anywhere else in app/ (as the money guard does for formatting).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP, appSources } from "./app-sources";
import { HOLD_MINUTES, HOLD_MS, holdEndsAt } from "~/domain/rental/hold";
import { monthlyRateFor } from "~/domain/site/rates";

const FILES = appSources().map((f) => ({ file: path.relative(APP, f).split(path.sep).join("/"), text: readFileSync(f, "utf8") }));

/** "file:line: text" of every line (outside `home`) that matches one of `patterns`, unless `allowed` says it may. */
function offenders(home: string, patterns: RegExp[], allowed: (line: string) => boolean = () => false): string[] {
  return FILES.filter((f) => f.file !== home).flatMap(({ file, text }) =>
    text.split("\n").flatMap((line, i) => (patterns.some((p) => p.test(line)) && !allowed(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

interface Rule {
  rule: string;
  home: string;
  patterns: RegExp[];
  allowed?: (line: string) => boolean;
}

const RULES: Rule[] = [
  {
    rule: "the monthly rate: the web rate when web rates are on and it is above zero, else the standard rate",
    home: "domain/site/rates.ts",
    patterns: [/webRate\s*(>|<=|>=|<|===|!==)\s*0\b/, /\b0\s*(<|>=)\s*\w+\.webRate\b/],
  },
  {
    rule: "the hold length (15 minutes)",
    home: "domain/rental/hold.ts",
    // Other fifteen-minute windows (sign-in, card attempts, the rates sync) are named constants of their own.
    patterns: [/\b15\s*\*\s*60\b/, /\b900_?000\b/, /HOLD\w*\s*=\s*15\b/, /getTime\(\)\s*\+\s*15\s*\*/],
    allowed: (line) => /^\s*(export\s+)?const\s+(?!\w*HOLD)[A-Z][A-Z0-9_]*\s*=\s*15\s*\*\s*60[\d_]*(\s*\*\s*1000)?;/.test(line),
  },
  {
    rule: "SiteLink's settle time after an unanswered write",
    home: "storage-software/sitelink/settings.ts",
    patterns: [/\b2\s*\*\s*\w*\.?writeTimeoutMs\b/, /\b2\s*\*\s*60_?000\b/, /\b120_?000\b/],
  },
  {
    rule: "the password length (6 to 20 characters) with its messages",
    home: "domain/shared/tenant-form.ts",
    patterns: [/\.(min|max)\(\s*PASSWORD_(MIN|MAX)\b/, /\.min\(\s*6\s*,[^)]*[Pp]assword/, /\.max\(\s*20\s*,[^)]*[Pp]assword/],
  },
  {
    rule: "the paid-through arithmetic (next due = paid-through + 1 day; a period ends a month on, less a day)",
    home: "domain/payments/billing.ts",
    patterns: [/addDaysIso\(\s*\w*[pP]aid\w*\s*,\s*1\s*\)/, /addDaysIso\(\s*addMonthsIso\(/, /addDaysIso\(\s*\w*[nN]extDue\w*\s*,\s*-1\s*\)/],
  },
  {
    rule: "which adapter serves a location (use_demo_units, software, SiteLink settings)",
    home: "storage-software/sitelink/settings.ts",
    patterns: [/eq\(\s*accounts\.useDemoUnits/, /if\s*\(\s*!?\w+\.useDemoUnits\s*\)/, /\.useDemoUnits\s*(\?|&&|\|\||===|!==)/],
  },
  {
    // Decision 660: every page and action that needs a second factor from the last ten minutes asks
    // through app/services/staff/step-up.server.ts, so that every action it interrupts is held and
    // completed after the code (one mechanism, not a copy per page).
    rule: "a fresh second factor, asked for and the interrupted action held",
    home: "services/staff/step-up.server.ts",
    patterns: [/\bFRESH_FACTOR_MS\b/, /\/admin\/reauth\?next=/, /\bstaffHeldActions\b/, /factorAt\.getTime\(\)/],
    allowed: (line) => /^\s*(\*|\/\/|\/\*)/.test(line) || /export const (FRESH_FACTOR_MS|staffHeldActions)\s*=/.test(line),
  },
];

describe("one home per rule (decision 215)", () => {
  it.each(RULES.map((r) => [r.rule, r] as const))("%s: only in its home", (_rule, r) => {
    expect(FILES.some((f) => f.file === r.home)).toBe(true);
    expect(offenders(r.home, r.patterns, r.allowed)).toEqual([]);
  });

  it("the homes say what the rules say", () => {
    expect(monthlyRateFor({ standardRate: 5000, webRate: 4500 }, true)).toBe(4500);
    expect(monthlyRateFor({ standardRate: 5000, webRate: 4500 }, false)).toBe(5000);
    expect(monthlyRateFor({ standardRate: 5000, webRate: 0 }, true)).toBe(5000);
    expect(HOLD_MINUTES).toBe(15);
    expect(HOLD_MS).toBe(900_000);
    expect(holdEndsAt(new Date("2026-06-15T15:00:00Z"))).toEqual(new Date("2026-06-15T15:15:00Z"));
  });
});
