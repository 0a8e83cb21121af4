import { getDatabase } from "~/db/client.server";
import { runMigrations } from "~/db/migrate.server";
import { envOrExit } from "~/env.server";

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

const handle = getDatabase();
await runMigrations(handle);
console.log(`Migrations applied (${handle.driver}).`);
await handle.close();
