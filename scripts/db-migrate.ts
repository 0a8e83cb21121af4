import { runMigrations } from "~/db/migrate.server";
import { ownerDatabase } from "~/db/migrate-as-owner.server";
import { envOrExit } from "~/platform/env.server";

// Every variable checked before anything runs: a bad value stops the command with a clear message (decision 210).
envOrExit({ server: false });

// As the owner role when DATABASE_OWNER_URL is set, then the app's role gets its grants (decision 462).
const { handle, afterMigrations } = ownerDatabase();
await runMigrations(handle);
await afterMigrations();
console.log(`Migrations applied (${handle.driver}).`);
await handle.close();
