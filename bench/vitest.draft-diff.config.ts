// Runs bench/draft-diff.measure.ts (not a test: a measurement; `npx vitest run --config bench/vitest.draft-diff.config.ts`).
import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "..", "app") } },
  test: {
    include: ["bench/draft-diff.measure.ts"],
    setupFiles: ["tests/support/localhost-names.ts"],

    env: { NODE_ENV: "test", LOG_LEVEL: "error" },
    testTimeout: 3_600_000,
    hookTimeout: 600_000,
  },
});
