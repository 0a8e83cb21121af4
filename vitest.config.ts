import { defineConfig } from "vitest/config";
import path from "node:path";

const alias = { "~": path.resolve(import.meta.dirname, "app") };

const integration = (name: string, driver: "pglite" | "postgres") => ({
  resolve: { alias },
  test: {
    name,
    include: ["tests/integration/**/*.test.ts"],
    globalSetup: ["tests/integration/global-setup.ts"],
    setupFiles: ["tests/setup/fail-on-console-error.ts"],
    env: { TEST_DRIVER: driver, NODE_ENV: "test" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // PGlite databases are ~100 MB each in memory: two workers fit the 2-core machines here.
    maxWorkers: 2,
  },
});

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["app/**/*.test.{ts,tsx}", "server/**/*.test.ts", "tests/unit/**/*.test.{ts,tsx}", "sitelink-simulator/**/*.test.ts"],
          setupFiles: ["tests/setup/fail-on-console-error.ts"],
          env: { NODE_ENV: "test" },
        },
      },
      integration("integration", "pglite"),
      {
        // Fault tests (issue 14): the BUILT server against a private PostgreSQL that is stopped and
        // started again, an SMTP server that goes away. Slow (about a minute each); one file at a time.
        resolve: { alias },
        test: {
          name: "fault",
          include: ["tests/fault/**/*.test.ts"],
          globalSetup: ["tests/fault/global-setup.ts"],
          env: { NODE_ENV: "test" },
          testTimeout: 60_000,
          hookTimeout: 150_000,
          fileParallelism: false,
          pool: "forks",
        },
      },
      ...(process.env.TEST_DATABASE_URL ? [integration("integration-postgres", "postgres")] : []),
    ],
  },
});
