/** Used by `npm start` and `npm run dev`: apply migrations, then seed what is missing. */
import { getDatabase } from "~/db/client.server";
import { runMigrations } from "~/db/migrate.server";
import { seedDatabase } from "../seeds/seed";
import { envOrExit } from "~/env.server";

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

const handle = getDatabase();
await runMigrations(handle);
const report = await seedDatabase(handle.db);
console.log(
  `Database ready (${handle.driver}).` + (report.created.length ? ` Seeded: ${report.created.join(", ")}` : ""),
);
await handle.close();
