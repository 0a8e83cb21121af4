/**
 * The browser tests' hooks, as the server wires them (decision 432): on only with E2E_HOOKS=1 under
 * NODE_ENV=test or the test runner. The hooks themselves are a route (app/testing/hooks-route.ts,
 * POST /__test/hooks, JSON) and its service (app/testing/hooks.server.ts); the server adds what a
 * route cannot: the hooks' JSON body past the body guard, the caches dropped after every hook, and
 * the count of statements each request sent.
 */
import type { Express } from "express";
import { countQueries } from "~/db/client.server";
import type { Env } from "~/platform/env.server";
import { testHooksEnabled } from "~/testing/hooks.server";

export function testHooksOf(serverEnv: Pick<Env, "E2E_HOOKS" | "NODE_ENV" | "GATEHOUSE_TEST_RUNNER">) {
  const testHooksOn = testHooksEnabled(serverEnv);
  return {
    /**
     * Whether this path is the hooks' route, and the hooks are on. Its POSTs take JSON, and may change
     * what a page shows outside the database (the clock, a simulator): they always drop the caches.
     */
    isHooksPath: (path: string) => testHooksOn && path === "/__test/hooks",
    /**
     * Test hook (issue 10): how many statements each recent request for a URL sent (oldest first), the
     * page cache's storing step included. A GET, so asking does not drop the caches as a POST hook would.
     */
    countQueriesPerUrl(app: Express) {
      if (!testHooksOn) return;
      const counts = new Map<string, Array<{ count: number; statements: string[] }>>();
      app.get("/__test/query-count", (req, res) => {
        res.set("Cache-Control", "no-store").json(counts.get(String(req.query.url ?? "")) ?? []);
      });
      app.use((req, _res, next) => {
        const counter = { count: 0, statements: [] as string[] };
        if (counts.size > 200) counts.clear();
        const list = counts.get(req.originalUrl) ?? [];
        if (list.length < 50) list.push(counter);
        counts.set(req.originalUrl, list);
        countQueries.run(counter, next);
      });
    },
  };
}
