import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";
import path from "node:path";

// React Router publishes its production build next to its development build but its package
// exports resolve only the development one ("node", "import", "default"): a production build
// bundles the production one (no dev warnings or checks; docs/decisions/150).
const reactRouterProduction = path.resolve(import.meta.dirname, "node_modules/react-router/dist/production");

export default defineConfig(({ command, isSsrBuild }) => ({
  resolve: {
    alias: [
      { find: "~", replacement: path.resolve(import.meta.dirname, "app") },
      ...(command === "build"
        ? [
            { find: /^react-router$/, replacement: `${reactRouterProduction}/index.mjs` },
            { find: /^react-router\/dom$/, replacement: `${reactRouterProduction}/dom-export.mjs` },
          ]
        : []),
    ],
  },
  build: {
    rollupOptions: isSsrBuild ? { input: "./server/app.ts" } : undefined,
  },
  ssr: {
    // PGlite ships a WASM file it loads relative to its own module: keep it external.
    external: ["@electric-sql/pglite"],
    // Bundled so that the alias above applies to them (one copy of React Router in the server).
    noExternal: command === "build" ? ["react-router", "@react-router/node"] : undefined,
  },
  plugins: [reactRouter()],
}));
