import { getDatabase } from "~/db/client.server";
import { runMigrations } from "~/db/migrate.server";

const handle = getDatabase();
await runMigrations(handle);
console.log(`Migrations applied (${handle.driver}).`);
await handle.close();
