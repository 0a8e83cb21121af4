import { PREVIEW_BANNER_TEXT } from "~/domain/content/preview";

/**
 * The banner on every page rendered in preview mode (issue 24, decision 315): what it is, a link back
 * to the changes, and a plain form button to leave preview (no script: content pages send none).
 * Outside <main>, so the draft's diff never counts it.
 */
export function PreviewBanner({ returnTo }: { returnTo: string }) {
  return (
    <section className="preview-banner" aria-label="Preview">
      <p className="preview-banner__text">
        <strong>{PREVIEW_BANNER_TEXT}</strong>
      </p>
      <p className="preview-banner__links">
        <a href="/admin/changes">Back to the changes</a> <a href="/admin/changes/diff">What will change</a>
      </p>
      {/* The public site's own "leave" (decision 450): the console is on another origin. */}
      <form method="get" action="/preview/end" className="preview-banner__form">
        <input type="hidden" name="returnTo" value={returnTo} />
        <button type="submit" className="preview-banner__button">
          Leave preview
        </button>
      </form>
    </section>
  );
}
