// Releases the units of expired reservations and closes rentals idle for a day (issue 4).
// Safe to run any time and more than once: `npx tsx scripts/sweep-reservations.ts`.
import { getDatabase } from "~/db/client.server";
import { now } from "~/platform/clock.server";
import { runHousekeeping } from "~/services/jobs/housekeeping.server";
import { envOrExit } from "~/platform/env.server";

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

const handle = getDatabase();
const at = now();
const { reservations, rentals } = await runHousekeeping(handle.db, at);
console.log(`[sweep] ${reservations} reservation(s) expired, ${rentals} rental(s) closed`);
await handle.close();
