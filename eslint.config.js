import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import boundaries from "eslint-plugin-boundaries";

export default tseslint.config(
  { ignores: ["build/", "build-*/", "coverage/", ".react-router/", "node_modules/", "data/", "test-results/", "playwright-report/", "drizzle/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx,js,mjs}"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // Layers (README "Layers"): domain < platform < db, storage-software < services < components, routes.
  // platform: infrastructure with no business rules that the layers above share (the clock, the
  // payment gateway, password hashing).
  // The adapters (app/storage-software/local, /sitelink) are reached only through the port.
  {
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["app/**/*.test.{ts,tsx}"],
    plugins: { boundaries },
    settings: {
      "import/resolver": { typescript: { project: "./tsconfig.json" }, node: true },
      "boundaries/include": ["app/**/*"],
      "boundaries/elements": [
        { type: "domain", pattern: "app/domain/**", partialMatch: false },
        { type: "platform", pattern: "app/platform/**", partialMatch: false },
        { type: "db", pattern: "app/db/**", partialMatch: false },
        { type: "adapter", pattern: "app/storage-software/{local,sitelink}/**", partialMatch: false },
        { type: "port", pattern: "app/storage-software/*", partialMatch: false },
        { type: "services", pattern: "app/services/**", partialMatch: false },
        { type: "components", pattern: "app/components/**", partialMatch: false },
        { type: "routes", pattern: "app/routes/**", partialMatch: false },
      ],
    },
    rules: {
      "boundaries/dependencies": [
        "error",
        {
          default: "allow",
          policies: [
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "platform" } } } },
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "db" } } } },
            ...["db", "port", "adapter", "services", "components", "routes"].map((upper) => ({ from: { element: { type: "platform" } }, disallow: { to: { element: { type: upper } } } })),
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "adapter" } } } },
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "port" } } } },
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "services" } } } },
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "routes" } } } },
            { from: { element: { type: "db" } }, disallow: { to: { element: { type: "services" } } } },
            { from: { element: { type: "db" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "db" } }, disallow: { to: { element: { type: "routes" } } } },
            { from: { element: { type: "port" } }, disallow: { to: { element: { type: "services" } } } },
            { from: { element: { type: "adapter" } }, disallow: { to: { element: { type: "services" } } } },
            { from: { element: { type: "port" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "port" } }, disallow: { to: { element: { type: "routes" } } } },
            { from: { element: { type: "adapter" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "adapter" } }, disallow: { to: { element: { type: "routes" } } } },
            { from: { element: { type: "services" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "services" } }, disallow: { to: { element: { type: "routes" } } } },
            { from: { element: { type: "components" } }, disallow: { to: { element: { type: "routes" } } } },
            // Only the storage-software port (and the adapters themselves) import an adapter.
            { from: { element: { type: "db" } }, disallow: { to: { element: { type: "adapter" } } } },
            { from: { element: { type: "services" } }, disallow: { to: { element: { type: "adapter" } } } },
            { from: { element: { type: "components" } }, disallow: { to: { element: { type: "adapter" } } } },
            { from: { element: { type: "routes" } }, disallow: { to: { element: { type: "adapter" } } } },
          ],
        },
      ],
    },
  },
  // Nothing outside app/storage-software/ reaches into an adapter (issue 11): not the app, the server,
  // the seeds or the scripts. Adapter tests under tests/integration may (they test the adapter itself).
  // The SiteLink simulator (sitelink-simulator/) is a dev and test tool: the app never imports it
  // (scripts such as start:sitelink and the tests may).
  ...(() => {
    const adapter = {
      regex: "(^~/storage-software/|/storage-software/)(local|sitelink)(/|$)",
      message: "Use the storage-software port (storageFor in ~/storage-software/index.server and the types of ~/storage-software/port), never an adapter.",
    };
    const simulator = { group: ["**/sitelink-simulator", "**/sitelink-simulator/**"], message: "The app never imports the SiteLink simulator (a test and dev tool)." };
    return [
      {
        files: ["app/**/*.{ts,tsx}"],
        ignores: ["app/storage-software/**"],
        rules: { "no-restricted-imports": ["error", { patterns: [adapter, simulator] }] },
      },
      {
        files: ["app/storage-software/**/*.{ts,tsx}"],
        rules: { "no-restricted-imports": ["error", { patterns: [simulator] }] },
      },
      {
        files: ["server/**/*.{ts,tsx}", "seeds/**/*.ts", "scripts/**/*.{ts,mjs,js}", "bench/**/*.{ts,mjs,js}", "tests/e2e/**/*.ts", "tests/fault/**/*.ts"],
        rules: { "no-restricted-imports": ["error", { patterns: [adapter] }] },
      },
    ];
  })(),
  // Known exceptions, each to be removed by moving the code to its layer (conventions: "the port leaks"):
  // - app/domain/cards.ts, card-schema.ts: `import type { CardBrand }` from the db schema (type only;
  //   the brand list should live in the domain and the schema import it).
  // - app/db/queries/content.server.ts: sanitises operator HTML with services/sanitize.server.ts.
  {
    files: [
      "app/domain/cards.ts",
      "app/domain/card-schema.ts",
      "app/db/queries/content.server.ts",
    ],
    rules: { "boundaries/dependencies": "off" },
  },
  // Configuration is read in one place (issue 21, decision 210): app/env.server.ts parses every
  // environment variable the app and its commands read with one zod schema, once at start-up; nothing
  // else reads process.env (a second reader is an unchecked, undocumented variable). The exceptions
  // are not the app:
  // - tests (tests/, colocated *.test.ts) and bench/: they compose the environment of the servers
  //   they start, and set variables before importing the app;
  // - scripts/e2e-*.{ts,mjs}: the browser tests' server launchers (test harness);
  // - sitelink-simulator/: a separate program (the SiteLink stand-in), never imported by the app;
  // - vitest.config.ts, playwright.config.ts, react-router.config.ts: tool configuration (test ports,
  //   the build's output folder), read by the tools, not by the app.
  // server.js's bootstrap reads NODE_ENV and BUILD_DIR to find the app, with a disable comment there.
  {
    files: ["**/*.{ts,tsx,js,mjs,cjs}"],
    ignores: [
      "app/env.server.ts",
      "tests/**",
      "**/*.test.{ts,tsx}",
      "bench/**",
      "scripts/e2e-*.{ts,mjs}",
      "sitelink-simulator/**",
      "vitest.config.ts",
      "playwright.config.ts",
      "react-router.config.ts",
    ],
    rules: {
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through env() from ~/env.server (one schema, decision 210); add a new variable to its schema and the README." },
      ],
    },
  },
  // React's hook rules for the React code only (Playwright fixtures call a `use` that is not a hook).
  {
    files: ["app/**/*.{ts,tsx}"],
    plugins: { "react-hooks": reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
);
