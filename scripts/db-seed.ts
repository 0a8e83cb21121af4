import { getDatabase } from "~/db/client.server";
import { seedDatabase } from "../seeds/seed";
import { envOrExit } from "~/platform/env.server";

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

const handle = getDatabase();
const report = await seedDatabase(handle.db);
console.log(report.created.length ? `Seeded: ${report.created.join(", ")}` : "Seed: nothing to do, the data is already there.");
await handle.close();
