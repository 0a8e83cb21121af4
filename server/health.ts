/**
 * The health checks a load balancer, the monitor and the test runner ask: `/healthz` (is the process
 * up) and `/readyz` (can it reach the database). server.js never makes them wait behind visitors.
 */
import type { Request, Response } from "express";
import type { DatabaseHandle } from "~/db/client.server";
import { isDatabaseBusy, outageReason } from "~/db/unavailable";
import { logger } from "~/platform/logger.server";
import { RETRY_AFTER } from "~/services/web/unavailable-page.server";

/** Liveness for load balancers and the test runner: answered before any database read. */
export function liveness(_req: Request, res: Response) {
  res.set("Cache-Control", "no-store").type("text/plain").send("ok");
}

/**
 * Readiness: 503 while the database cannot be reached, so a load balancer takes this process out.
 * The same rule as every request (decision 205): a busy pool waits its turn like a visitor does, and
 * only a database that cannot be reached, or a connection queue past its stated bounds, answers 503.
 * The ping bounds itself (queue wait, connect timeout, a 1 s statement). The answer never names the
 * database's host or port; the log line says why.
 */
export function readiness(database: Pick<DatabaseHandle, "ping">) {
  return async (req: Request, res: Response) => {
    res.set("Cache-Control", "no-store").type("text/plain");
    try {
      await database.ping();
      res.send("ready");
    } catch (error) {
      const what = isDatabaseBusy(error) ? "database busy" : "database unreachable";
      logger.warn({ method: req.method, reason: outageReason(error) }, `[db] ${what}: readiness answered 503`);
      res.status(503).set("Retry-After", RETRY_AFTER).send(`not ready: ${what}`);
    }
  };
}
