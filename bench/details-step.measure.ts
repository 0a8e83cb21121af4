/**
 * Where the details step's time goes in a rush for the last unit (issue 22, decision 206).
 *
 *   npx vitest run --config bench/vitest.details-step.config.ts
 *   DETAILS_VISITORS=40 DETAILS_ROUNDS=5 BENCH_PG_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres …
 *
 * On a fresh PostgreSQL database (migrated and seeded, dropped at the end) and a pool of 10
 * connections (the default), DETAILS_VISITORS visitors, each from its own address, submit the details
 * step of the real route action (app/routes/rental/rent.tsx) at the same moment for a unit type with ONE unit
 * free, DETAILS_ROUNDS times. Every statement a visitor's action sends is time-stamped as it starts
 * (Drizzle's logger, through countQueries) and named by what it touches, so each visitor's time splits
 * into steps: the rental context, the e-mail check, the limits, the hold, the rental write (with the
 * password hash before it); a step lasts from its first statement to the next step's first statement
 * (waiting for a free connection included). Prints per-step medians and the totals as JSON.
 */
import { execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { and, asc, eq } from "drizzle-orm";
import { expect, it } from "vitest";
import { countQueries, openDatabase } from "~/db/client.server";
import { locations, unitTypes, units } from "~/db/schema";
import { getCsrfToken } from "~/services/web/csrf.server";
import { action as rentAction } from "~/routes/rental/rent";
import { loadContext } from "../tests/integration/support/route-helpers";

const VISITORS = Number(process.env.DETAILS_VISITORS ?? 40);
const ROUNDS = Number(process.env.DETAILS_ROUNDS ?? 5);
const ADMIN = process.env.BENCH_PG_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * What a statement is for, by the table it names; null for begin/commit/rollback (they belong to the
 * step around them). The span before the rental write also holds the password hash (no statement).
 */
function stepOf(statement: string): string | null {
  const s = statement.toLowerCase().trim();
  if (/^(begin|commit|rollback)/.test(s)) return null;
  if (/rate_limit_hits/.test(s)) return "limits (then the password hash)";
  if (/"tenants"/.test(s)) return "e-mail check";
  if (/update units set held_until|unit_type_id <> /.test(s) && !/reservations/.test(s)) return "hold";
  if (/checkouts/.test(s)) return "checkout write";
  return "context";
}

it("measures the details step", async () => {
  const name = `gatehouse_details_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: "ignore", env: { ...process.env, DATABASE_URL: url.href, NODE_ENV: "development" } });
  const handle = openDatabase({ url: url.href });
  const { db } = handle;
  const out: Record<string, unknown> = { visitors: VISITORS, rounds: ROUNDS, poolSize: 10 };
  try {
    const [loc] = await db.select().from(locations).where(eq(locations.name, "Lumberton"));
    const [type] = await db.select().from(unitTypes).where(eq(unitTypes.locationId, loc!.id)).orderBy(asc(unitTypes.id));
    const unitTypeId = String(type!.id);
    const steps = new Map<string, number[]>();
    const statementsPerStep = new Map<string, number[]>();
    const totals: { won: number[]; lost: number[] } = { won: [], lost: [] };
    const statuses: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      // One unit free: the type's units all unavailable but one, no holds.
      const free = await db.select({ id: units.id }).from(units).where(eq(units.unitTypeId, Number(unitTypeId))).orderBy(asc(units.name));
      await db.update(units).set({ status: "unavailable", heldUntil: null, holdToken: null }).where(eq(units.unitTypeId, Number(unitTypeId)));
      await db.update(units).set({ status: "available" }).where(and(eq(units.id, free[0]!.id)));
      const requests = await Promise.all(
        Array.from({ length: VISITORS }, async (_, i) => {
          const u = `http://localhost/rent/${unitTypeId}?step=details`;
          const { token, setCookie } = await getCsrfToken(new Request(u));
          const body = new URLSearchParams({
            csrf: token, intent: "details", first_name: "Ada", last_name: "Lovelace", email: `rush-${round}-${i}-${process.pid}@example.com`,
            cell_phone: "(910) 555-0134", addr_1: "1 Main St", city: "Lumberton", region: "NC", postal_code: "28358", web_pw: "Tidy-Unit-42", confirm_web_pw: "Tidy-Unit-42",
          });
          return { i, request: new Request(u, { method: "POST", body, headers: { Cookie: setCookie!.split(";")[0]!, "Content-Type": "application/x-www-form-urlencoded" } }) };
        }),
      );
      await Promise.all(
        requests.map(async ({ i, request }) => {
          const log: [number, string][] = [];
          const counter = { count: 0, statements: { push: (q: string) => log.push([performance.now(), q]) } as unknown as string[] };
          const start = performance.now();
          let status = 200;
          await countQueries.run(counter, async () => {
            try {
              const r = (await rentAction({ request, params: { unitTypeId }, context: loadContext(db, `198.51.${round}.${i + 1}`) } as never)) as unknown as { init: ResponseInit | null };
              status = r.init?.status ?? 200;
            } catch (thrown) {
              if (thrown instanceof Response) status = thrown.status;
              else throw thrown;
            }
          });
          const end = performance.now();
          statuses[status] = (statuses[status] ?? 0) + 1;
          (status === 303 ? totals.won : totals.lost).push(end - start);
          // Consecutive statements of one step form one span; a span lasts until the next one starts.
          const spans: { step: string; from: number; n: number }[] = [];
          for (const [t, q] of log) {
            const step = stepOf(q) ?? spans.at(-1)?.step ?? "context";
            if (spans.at(-1)?.step === step) spans.at(-1)!.n++;
            else spans.push({ step, from: t, n: 1 });
          }
          const seen = new Map<string, { ms: number; n: number }>();
          spans.forEach((s, k) => {
            const to = spans[k + 1]?.from ?? end;
            const from = k === 0 ? start : s.from;
            const prev = seen.get(s.step) ?? { ms: 0, n: 0 };
            seen.set(s.step, { ms: prev.ms + (to - from), n: prev.n + s.n });
          });
          for (const [step, v] of seen) {
            const key = `${status === 303 ? "winner" : "loser"}: ${step}`;
            steps.set(key, [...(steps.get(key) ?? []), v.ms]);
            statementsPerStep.set(key, [...(statementsPerStep.get(key) ?? []), v.n]);
          }
        }),
      );
    }
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return s.length ? Math.round(s[s.length >> 1]! * 10) / 10 : null;
    };
    const max = (xs: number[]) => (xs.length ? Math.round(Math.max(...xs) * 10) / 10 : null);
    out.statuses = statuses;
    out.steps = Object.fromEntries([...steps].sort().map(([k, v]) => [k, { medianMs: median(v), maxMs: max(v), statements: median(statementsPerStep.get(k)!) }]));
    out.totals = { winner: { medianMs: median(totals.won), maxMs: max(totals.won) }, loser: { medianMs: median(totals.lost), maxMs: max(totals.lost) } };
    out.roundMaxMs = max([...totals.won, ...totals.lost]);
    console.log(JSON.stringify(out, null, 1));
    expect(statuses[303]).toBe(ROUNDS);
  } finally {
    await handle.close();
    const a = new pg.Client({ connectionString: ADMIN });
    await a.connect();
    await a.query(`drop database if exists ${name} with (force)`);
    await a.end();
  }
});
