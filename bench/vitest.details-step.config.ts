// Runs bench/details-step.measure.ts (not a test: a measurement; `npx vitest run --config bench/vitest.details-step.config.ts`).
import { defineConfig } from "vitest/config";
import path from "node:path";

export default defineConfig({
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "..", "app") } },
  test: {
    include: ["bench/details-step.measure.ts"],
    env: { NODE_ENV: "test", LOG_LEVEL: "error" },
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
