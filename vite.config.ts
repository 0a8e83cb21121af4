import { reactRouter } from "@react-router/dev/vite";
import { defineConfig, type Plugin } from "vite";
import path from "node:path";

// React Router publishes its production build next to its development build but its package
// exports resolve only the development one ("node", "import", "default"): a production build
// bundles the production one (no dev warnings or checks; docs/decisions/150).
export const reactRouterProduction = path.resolve(import.meta.dirname, "node_modules/react-router/dist/production");

/** The code `lazyHandoffStream` rewrites: React Router's two eager handoff-stream properties. */
const HANDOFF_STREAM_SITE = /serverHandoffStream: encodeViaTurboStream\(([^()]*)\)/g;

/** Whether a module of React Router's production build is the one `lazyHandoffStream` rewrites. */
export function definesHandoffStream(code: string): boolean {
  return code.includes("function encodeViaTurboStream(");
}

/**
 * The rewrite itself (a framework edge, docs/decisions/230): each `serverHandoffStream:
 * encodeViaTurboStream(…)` becomes a getter that encodes on first read, and how many sites it found
 * (the build expects 2; tests/unit/react-router-edges.test.ts runs it on the installed package).
 */
export function lazyHandoffStreamPatch(code: string): { code: string; sites: number } {
  const sites = code.match(HANDOFF_STREAM_SITE)?.length ?? 0;
  // One cache key per site: the error re-render spreads the first context into the second.
  let site = 0;
  const patched = code.replace(HANDOFF_STREAM_SITE, (_all, args: string) => {
    const key = `__gatehouseHandoff${++site}`;
    return `get serverHandoffStream() { return this.${key} ??= encodeViaTurboStream(${args}); }`;
  });
  return { code: patched, sites };
}

/**
 * React Router encodes every document's loader data for the browser (turbo-stream) before our
 * entry.server.tsx runs, whether or not the page loads React Router's script (no page does).
 * This makes `serverHandoffStream` a getter: the data is encoded when ServerRouter reads it, which
 * entry.server.tsx lets happen only on a page that hydrates (docs/decisions/150). Written for
 * react-router 7.18.4 (pinned): if the code it rewrites changes, the build fails rather than
 * silently encoding again.
 */
function lazyHandoffStream(): Plugin {
  return {
    name: "gatehouse:lazy-handoff-stream",
    apply: "build",
    transform(code, id) {
      if (!id.startsWith(reactRouterProduction) || !definesHandoffStream(code)) return null;
      const patched = lazyHandoffStreamPatch(code);
      if (patched.sites !== 2) this.error(`lazy-handoff-stream: expected 2 handoff streams in ${id}, found ${patched.sites}`);
      return { code: patched.code, map: null };
    },
  };
}

/** The call `keepRequestWithoutRouterParams` rewrites: React Router's copy of the request for every loader and action. */
const STRIPPED_REQUEST_SITE = "stripRoutesParam(stripIndexParam(args.request))";

/** Whether a module of React Router's production build is the one `keepRequestWithoutRouterParams` rewrites. */
export function definesStrippedRequest(code: string): boolean {
  return code.includes("function stripIndexParam(request)") && code.includes(STRIPPED_REQUEST_SITE);
}

/**
 * The rewrite (a framework edge, docs/decisions/230 and 422): the request a loader or action gets is
 * copied twice by React Router (`stripIndexParam`, then `stripRoutesParam`: a URL parse and a new
 * Request each, for every loader and action of every request) to take out the `index` and `_routes`
 * query parameters. A URL with neither is copied into an equal request; then the request itself is
 * handed on (a URL with a `%` anywhere, where a parameter's name could be encoded, is copied as before).
 * Returns the code and how many sites it found (the build expects 1).
 */
export function keepRequestWithoutRouterParamsPatch(code: string): { code: string; sites: number } {
  const sites = code.split(STRIPPED_REQUEST_SITE).length - 1;
  const patched = code
    .split(STRIPPED_REQUEST_SITE)
    .join(`(/[?&](?:index|_routes)(?:[=&]|$)|%/.test(args.request.url) ? ${STRIPPED_REQUEST_SITE} : args.request)`);
  return { code: patched, sites };
}

/** React Router copies each loader's and action's request only when its URL has a parameter to take out (decision 422). */
function keepRequestWithoutRouterParams(): Plugin {
  return {
    name: "gatehouse:keep-request-without-router-params",
    apply: "build",
    transform(code, id) {
      if (!id.startsWith(reactRouterProduction) || !definesStrippedRequest(code)) return null;
      const patched = keepRequestWithoutRouterParamsPatch(code);
      if (patched.sites !== 1) this.error(`keep-request-without-router-params: expected 1 site in ${id}, found ${patched.sites}`);
      return { code: patched.code, map: null };
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
  plugins: [reactRouter(), lazyHandoffStream(), keepRequestWithoutRouterParams()],
}));
