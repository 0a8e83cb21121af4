/**
 * The rental form as a new visitor first sees it, rendered once and sent to many (issue 22,
 * docs/decisions/330-rental-form-rendered-once.md). In a rush, 1,000 visitors open the same rental
 * form within seconds; each render cost ~10 ms of CPU, so the last one waited for 10 s of renders.
 *
 * What is kept, and for whom:
 * - Only the answer to a GET of `/rent/{id}` exactly (no query string: the first step) from a
 *   visitor who sends NO cookie at all (no session, no rental, no CSRF cookie, no preview): the page
 *   is then the same for every such visitor except its per-response pieces — the CSRF token (a fresh
 *   one per visitor, with its cookie) and the CSP nonce. Those are filled in afresh for each answer
 *   (the kept copy's token and nonce are random 22+ character strings, replaced wherever they occur).
 * - Only a 200 with a CSRF field and its Set-Cookie (a page that sets no token is not this page).
 * - This is not the public page cache: the answer stays `no-store`, each answer has its own token
 *   and cookie, and nothing per visitor is kept (a visitor with any cookie is always rendered).
 *
 * How long: dropped whole with the page and site caches (a write of this process, the database's
 * change notification: a hold or a sale changes availability), and each copy ends after
 * `FORM_PAGE_TTL_MS`, at the next whole minute, and when the next hold or reservation runs out, like
 * a public page — so "sold out" shows as soon as the other pages show it.
 */

export interface KeptFormPage {
  status: number;
  /** The answer's headers except Set-Cookie (the CSRF cookie is each visitor's own). */
  headers: Array<[string, string]>;
  html: string;
  /** The CSRF field value (null: the page has no form) and the CSP nonce this copy was rendered with. */
  token: string | null;
  nonce: string;
  /** A value the visitor typed, as it stands (escaped) once in the page, filled in per answer (decision 428). */
  typed?: string;
  validUntil: number;
}

/** How long a kept form lives at most (it is also dropped by every change). */
const FORM_PAGE_TTL_MS = 5_000;
/** At most this many forms (one per unit type asked for). */
const MAX_FORM_PAGES = 500;
const FORM_PATH = /^\/rent\/\d{1,9}$/;

export class FormPageCache {
  generation = 0;
  hits = 0;
  private entries = new Map<string, KeptFormPage>();

  constructor(private readonly now: () => number = Date.now) {}

  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  get(key: string): KeptFormPage | undefined {
    const page = this.entries.get(key);
    if (!page) return undefined;
    if (page.validUntil <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return page;
  }

  /** Keeps a page rendered while `generation` was current (a render that overlapped a change is not kept). */
  set(key: string, generation: number, page: Omit<KeptFormPage, "validUntil">, nextChange: number | null): void {
    if (generation !== this.generation) return;
    if (this.entries.size >= MAX_FORM_PAGES && !this.entries.has(key)) return;
    const now = this.now();
    const nextMinute = Math.floor(now / 60_000 + 1) * 60_000;
    this.entries.set(key, { ...page, validUntil: Math.min(now + FORM_PAGE_TTL_MS, nextMinute, nextChange ?? Number.POSITIVE_INFINITY) });
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The key of a request whose answer may be a kept form (see above), or null. */
export function formPageKey(req: { method: string; originalUrl: string; headers: { cookie?: string; host?: string } }): string | null {
  if (req.method !== "GET") return null;
  if (req.headers.cookie !== undefined) return null;
  if (!FORM_PATH.test(req.originalUrl)) return null;
  return `${req.headers.host ?? ""} ${req.originalUrl}`;
}

/** The CSRF field's value in a rendered form, or null. */
export function csrfFieldValue(html: string, field: string): string | null {
  const input = new RegExp(`<input[^>]*name="${field}"[^>]*>`).exec(html)?.[0];
  const value = input ? /value="([A-Za-z0-9_-]{22,})"/.exec(input)?.[1] : undefined;
  return value ?? null;
}

/**
 * A kept page with this answer's own token and nonce, and where the page shows something the visitor
 * typed (`page.typed`, the exact text once in the page), `typed`: this visitor's, written the same way.
 */
export function fillFormPage(page: KeptFormPage, token: string, nonce: string, typed?: string): string {
  let html = page.token ? page.html.split(page.token).join(token) : page.html;
  html = html.split(page.nonce).join(nonce);
  if (page.typed !== undefined && typed !== undefined) {
    const at = html.indexOf(page.typed);
    if (at >= 0) html = html.slice(0, at) + typed + html.slice(at + page.typed.length);
  }
  return html;
}

/** A value as React writes it in an attribute (`&`, `"`, `'`, `<`, `>` escaped). */
export function escapeAttribute(value: string): string {
  return value.replace(/[&"'<>]/g, (c) => ({ "&": "&amp;", '"': "&quot;", "'": "&#x27;", "<": "&lt;", ">": "&gt;" })[c]!);
}

/** Whether `part` occurs exactly once in `html` (a typed value that can be filled in without touching anything else). */
export function occursOnce(html: string, part: string): boolean {
  const at = html.indexOf(part);
  return part.length > 0 && at >= 0 && html.indexOf(part, at + 1) < 0;
}

const DETAILS_PATH = /^\/rent\/\d{1,9}\?step=details$/;
const SIGN_IN_PATH = /^\/customer-portal\/login$/;

/** A form (urlencoded) POSTed by a visitor whose one cookie is the CSRF cookie named. */
function anonymousFormPost(req: { method: string; headers: { cookie?: string; "content-type"?: string } }, csrfCookieName: string): boolean {
  if (req.method !== "POST") return false;
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(req.headers["content-type"] ?? "")) return false;
  const cookie = req.headers.cookie;
  if (!cookie) return false;
  const names = cookie.split(";").map((pair) => (pair.includes("=") ? pair.slice(0, pair.indexOf("=")) : pair).trim());
  return names.length === 1 && names[0] === csrfCookieName;
}

type FormPost = { method: string; originalUrl: string; headers: { cookie?: string; host?: string; "content-type"?: string } };

/** The key of a form POSTed to a path matching `path` by a visitor whose one cookie is the CSRF cookie named, or null. */
const anonymousPostKey = (path: RegExp) => (req: FormPost, csrfCookieName: string): string | null =>
  path.test(req.originalUrl) && anonymousFormPost(req, csrfCookieName) ? `POST ${req.headers.host ?? ""} ${req.originalUrl}` : null;

/**
 * The key of a sign-in whose answer may be the kept "busy, try again in a moment" page (decision 428),
 * or null: a form POSTed to exactly `/customer-portal/login` (no query: the default page after it) by a
 * visitor whose one cookie is the CSRF cookie. Whether the threads are busy, the token is right and the
 * form is valid is checked by the caller.
 */
export const busySignInKey = anonymousPostKey(SIGN_IN_PATH);

/**
 * The key of a request whose answer may be the kept "sold out" answer (decision 426), or null: a form
 * (urlencoded) POSTed to the first step of `/rent/{id}` exactly by a visitor whose only cookie is the
 * CSRF cookie named (no session, no rental, no preview). Whether it is the details step and its
 * token is right is checked from the body by the caller.
 */
export const soldOutAnswerKey = anonymousPostKey(DETAILS_PATH);
