import { getDatabase } from "~/db/client.server";
import { seedDatabase } from "../seeds/seed";

const handle = getDatabase();
const report = await seedDatabase(handle.db);
console.log(report.created.length ? `Seeded: ${report.created.join(", ")}` : "Seed: nothing to do, the data is already there.");
await handle.close();
