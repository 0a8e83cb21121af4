import { SETTLE_MS } from "~/services/web/shared-cache.server";
import type { PgCluster } from "./pg-cluster";
import { sleep } from "./ports";

/**
 * What the setup changed before nginx listened was queued, tried by a process at its start and put
 * back (nginx was not there yet), then tried again 2 s later: waits until that purge has gone, and its
 * second purge (decision 578), so that a test counts only its own publish's purges.
 */
export async function purgeQueueSettled(cluster: PgCluster): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Number((await cluster.query("select count(*) as n from cache_purges")).rows[0].n) > 0) {
    if (Date.now() > deadline) throw new Error("the purge queue was never emptied");
    await sleep(100);
  }
  await sleep(SETTLE_MS + 600);
}
