import { defineConfig } from "vitest/config";
import fs from "node:fs";
import path from "node:path";

const alias = { "~": path.resolve(import.meta.dirname, "app") };

const file = (name: string) => `tests/integration/${name}.test.ts`;
const withPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * The integration suite runs on both drivers (docs/decisions/265-integration-suite-per-driver.md):
 * - on PostgreSQL (the production database), when TEST_DATABASE_URL is set: every file but those
 *   that test the embedded database itself;
 * - on PGlite: every file when PostgreSQL is not there; with PostgreSQL there, the files whose outcome
 *   the driver can change. PGlite is PostgreSQL's own engine compiled to WebAssembly, so the SQL of
 *   the other files behaves the same; what differs is the client around it: one connection and one
 *   transaction at a time, no pool, LISTEN/NOTIFY in-process, migrations and seeding through it, the
 *   data directory's lock, and the request path of the public site and the rental on the database a
 *   fresh checkout starts with. The portal's pages and the reservation run on PostgreSQL only: the
 *   browser suite runs both, end to end, on PGlite (the production build on a fresh PGlite database,
 *   with and without JavaScript), so their PGlite re-run here (94 s and 25 s of a worker) checked
 *   nothing the browser does not (decision 520).
 */
const EMBEDDED_ONLY = ["payments/billing-cli", "db/pglite-private-dir", "db/demo-tenant-seed"].map(file);
const DRIVER_SENSITIVE = [
  "db/migrations",
  "db/seed",
  "site/cache-notify",
  "db/pool",
  "rental/move-in",
  "rental/move-in-ledger",
  "rental/rush",
  "rental/submit",
  "site/pages",
  "web/form-outage",
  "web/logging",
  // bytea: pg gives a Buffer, PGlite a Uint8Array (the stored image sizes, decision 321).
  "content/media-uploads",
].map(file);

/**
 * The files that import the built server (tests/integration/support/built-server.ts): the build is one
 * module graph whose app is made once, on the database of the first file that imports it, so each of
 * these files needs a worker of its own (vitest's isolation). Every other file shares its worker's
 * modules with the files before it (`isolate: false`, decision 521): the app's modules are imported
 * once per worker instead of once per file (about half the suite's CPU), and
 * tests/setup/fresh-process-state.ts puts back what a file may have changed (the environment, the
 * payment gateway, a pinned clock, the process-wide database).
 */
const BUILT_SERVER_FILES = fs
  .readdirSync("tests/integration", { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `tests/integration/${f.split(path.sep).join("/")}`)
  .filter((f) => /support\/built-server/.test(fs.readFileSync(f, "utf8")));

const integration = (name: string, driver: "pglite" | "postgres", ownWorkers: boolean) => {
  const all = driver === "postgres" || !withPostgres ? ["tests/integration/**/*.test.ts"] : [...EMBEDDED_ONLY, ...DRIVER_SENSITIVE];
  const excluded = driver === "postgres" ? EMBEDDED_ONLY : [];
  const built = all[0]!.includes("*") ? BUILT_SERVER_FILES : BUILT_SERVER_FILES.filter((f) => all.includes(f));
  return {
    resolve: { alias },
    test: {
      name: ownWorkers ? `${name}-built` : name,
      include: ownWorkers ? built : all,
      exclude: ownWorkers ? excluded : [...excluded, ...BUILT_SERVER_FILES],
      globalSetup: ["tests/integration/global-setup.ts"],
      setupFiles: ["tests/setup/fresh-process-state.ts", "tests/setup/fail-on-console-error.ts", "tests/support/localhost-names.ts"],
      // bcrypt at cost 4 (test-only, app/platform/password.server.ts): the suite hashes and checks
      // thousands of passwords, ~70 ms of CPU each at the production cost 10. The files whose checks
      // are about the hashing itself call productionBcryptCost() (tests/integration/support/bcrypt-cost.ts,
      // decision 523); the browser and fault suites' servers run in production mode, always at cost 10.
      // BCRYPT_ROUNDS=10 in the environment runs the whole suite at the production cost.
      env: { TEST_DRIVER: driver, NODE_ENV: "test", BCRYPT_ROUNDS: process.env.BCRYPT_ROUNDS ?? "4" },
      testTimeout: 60_000,
      hookTimeout: 120_000,
      // PGlite databases are ~100 MB each in memory: two workers fit the 2-core machines here. Every
      // integration project has the same maxWorkers, so vitest runs their files in one pool of two
      // workers (two in all, not two each).
      maxWorkers: 2,
      isolate: ownWorkers,
    },
  };
};

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          // A few tests import the server's modules cold (several seconds on a loaded 2-core machine).
          testTimeout: 20_000,
          // Two workers, one per core (vitest's default is one fewer than the cores: one here, leaving
          // a core idle through the stage). The files share nothing: temporary directories and port 0.
          maxWorkers: 2,
          include: ["app/**/*.test.{ts,tsx}", "server/**/*.test.ts", "tests/unit/**/*.test.{ts,tsx}", "sitelink-simulator/**/*.test.ts", "stripe-fake/**/*.test.ts", "twilio-fake/**/*.test.ts"],
          setupFiles: ["tests/setup/fail-on-console-error.ts"],
          env: { NODE_ENV: "test" },
        },
      },
      integration("integration", "pglite", false),
      integration("integration", "pglite", true),
      {
        // Fault tests (issue 14): the BUILT server against a private PostgreSQL that is stopped and
        // started again, an SMTP server that goes away. Slow (about a minute each); one file at a time.
        resolve: { alias },
        test: {
          name: "fault",
          include: ["tests/fault/**/*.test.ts"],
          globalSetup: ["tests/fault/global-setup.ts"],
          // The console's origin, http://admin.localhost:PORT (decision 450), from Node too.
          setupFiles: ["tests/support/localhost-names.ts"],
          env: { NODE_ENV: "test" },
          testTimeout: 60_000,
          hookTimeout: 150_000,
          // Two files at a time (decision 701): each runs its own private PostgreSQL, servers and nginx on
          // ports of its own, and uses about half a core; FAULT_WORKERS=1 runs them one at a time.
          maxWorkers: Number(process.env.FAULT_WORKERS ?? 2),
          pool: "forks",
        },
      },
      ...(process.env.TEST_DATABASE_URL ? [integration("integration-postgres", "postgres", false), integration("integration-postgres", "postgres", true)] : []),
    ],
  },
});
