/**
 * The page a visitor sees while the database cannot be reached (issue 14): 503 with Retry-After, in
 * the site's own layout. The layout is the header and footer of the last page this process rendered
 * successfully (they are the same for every visitor); the part in <main> is replaced, and every
 * script is left out. Before any page has rendered, a plain page with the same message is used.
 */
import { RETRY_AFTER_SECONDS } from "~/db/unavailable";

let layout: { head: string; before: string; after: string } | null = null;

const MAIN_OPEN = /<main\b[^>]*>/i;

/** Keeps the chrome of a successfully rendered public page (called for 200 GET document responses). */
export function rememberLayout(html: string): void {
  const open = MAIN_OPEN.exec(html);
  const close = html.lastIndexOf("</main>");
  const headEnd = html.indexOf("</head>");
  if (!open || close < 0 || headEnd < 0 || headEnd > open.index) return;
  const strip = (part: string) =>
    part
      .replace(/<script\b[\s\S]*?<\/script>/gi, "")
      .replace(/<link\b[^>]*rel="(?:canonical|modulepreload|alternate)"[^>]*>/gi, "")
      .replace(/<meta\b[^>]*(?:name="(?:description|robots)"|property="og:[^"]*")[^>]*>/gi, "")
      .replace(/<title>[\s\S]*?<\/title>/i, "")
      // Forms in the chrome (none today) would carry a per-visitor token: drop any hidden inputs.
      .replace(/<input\b[^>]*type="hidden"[^>]*>/gi, "");
  const headStart = html.indexOf("<head>");
  layout = {
    head: strip(html.slice(headStart + "<head>".length, headEnd)),
    before: strip(html.slice(headEnd + "</head>".length, open.index)),
    after: strip(html.slice(close + "</main>".length)),
  };
}

/** For tests: forget the remembered layout. */
export function forgetLayout(): void {
  layout = null;
}

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * The 503 page. `afterForm`: the visitor had just sent a form (without JavaScript); what they typed
 * is kept by the browser when they go back.
 */
export function unavailablePageHtml(options: { nonce: string; afterForm?: boolean; siteName?: string }): string {
  const nonceAttr = ` nonce="${escape(options.nonce)}"`;
  const title = `Back in a moment${options.siteName ? ` | ${escape(options.siteName)}` : ""}`;
  const message = options.afterForm
    ? `<p>We could not save what you sent because our system is briefly unavailable. Nothing was saved and nothing was charged.</p>
<p>Please use your browser's <strong>Back</strong> button: what you typed is still in the form. Then try again in a minute.</p>`
    : `<p>Our system is briefly unavailable, so we cannot show this page right now. Please try again in a minute.</p>`;
  const main = `<main id="main" tabindex="-1"><div class="container page error-page">
<p class="eyebrow">Error 503</p>
<h1>We will be back in a moment</h1>
${message}
<p>If you need help now, please call the office.</p>
</div></main>`;
  const withNonce = (part: string) => part.replace(/\snonce="[^"]*"/g, nonceAttr);
  if (!layout) {
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title></head><body>${main}</body></html>`;
  }
  return `<!DOCTYPE html><html lang="en"><head>${withNonce(layout.head)}<meta name="robots" content="noindex"><title>${title}</title></head>${withNonce(layout.before)}${main}${withNonce(layout.after)}`;
}

export const RETRY_AFTER = String(RETRY_AFTER_SECONDS);

const outageRequests = new WeakSet<Request>();

/** Marks a request whose loader or action failed because the database was unreachable. */
export function markOutage(request: Request): void {
  outageRequests.add(request);
}

export function hadOutage(request: Request): boolean {
  return outageRequests.has(request);
}
