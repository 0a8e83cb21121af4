/**
 * Move-ins over HTTP for the bench (bench/http.mjs runs it with tsx): renters go through the real
 * rental flow of the built server (tests/fault/support/rental.ts: the forms, CSRF, the hold, the
 * lease, the card), `concurrency` at a time; the checkouts are started together (each round's renters
 * wait for each other before sending the payment form), and the time of each rental (the POST of
 * the payment step: the move-in transaction) is measured.
 *
 *   tsx bench/move-in.ts <database url> <base url>[,<base url>…] <rounds> <concurrency>
 *
 * Adds the units the renters rent (unit type: Lumberton's 10' x 10' Drive-Up). Prints one line of JSON.
 */
import pg from "pg";
import { Recorder, Visitor } from "../tests/fault/support/http";
import { rent, renterSpec } from "../tests/fault/support/rental";

const [databaseUrl, baseUrls, roundsArg, concurrencyArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 5);
const concurrency = Number(concurrencyArg ?? 8);
const bases = (baseUrls ?? "").split(",");
const LOCATION = "lumberton-nc-28358";

const c = new pg.Client({ connectionString: databaseUrl });
await c.connect();
const type = await c.query(
  `select t.id, t.location_id, t.floor from unit_types t join locations l on l.id = t.location_id
    where l.url_slug = $1 and t.width = 10 and t.length = 10 and t.name = 'Drive-Up'`,
  [LOCATION],
);
const t = type.rows[0] as { id: number; location_id: number; floor: number } | undefined;
if (!t) throw new Error(`No 10x10 Drive-Up unit type at ${LOCATION}`);
const runId = `${Date.now().toString(36)}`;
for (let i = 0; i < rounds * concurrency; i++) {
  await c.query(`insert into units (location_id, unit_type_id, name, floor, status) values ($1, $2, $3, $4, 'available')`, [t.location_id, t.id, `BENCH-${runId}-${i}`, t.floor]);
}
await c.end();

const recorder = new Recorder();
const payTimes: number[] = [];
const failures: string[] = [];
let index = 0;
for (let round = 0; round < rounds; round++) {
  // A barrier before the payment step: the round's checkouts go at the same moment.
  let waiting = 0;
  let release!: () => void;
  const allAtPay = new Promise<void>((r) => (release = r));
  const results = await Promise.all(
    Array.from({ length: concurrency }, (_, k) => {
      const spec = renterSpec(index++, `bench${runId}`);
      const visitor = new Visitor(`renter-${spec.index}`, bases[k % bases.length]!, recorder);
      return rent(visitor, spec, {
        unitTypeId: Number(t.id),
        unitTypePage: `/locations/${LOCATION}/units/10x10-drive-up`,
        deadline: Date.now() + 120_000,
        thinkMs: () => 0,
        shouldStop: () => false,
        beforeSubmit: async (step) => {
          if (step !== "pay") return;
          if (++waiting === concurrency) release();
          await Promise.race([allAtPay, new Promise((r) => setTimeout(r, 30_000))]);
        },
      });
    }),
  );
  for (const r of results) if (!r.confirmed) failures.push(r.failure ?? "not confirmed");
}
for (const s of recorder.samples) if (s.method === "POST" && s.path.includes("step=pay") && s.outcome === 303) payTimes.push(s.end - s.start);
payTimes.sort((a, b) => a - b);
const pct = (p: number) => (payTimes.length ? payTimes[Math.min(payTimes.length - 1, Math.ceil((p / 100) * payTimes.length) - 1)]! : Number.NaN);
console.log(JSON.stringify({ moveIns: payTimes.length, attempted: rounds * concurrency, p50: pct(50), p95: pct(95), max: payTimes.at(-1) ?? null, failures: failures.slice(0, 5) }));
