// `node scripts/e2e-seeded-db.mjs <dir>`: makes <dir> a fresh, migrated and seeded PGlite data
// directory for a browser-test server (scripts/e2e-server.mjs, scripts/e2e-sitelink-server.ts), in
// the environment it is run with.
//
// Without E2E_SEEDED_TEMPLATE it migrates and seeds <dir> itself (scripts/db-setup.ts), as a server
// started by hand always did. With it (playwright.config.ts sets it for a run, decision 522), the
// first server of the run to get here migrates and seeds a template once, and every server copies it
// (0.1 s instead of about 12 s of CPU each): the template is built by the same db-setup in the same
// environment, so each copy holds exactly what a fresh db-setup would write. The template's name
// carries the variables the seed reads (NODE_ENV, SEED_DEMO_TENANT, PAYMENT_GATEWAY, FAKE_NOW), so a
// server started with others gets a template of its own. playwright.config.ts removes the templates
// when a run starts: they never outlive the run's code and migrations.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/e2e-seeded-db.mjs <pglite dir>");
  process.exit(2);
}

/** Migrates and seeds `target` (PGLITE_DIR) with scripts/db-setup.ts, in this process's environment. */
function dbSetup(target) {
  fs.rmSync(target, { recursive: true, force: true });
  execFileSync("npx", ["tsx", "scripts/db-setup.ts"], { stdio: "inherit", env: { ...process.env, PGLITE_DIR: target } });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The template for this environment, built by the first caller (a lock directory), awaited by the others. */
async function template(base) {
  const seedEnv = ["NODE_ENV", "SEED_DEMO_TENANT", "PAYMENT_GATEWAY", "FAKE_NOW"].map((name) => `${name}=${process.env[name] ?? ""}`).join("\n");
  const ready = `${base}-${crypto.createHash("sha256").update(seedEnv).digest("hex").slice(0, 12)}`;
  const lock = `${ready}.lock`;
  const deadline = Date.now() + Number(process.env.E2E_SEEDED_WAIT_MS ?? 180_000);
  fs.mkdirSync(path.dirname(ready), { recursive: true });
  while (!fs.existsSync(ready)) {
    let mine = false;
    try {
      fs.mkdirSync(lock);
      mine = true;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    if (mine) {
      try {
        if (!fs.existsSync(ready)) {
          const building = `${ready}.building`;
          dbSetup(building);
          fs.renameSync(building, ready); // whole or not at all: the others wait for this name
        }
      } finally {
        fs.rmSync(lock, { recursive: true, force: true });
      }
      break;
    }
    if (Date.now() > deadline) throw new Error(`the seeded template ${ready} was not ready in time (a stale ${lock}?)`);
    await sleep(200);
  }
  return ready;
}

const base = process.env.E2E_SEEDED_TEMPLATE;
if (!base) {
  dbSetup(dir);
} else {
  const from = await template(base);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.cpSync(from, dir, { recursive: true });
}
