/**
 * Cache-Control values. Content pages may be served by a CDN for five minutes and served stale
 * for a day while it refreshes; browsers always revalidate. Pages with forms or personal data are
 * never stored.
 */
export const CONTENT_CACHE = "public, max-age=0, s-maxage=300, stale-while-revalidate=86400";
/** Pages that show live availability: `UNIT_AVAILABILITY_CACHE` in ./units.ts (decision 033). */
export const NO_STORE = "private, no-store";
/**
 * An answer a shared cache would otherwise store, made by a process that could not read the change
 * counter (the database down or its pool full, decision 710): it may be behind on a change whose purge
 * has run, so a shared cache keeps it one second at most (nothing stale-while-revalidate).
 */
export const SHARED_CACHE_UNCHECKED = "public, max-age=0, s-maxage=1";
