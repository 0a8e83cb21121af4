import js from "@eslint/js";
import tseslint from "typescript-eslint";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import boundaries from "eslint-plugin-boundaries";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";

/** The element types below the port: the two adapters and the module both share. */
const belowPort = ["shared", "local-adapter", "sitelink-adapter"];

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
  // The adapters (app/storage-software/local, /sitelink) are reached only through the port. What both
  // need (our own tenant, rental and ledger records) is app/storage-software/shared, below both:
  // neither adapter imports the other, and shared imports neither (decision 220).
  {
    // Colocated tests too: a test imports its own layer and those below it, never one above (issue 38).
    files: ["app/**/*.{ts,tsx}"],
    plugins: { boundaries },
    settings: {
      "import/resolver": { typescript: { project: "./tsconfig.json" }, node: true },
      "boundaries/include": ["app/**/*"],
      "boundaries/elements": [
        { type: "domain", pattern: "app/domain/**", partialMatch: false },
        { type: "platform", pattern: "app/platform/**", partialMatch: false },
        { type: "db", pattern: "app/db/**", partialMatch: false },
        { type: "shared", pattern: "app/storage-software/shared/**", partialMatch: false },
        { type: "local-adapter", pattern: "app/storage-software/local/**", partialMatch: false },
        { type: "sitelink-adapter", pattern: "app/storage-software/sitelink/**", partialMatch: false },
        { type: "port", pattern: "app/storage-software/*", partialMatch: false },
        { type: "services", pattern: "app/services/**", partialMatch: false },
        { type: "components", pattern: "app/components/**", partialMatch: false },
        { type: "routes", pattern: "app/routes/**", partialMatch: false },
        // The test hooks (a route and its service), switched on only by the test runner: above every layer.
        { type: "testing", pattern: "app/testing/**", partialMatch: false },
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
            ...["db", "port", ...belowPort, "services", "components", "routes"].map((upper) => ({ from: { element: { type: "platform" } }, disallow: { to: { element: { type: upper } } } })),
            ...belowPort.map((type) => ({ from: { element: { type: "domain" } }, disallow: { to: { element: { type } } } })),
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "port" } } } },
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "services" } } } },
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "domain" } }, disallow: { to: { element: { type: "routes" } } } },
            { from: { element: { type: "db" } }, disallow: { to: { element: { type: "services" } } } },
            { from: { element: { type: "db" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "db" } }, disallow: { to: { element: { type: "routes" } } } },
            { from: { element: { type: "port" } }, disallow: { to: { element: { type: "services" } } } },
            ...belowPort.map((type) => ({ from: { element: { type } }, disallow: { to: { element: { type: "services" } } } })),
            { from: { element: { type: "port" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "port" } }, disallow: { to: { element: { type: "routes" } } } },
            ...belowPort.map((type) => ({ from: { element: { type } }, disallow: { to: { element: { type: "components" } } } })),
            ...belowPort.map((type) => ({ from: { element: { type } }, disallow: { to: { element: { type: "routes" } } } })),
            { from: { element: { type: "services" } }, disallow: { to: { element: { type: "components" } } } },
            { from: { element: { type: "services" } }, disallow: { to: { element: { type: "routes" } } } },
            { from: { element: { type: "components" } }, disallow: { to: { element: { type: "routes" } } } },
            // Nothing in the product imports the test hooks (decision 545).
            ...["domain", "platform", "db", "port", ...belowPort, "services", "components", "routes"].map((type) => ({ from: { element: { type } }, disallow: { to: { element: { type: "testing" } } } })),
            // Only the storage-software port imports an adapter or the shared module (decision 220).
            ...["db", "services", "components", "routes"].flatMap((upper) =>
              belowPort.map((type) => ({ from: { element: { type: upper } }, disallow: { to: { element: { type } } } })),
            ),
            // Neither adapter imports the other; the shared module imports neither (decision 220).
            { from: { element: { type: "local-adapter" } }, disallow: { to: { element: { type: "sitelink-adapter" } } } },
            { from: { element: { type: "sitelink-adapter" } }, disallow: { to: { element: { type: "local-adapter" } } } },
            { from: { element: { type: "shared" } }, disallow: { to: { element: { type: "local-adapter" } } } },
            { from: { element: { type: "shared" } }, disallow: { to: { element: { type: "sitelink-adapter" } } } },
          ],
        },
      ],
    },
  },
  // Nothing outside app/storage-software/ reaches into an adapter (issue 11): not the app, the server,
  // the seeds or the scripts. Adapter tests under tests/integration may (they test the adapter itself).
  // The SiteLink simulator (sitelink-simulator/) and the Stripe fake (stripe-fake/) are dev and test
  // tools: the app never imports them (scripts such as start:sitelink and the tests may).
  ...(() => {
    const adapter = {
      regex: "(^~/storage-software/|/storage-software/)(local|sitelink|shared)(/|$)",
      message: "Use the storage-software port (storageFor in ~/storage-software/index.server and the types of ~/storage-software/port), never an adapter or the adapters' shared module.",
    };
    const simulator = { group: ["**/sitelink-simulator", "**/sitelink-simulator/**"], message: "The app never imports the SiteLink simulator (a test and dev tool)." };
    const stripeFake = { group: ["**/stripe-fake", "**/stripe-fake/**"], message: "The app never imports the Stripe fake (a test and dev tool); point the stripe package at it by configuration." };
    const twilioFake = { group: ["**/twilio-fake", "**/twilio-fake/**"], message: "The app never imports the Twilio fake (a test and dev tool); point the twilio package at it by configuration (TWILIO_API_BASE)." };
    return [
      {
        files: ["app/**/*.{ts,tsx}"],
        ignores: ["app/storage-software/**"],
        rules: { "no-restricted-imports": ["error", { patterns: [adapter, simulator, stripeFake, twilioFake] }] },
      },
      {
        files: ["app/storage-software/**/*.{ts,tsx}"],
        rules: { "no-restricted-imports": ["error", { patterns: [simulator] }] },
      },
      // The port's own files (its interface, errors, catalogue) sit above the adapters and shared
      // module: only index.server.ts, which builds an adapter, imports them (decision 220).
      {
        files: ["app/storage-software/*.{ts,tsx}"],
        ignores: ["app/storage-software/index.server.ts", "app/storage-software/*.test.{ts,tsx}"],
        rules: {
          "no-restricted-imports": [
            "error",
            { patterns: [simulator, { regex: "^(\\./|~/storage-software/)(local|sitelink|shared)(/|$)", message: "Only the port's index.server.ts imports an adapter or the shared module (decision 220)." }] },
          ],
        },
      },
      {
        files: ["server/**/*.{ts,tsx}", "seeds/**/*.ts", "scripts/**/*.{ts,mjs,js}", "bench/**/*.{ts,mjs,js}", "tests/e2e/**/*.ts", "tests/fault/**/*.ts"],
        rules: { "no-restricted-imports": ["error", { patterns: [adapter] }] },
      },
    ];
  })(),
  // No circle of files (issue 38, decision 546): in app/, server/ and the fakes, a file never imports
  // (directly or through others) a file that imports it. Type-only imports count: a circle of types
  // is still two files that cannot be understood apart. tests/unit/import-graph.test.ts says the same
  // from the sources.
  {
    files: ["app/**/*.{ts,tsx}", "server/**/*.{ts,tsx}", "sitelink-simulator/**/*.ts", "stripe-fake/**/*.ts", "twilio-fake/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  // Configuration is read in one place (issue 21, decision 210): app/platform/env.server.ts parses every
  // environment variable the app and its commands read with one zod schema, once at start-up; nothing
  // else reads process.env (a second reader is an unchecked, undocumented variable). The exceptions
  // are not the app:
  // - tests (tests/, colocated *.test.ts) and bench/: they compose the environment of the servers
  //   they start, and set variables before importing the app;
  // - scripts/e2e-*.{ts,mjs}: the browser tests' server launchers (test harness);
  // - scripts/test-all.mjs: `npm test`'s stages (test harness; passes the environment on to the tools);
  // - sitelink-simulator/: a separate program (the SiteLink stand-in), never imported by the app;
  // - stripe-fake/: a separate program (the Stripe stand-in, decision 370), never imported by the app;
  // - twilio-fake/: a separate program (the Twilio stand-in, decision 492), never imported by the app;
  // - vitest.config.ts, playwright.config.ts, react-router.config.ts: tool configuration (test ports,
  //   the build's output folder), read by the tools, not by the app.
  // server.js's bootstrap reads NODE_ENV and BUILD_DIR to find the app, with a disable comment there.
  {
    files: ["**/*.{ts,tsx,js,mjs,cjs}"],
    ignores: [
      "app/platform/env.server.ts",
      "tests/**",
      "**/*.test.{ts,tsx}",
      "bench/**",
      "scripts/e2e-*.{ts,mjs}",
      "scripts/test-all.mjs",
      "sitelink-simulator/**",
      "stripe-fake/**",
      "twilio-fake/**",
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
