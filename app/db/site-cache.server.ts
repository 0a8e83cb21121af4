/**
 * The per-process cache of what every page reads and only the operator changes (issue 10,
 * docs/decisions/120-site-cache.md): the website row, the account, the layout (menus, locations,
 * footer), the redirect rules and old domains, the location list, the static part of a location
 * page, content items, and when availability next changes on its own.
 *
 * It is invalidated exactly like the page cache (server/caches.ts wires both to the same events):
 * - a request of this process that wrote to a table a public page reads drops it when it finishes
 *   (our own writes, test hooks; a refused request drops nothing: decision 191);
 * - the database's `gatehouse_changed` notification (a trigger on every table cached here,
 *   migration 0003) drops it in every process: other processes, scripts, the seed, the billing run;
 * - a load that started before a drop is never served after it (the entries are cleared, and a
 *   value only lands in the entry that asked for it).
 *
 * Only a server that listens for the notification creates one (`context.siteCache`); without it
 * (tests calling loaders, scripts) every read goes to the database as before.
 *
 * During a database outage a read that fails falls back to the last value this process loaded for
 * that key, however old, and the request is marked (`staleData`) so its page is not stored: nobody
 * can rent while the database is down, and old menus beat an error page.
 */
import { isDatabaseUnavailable } from "./unavailable";

interface Entry {
  value: Promise<unknown>;
  /** Epoch ms after which the entry is read again even without a change (Infinity: until a change). */
  validUntil: number;
}

interface ReadOptions<T> {
  /** For values that change with time alone: the moment the value stops being true. */
  validUntil?: (value: T) => number;
  /** Called when the database could not be reached and the last known value is returned instead. */
  onStale?: () => void;
}

export class SiteCache {
  /** Bumped by every invalidation. */
  generation = 0;
  /** Loads from the database (for tests and the bench). */
  loads = 0;
  private entries = new Map<string, Entry>();
  /** The last value loaded for each key, for outages only (keys are a small fixed set per site). */
  private lastGood = new Map<string, unknown>();

  constructor(private readonly now: () => number = Date.now) {}

  async read<T>(key: string, load: () => Promise<T>, options: ReadOptions<T> = {}): Promise<T> {
    let entry = this.entries.get(key);
    if (!entry || entry.validUntil <= this.now()) {
      // (A Drizzle query is a "thenable" that runs again on each then(): settle it once, here.)
      const mine: Entry = { value: Promise.resolve().then(load), validUntil: Number.POSITIVE_INFINITY };
      entry = mine;
      this.loads++;
      this.entries.set(key, mine);
      const generation = this.generation;
      mine.value.then(
        (value) => {
          this.lastGood.set(key, value);
          if (options.validUntil && generation === this.generation) mine.validUntil = options.validUntil(value as T);
        },
        () => {
          if (this.entries.get(key) === mine) this.entries.delete(key);
        },
      );
    }
    try {
      return (await entry.value) as T;
    } catch (error) {
      if (isDatabaseUnavailable(error) && this.lastGood.has(key)) {
        options.onStale?.();
        return this.lastGood.get(key) as T;
      }
      throw error;
    }
  }

  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** What a cached read needs from the request: the server's cache (absent: no caching) and the stale mark. */
export interface CacheContext {
  siteCache?: SiteCache;
  /** Set when a value came from the outage fallback: the page must not be stored. */
  staleData?: boolean;
}

/** `load()` through the request's site cache when the server gave it one; otherwise straight to the database. */
export function cachedRead<T>(context: CacheContext, key: string, load: () => Promise<T>, options: Omit<ReadOptions<T>, "onStale"> = {}): Promise<T> {
  const cache = context.siteCache;
  if (!cache) return load();
  return cache.read(key, load, {
    ...options,
    onStale: () => {
      context.staleData = true;
    },
  });
}
