/** Adds our CSP nonce to every <script> tag of the operator's code that has none. */
export function addNonceToScripts(code: string, nonce: string): string {
  if (!nonce) return code;
  return code.replace(/<script\b(?![^>]*\bnonce=)/gi, `<script nonce="${nonce}"`);
}

/**
 * Puts the website's custom header code at the end of <head> and its custom body code at the start
 * of <body>, where a site builder puts them.
 */
export function injectCustomCode(html: string, code: { head: string; body: string; nonce: string }): string {
  let out = html;
  if (code.head.trim()) {
    out = out.replace("</head>", `${addNonceToScripts(code.head, code.nonce)}</head>`);
  }
  if (code.body.trim()) {
    out = out.replace(/<body([^>]*)>/, (m) => `${m}${addNonceToScripts(code.body, code.nonce)}`);
  }
  return out;
}
