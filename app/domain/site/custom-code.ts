/** Adds our CSP nonce to every <script> tag of the operator's code that has none. */
export function addNonceToScripts(code: string, nonce: string): string {
  if (!nonce) return code;
  return code.replace(/<script\b(?![^>]*\bnonce=)/gi, `<script nonce="${nonce}"`);
}

interface CustomCode {
  /** The website's custom header code: at the end of <head>. */
  head: string;
  /** The website's custom body code: right after <body>. */
  body: string;
  /** Analytics snippets (already carrying the nonce): top of <head> and right after <body>. */
  analyticsHead?: string;
  analyticsBody?: string;
  nonce: string;
}

const HEAD_OPEN = /<head\b[^>]*>(\s*<meta charSet="utf-8"\s*\/?>)?/i;
const BODY_OPEN = /<body\b[^>]*>/i;

/**
 * Puts the website's code where a site builder puts it: the analytics tag at the top of <head>
 * (after the charset), the custom header code at the end of <head>, and the analytics no-script
 * fallback and the custom body code at the start of <body>. The operator's scripts get our CSP
 * nonce. Each piece is inserted once, in the document's first <head> and <body>.
 */
export function injectCustomCode(html: string, code: CustomCode): string {
  let out = html;
  const analyticsHead = code.analyticsHead?.trim() ?? "";
  const head = code.head.trim() ? addNonceToScripts(code.head, code.nonce) : "";
  const body = `${code.analyticsBody?.trim() ?? ""}${code.body.trim() ? addNonceToScripts(code.body, code.nonce) : ""}`;
  if (analyticsHead) out = out.replace(HEAD_OPEN, (m) => `${m}${analyticsHead}`);
  if (head) {
    const at = out.indexOf("</head>");
    if (at >= 0) out = `${out.slice(0, at)}${head}${out.slice(at)}`;
  }
  if (body) out = out.replace(BODY_OPEN, (m) => `${m}${body}`);
  return out;
}
