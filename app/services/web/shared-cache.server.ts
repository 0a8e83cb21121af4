/**
 * Purging the shared cache in front (issue 41, decisions 570–571). Every change to what a public page
 * shows queues its cache tags in the writing transaction (the `gatehouse_changed` triggers); its
 * notification reaches every server process, and each one calls `changed()`: the first to claim the
 * queued tags purges them, once, through the configured adapter (CACHE_PURGE); the others find nothing.
 * A publish, a rollback, a price or an inventory change, through the console, a rental, the SiteLink
 * sync or a script: all are changes to those tables, so all are purged the same way, exactly by the
 * tags the changed rows name.
 *
 * A purge that fails puts its tags back and is tried again after `RETRY_MS` (and at the next change).
 * Without an adapter the queue is emptied all the same, so it never grows.
 *
 * Each purge is sent a second time `SETTLE_MS` later (decision 578). A process that has not yet heard of
 * the change no longer refills the cache with the old page (the shared-cache guard checks the change
 * counter first, decision 710); what is left is an answer already on its way to the cache when the change
 * committed, stored just after the first purge: the second one drops it.
 */
import type { Database } from "~/db/client.server";
import { claimQueuedPurges, requeuePurges } from "~/db/cache-purges.server";
import { readTaggedPages } from "~/db/queries/tagged-pages.server";
import type { SiteCache } from "~/db/site-cache.server";
import { pathsForTags } from "~/domain/web/cache-tags";
import { logger } from "~/platform/logger.server";
import { sharedCachePurgeOf, type SharedCachePurge } from "~/platform/shared-cache-purge.server";

const RETRY_MS = 2_000;
/** When the second purge of the same tags goes (decision 578): well inside the one second a publish has to be visible in. */
export const SETTLE_MS = 400;

interface SharedCachePurger {
  readonly adapter: SharedCachePurge | null;
  /** A change was notified: claim what is queued and purge it (coalesced: one run at a time). */
  changed(): void;
  /** Resolves when no run is in progress (tests). */
  settled(): Promise<void>;
  stop(): void;
}

export function sharedCachePurger(
  deps: { db: Database; siteCache?: SiteCache },
  e: Parameters<typeof sharedCachePurgeOf>[0],
  adapter: SharedCachePurge | null = sharedCachePurgeOf(e, async (tags) => pathsForTags(await readTaggedPages(deps), tags)),
): SharedCachePurger {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const settling = new Set<NodeJS.Timeout>();

  /** The same tags purged again once the other processes have dropped their pages (decision 578). */
  function purgeAgainLater(tags: string[]): void {
    if (!adapter || stopped) return;
    const timer = setTimeout(() => {
      settling.delete(timer);
      if (stopped) return;
      adapter.purge(tags).catch(async (error: unknown) => {
        logger.warn({ err: error, tags: tags.length }, "[shared-cache] second purge failed: tried again shortly");
        await requeuePurges(deps.db, tags).catch((e: unknown) => logger.warn({ err: e }, "[shared-cache] purge could not be queued again"));
        changed();
      });
    }, SETTLE_MS);
    timer.unref();
    settling.add(timer);
  }

  async function run(): Promise<void> {
    do {
      again = false;
      let tags: string[] = [];
      try {
        tags = await claimQueuedPurges(deps.db);
        if (!tags.length || !adapter) continue;
        await adapter.purge(tags);
        logger.info({ tags: tags.length, adapter: adapter.name }, "[shared-cache] purged");
        purgeAgainLater(tags);
      } catch (error) {
        logger.warn({ err: error, tags: tags.length }, "[shared-cache] purge failed: tried again shortly");
        if (tags.length) await requeuePurges(deps.db, tags).catch((e: unknown) => logger.warn({ err: e }, "[shared-cache] purge could not be queued again"));
        if (!stopped && !retry) {
          retry = setTimeout(() => {
            retry = undefined;
            changed();
          }, RETRY_MS);
          retry.unref();
        }
        return;
      }
    } while (again && !stopped);
  }

  function changed(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = run().finally(() => {
      running = null;
    });
  }

  return {
    adapter,
    changed,
    async settled() {
      while (running) await running;
    },
    stop() {
      stopped = true;
      clearTimeout(retry);
      for (const timer of settling) clearTimeout(timer);
      settling.clear();
    },
  };
}
