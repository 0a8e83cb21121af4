/**
 * Preview mode (issue 24, docs/decisions/315-preview-mode.md): a signed-in staff member with
 * `content.edit` browses the public site as it will look once the account's draft is published. Pure
 * rules shared by the server (server/preview-mode.ts), the services and the pages.
 */
import { isSafeLocalPath } from "../web/safe-redirect";

/** The banner's words (every previewed page shows them, above the site's header). */
export const PREVIEW_BANNER_TEXT = "Preview: these changes are not live yet";

/** Cache-Control of a previewed page: never stored by a browser, a CDN or our page cache (which stores only `public`). */
export const PREVIEW_CACHE_CONTROL = "no-store, private";

/** X-Robots-Tag of a previewed page. */
export const PREVIEW_ROBOTS = "noindex";

/**
 * The rental, reservation, payment and portal flows are never previewed (decision 316): they talk to
 * the facility's software and take money, and their pages show what is live. Everything else the
 * public site serves (its content pages, the sitemap) is.
 */
const LIVE_ONLY_PREFIXES = ["/rent", "/reserve", "/pay", "/customer-portal", "/__test", "/admin", "/preview"] as const;

/** Whether a path (no query string) is shown in preview when preview is on. Console pages are never previewed. */
export function isPreviewablePath(pathname: string): boolean {
  return !LIVE_ONLY_PREFIXES.some((p) => pathname === p || pathname.startsWith(`${p}/`));
}

/** A form sent from a previewed page is refused (decision 316): nothing a visitor does is done for a preview. */
export const PREVIEW_FORM_REFUSED =
  "Forms are switched off while you preview unpublished changes, so nothing is sent. Leave preview to use this form on the live site.";

/** How long one previewed render may hold its transaction before it is rolled back and refused (ms). */
export const PREVIEW_RENDER_TIMEOUT_MS = 5_000;

/** Where "leave preview" goes back to: a safe local public path, else the changes page. */
export function previewReturnPath(value: unknown, fallback = "/admin/changes"): string {
  return typeof value === "string" && isSafeLocalPath(value) ? value : fallback;
}
