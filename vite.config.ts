import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";
import path from "node:path";

// React Router publishes its production build next to its development build but its package
// exports resolve only the development one ("node", "import", "default"): a production build
// bundles the production one (no dev warnings or checks; docs/decisions/150).
const reactRouterProduction = path.resolve(import.meta.dirname, "node_modules/react-router/dist/production");

/**
 * React Router encodes every document's loader data for the browser (turbo-stream) before our
 * entry.server.tsx runs, whether or not the page loads React Router's script (no page does).
 * This makes `serverHandoffStream` a getter: the data is encoded when ServerRouter reads it, which
 * entry.server.tsx lets happen only on a page that hydrates (docs/decisions/150). Written for
 * react-router 7.18.4 (pinned): if the code it rewrites changes, the build fails rather than
 * silently encoding again.
 */
function lazyHandoffStream(): Plugin {
  const pattern = /serverHandoffStream: encodeViaTurboStream\(([^()]*)\)/g;
  return {
    name: "gatehouse:lazy-handoff-stream",
    apply: "build",
    transform(code, id) {
      if (!id.startsWith(reactRouterProduction) || !code.includes("function encodeViaTurboStream(")) return null;
      const matches = code.match(pattern)?.length ?? 0;
      if (matches !== 2) this.error(`lazy-handoff-stream: expected 2 handoff streams in ${id}, found ${matches}`);
      // One cache key per site: the error re-render spreads the first context into the second.
      let site = 0;
      return {
        code: code.replace(pattern, (_all, args: string) => {
          const key = `__gatehouseHandoff${++site}`;
          return `get serverHandoffStream() { return this.${key} ??= encodeViaTurboStream(${args}); }`;
        }),
        map: null,
      };
    },
  };
}

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
  plugins: [reactRouter(), lazyHandoffStream()],
}));
