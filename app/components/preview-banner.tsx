import { PREVIEW_BANNER_TEXT } from "~/domain/preview";
import { CsrfInput } from "./form";

/**
 * The banner on every page rendered in preview mode (issue 24, decision 315): what it is, a link back
 * to the changes, and a plain form button to leave preview (no script: content pages send none).
 * Outside <main>, so the draft's diff never counts it.
 */
export function PreviewBanner({ csrfToken, returnTo }: { csrfToken: string; returnTo: string }) {
  return (
    <section className="preview-banner" aria-label="Preview">
      <p className="preview-banner__text">
        <strong>{PREVIEW_BANNER_TEXT}</strong>
      </p>
      <p className="preview-banner__links">
        <a href="/admin/changes">Back to the changes</a> <a href="/admin/changes/diff">What will change</a>
      </p>
      <form method="post" action="/admin/preview" className="preview-banner__form">
        <CsrfInput token={csrfToken} />
        <input type="hidden" name="intent" value="off" />
        <input type="hidden" name="returnTo" value={returnTo} />
        <button type="submit" className="preview-banner__button">
          Leave preview
        </button>
      </form>
    </section>
  );
}
