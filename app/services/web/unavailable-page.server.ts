/**
 * The page a visitor sees while the database cannot be reached (issue 14): 503 with Retry-After, in
 * the site's own layout. The layout is the header and footer of the last page this process rendered
 * successfully (they are the same for every visitor); the part in <main> is replaced, and every
 * script is left out. Before any page has rendered, a plain page with the same message is used.
 */
import { isDatabaseUnavailable, outageReason, RETRY_AFTER_SECONDS } from "~/db/unavailable";
import { isSoftwareUnreachable } from "~/storage-software/errors";

let layout: { head: string; before: string; after: string } | null = null;
/**
 * The last good page, kept as it is: cutting the layout out of it (five regular expressions over the
 * whole page) is done only when the 503 page is needed, not on every render (decision 164).
 */
let lastPage: string | null = null;

const MAIN_OPEN = /<main\b[^>]*>/i;

/** Keeps the chrome of a successfully rendered public page (called for 200 GET document responses). */
export function rememberLayout(html: string): void {
  // A page without the usual shape (no <main>) leaves the layout as it was.
  if (shape(html)) lastPage = html;
}

function shape(html: string) {
  const open = MAIN_OPEN.exec(html);
  const close = html.lastIndexOf("</main>");
  const headEnd = html.indexOf("</head>");
  if (!open || close < 0 || headEnd < 0 || headEnd > open.index) return null;
  return { open, close, headEnd };
}

function currentLayout(): typeof layout {
  const html = lastPage;
  const parts = html === null ? null : shape(html);
  if (html === null || !parts) return layout;
  lastPage = null;
  const { open, close, headEnd } = parts;
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
  return layout;
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
  const chrome = currentLayout();
  if (!chrome) {
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title></head><body>${main}</body></html>`;
  }
  return `<!DOCTYPE html><html lang="en"><head>${withNonce(chrome.head)}<meta name="robots" content="noindex"><title>${title}</title></head>${withNonce(chrome.before)}${main}${withNonce(chrome.after)}`;
}

export const RETRY_AFTER = String(RETRY_AFTER_SECONDS);

/**
 * What could not be reached, when `error` is an outage and not a bug: the database ("db") or the
 * facility's storage software ("storage", e.g. SiteLink). One mechanism for both (issues 11, 14):
 * the page answers 503 with Retry-After, a form keeps what was typed. Null for any other error.
 */
export function outageOf(error: unknown): "db" | "storage" | null {
  if (isDatabaseUnavailable(error)) return "db";
  if (isSoftwareUnreachable(error)) return "storage";
  return null;
}

/** A short, safe description of an outage for the log (never SQL parameters or a SOAP body). */
export function outageLogFields(error: unknown): { what: string; reason: string } {
  const what = outageOf(error) === "storage" ? "storage software" : "db";
  const reason = outageOf(error) === "storage" && error instanceof Error ? error.message.split("\n")[0]!.slice(0, 300) : outageReason(error);
  return { what, reason };
}

const outageRequests = new WeakSet<Request>();

/** Marks a request whose loader or action failed because the database was unreachable. */
export function markOutage(request: Request): void {
  outageRequests.add(request);
}

export function hadOutage(request: Request): boolean {
  return outageRequests.has(request);
}
