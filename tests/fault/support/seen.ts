/**
 * How long a fault test waits for a change to be seen: on another process's page cache, through
 * nginx's cache after its purge, in a browser (decision 700).
 *
 * These tests check that a change is seen BECAUSE it was notified or purged: the caches involved keep
 * a page 60 s or more (the page cache, deploy/nginx.conf's proxy_cache), so a page that shows the
 * change within this limit was dropped by the notification or the purge, not by its lifetime. How
 * fast that is (well under a second on a quiet machine) is a speed figure: it is measured side by
 * side by `npm run bench -- --deployed` (bench/publish-deployed.ts) and written into
 * docs/performance.md, never asserted here, where a loaded machine would fail it at random.
 */
export const SEEN_WITHIN_MS = 5_000;
