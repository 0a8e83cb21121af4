/**
 * Cache-Control values. Content pages may be served by a CDN for five minutes and served stale
 * for a day while it refreshes; browsers always revalidate. Pages with forms or personal data are
 * never stored.
 */
export const CONTENT_CACHE = "public, max-age=0, s-maxage=300, stale-while-revalidate=86400";
/** Pages that show live availability: `UNIT_AVAILABILITY_CACHE` in ./units.ts (decision 033). */
export const NO_STORE = "private, no-store";
