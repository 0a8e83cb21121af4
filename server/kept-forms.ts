/**
 * The kept forms (decisions 330, 426, 428): pages answered to many visitors without cookies from one
 * render, each with the visitor's own CSRF token and this answer's nonce, without React Router or the
 * database — so a rush (a rental form opened by a thousand visitors, a sold-out unit type, sign-ins
 * while the hashing threads are busy) costs one render. The cache and its keys are
 * server/form-page-cache.ts; this is where a request is answered from it, and where a rendered answer
 * is kept in it. Never from data kept through an outage, never without a nonce.
 */
import type { Request, Response } from "express";
import type { Database } from "~/db/client.server";
import { readNextAvailabilityChange } from "~/db/queries/cached-reads.server";
import type { SiteCache } from "~/db/site-cache.server";
import { signInSchema } from "~/domain/portal/forms";
import { passwordChecksBusy } from "~/platform/password.server";
import { anonymousCsrfOfForm, csrfCookie, CSRF_FIELD, getCsrfToken } from "~/services/web/csrf.server";
import { PASSWORD_BUSY_MESSAGE } from "~/services/web/form-outage.server";
import { fetchRequest } from "./fetch-request";
import { busySignInKey, csrfFieldValue, escapeAttribute, fillFormPage, formPageKey, occursOnce, soldOutAnswerKey, type FormPageCache, type KeptFormPage } from "./form-page-cache";

/** Where a request's answer may be kept, looked up before it was rendered (null: not such a request). */
interface KeptFormKeys {
  formKey: string | null;
  answerKey: string | null;
  signInKey: string | null;
  /** The kept forms' generation before rendering (a render that overlapped a change is not kept). */
  formGeneration: number;
  nonce: string;
}

export function keptFormsOf(deps: { db: Database; siteCache: SiteCache; formPages: FormPageCache; pageCacheOn: boolean }) {
  const { db, siteCache, formPages, pageCacheOn } = deps;

  /** The answer from a kept form when there is one (null: answered), else where to keep this request's. */
  async function answerFromKept(req: Request, res: Response): Promise<KeptFormKeys | null> {
    const nonce = res.locals.cspNonce as string;
    // Kept pages (decisions 330, 426, 428): never from data kept through an outage, never without a nonce.
    const keeping = pageCacheOn && res.locals.staleData !== true && nonce?.length >= 16;
    /** Sends a kept page with this answer's token and nonce (and typed value, and CSRF cookie), saying so. */
    const sendKept = (page: KeptFormPage, token: string, extra: { typed?: string; setCookie?: string } = {}) => {
      formPages.hits++;
      res.status(page.status);
      for (const [key, value] of page.headers) res.append(key, value);
      if (extra.setCookie) res.append("Set-Cookie", extra.setCookie);
      res.set("X-Form-Page", "kept");
      res.end(fillFormPage(page, token, nonce, extra.typed));
      return null;
    };
    // A visitor without cookies opening a rental form: the form rendered once, with this answer's own
    // CSRF token, cookie and nonce (decision 330).
    const formKey = keeping ? formPageKey(req) : null;
    const kept = formKey ? formPages.get(formKey) : undefined;
    if (kept) {
      const csrf = await getCsrfToken(fetchRequest(req, res));
      if (csrf.setCookie) return sendKept(kept, csrf.token, { setCookie: csrf.setCookie });
    }
    // A visitor with no session or rental sending the details step of a unit type whose last
    // answer to such a visitor was "sold out": that answer again, with their own token and this
    // answer's nonce, without React Router or the database (decision 426).
    const answerKey = keeping ? soldOutAnswerKey(req, csrfCookie().name) : null;
    const keptAnswer = answerKey ? formPages.get(answerKey) : undefined;
    if (keptAnswer) {
      const form = formOf(res.locals.body);
      const csrf = form?.get("intent") === "details" ? await anonymousCsrfOfForm(req.headers.cookie, form.get(CSRF_FIELD)) : null;
      if (csrf) return sendKept(keptAnswer, csrf.token);
    }
    // A visitor with no session signing in while the hashing threads are too busy to check a password
    // within the bound: the kept "busy" page with their own token, nonce and e-mail, without React
    // Router (decision 428) — the page the whole sign-in gives then, which counts and reads nothing.
    const signInKey = keeping ? busySignInKey(req, csrfCookie().name) : null;
    const busyPage = signInKey && passwordChecksBusy() ? formPages.get(signInKey) : undefined;
    if (busyPage) {
      const form = formOf(res.locals.body);
      const email = form?.get("email");
      const valid = form && email && signInSchema.safeParse({ email, password: form.get("password"), redirectTo: form.get("redirectTo") ?? undefined }).success;
      const csrf = valid ? await anonymousCsrfOfForm(req.headers.cookie, form.get(CSRF_FIELD)) : null;
      if (csrf && email) return sendKept(busyPage, csrf.token, { typed: `value="${escapeAttribute(email)}"` });
    }
    return { formKey, answerKey, signInKey, formGeneration: formPages.generation, nonce };
  }

  /** Keeps a rendered answer (its document's HTML) where the request's keys say it may be kept. */
  function keepAnswer(keys: KeptFormKeys, response: globalThis.Response, html: string | undefined, staleData: boolean | undefined, body: unknown) {
    const { formKey, answerKey, signInKey, formGeneration, nonce } = keys;
    if (formKey && html !== undefined && response.status === 200 && !staleData) keepFormPage(formKey, formGeneration, response, html, nonce);
    if (answerKey && html !== undefined && response.status === 409 && !staleData) keepSoldOutAnswer(answerKey, formGeneration, response, html, nonce);
    if (signInKey && html !== undefined && response.status === 429 && !staleData) keepBusySignIn(signInKey, formGeneration, response, html, nonce, body);
  }

  /** Keeps a rendered rental form (decision 330) when it is one: a CSRF field and its cookie, the nonce in it. */
  function keepFormPage(key: string, generation: number, response: globalThis.Response, html: string, nonce: string) {
    const token = csrfFieldValue(html, CSRF_FIELD);
    if (!token || !response.headers.has("Set-Cookie") || !html.includes(nonce)) return;
    const headers = [...response.headers.entries()].filter(([name]) => name.toLowerCase() !== "set-cookie");
    void readNextAvailabilityChange({ db, siteCache }).then(
      (nextChange) => formPages.set(key, generation, { status: response.status, headers, html, token, nonce }, nextChange),
      () => undefined,
    );
  }

  /**
   * Keeps the answer a new visitor's details step got when the unit type could not be rented (decision
   * 426): a 409 from the step's first check (sold out, coming soon, …), which reads no field, so it is
   * the same page for every such visitor apart from the token and the nonce. Not a page that sets a cookie.
   */
  function keepSoldOutAnswer(key: string, generation: number, response: globalThis.Response, html: string, nonce: string) {
    if (response.headers.has("Set-Cookie") || !html.includes(nonce)) return;
    const token = csrfFieldValue(html, CSRF_FIELD);
    const headers = [...response.headers.entries()];
    void readNextAvailabilityChange({ db, siteCache }).then(
      (nextChange) => formPages.set(key, generation, { status: response.status, headers, html, token, nonce }, nextChange),
      () => undefined,
    );
  }

  /**
   * Keeps the page a sign-in got when the hashing threads were too busy (decision 428): a 429 with the
   * busy message (not the rate limit's), no Set-Cookie, the visitor's e-mail once in it (the only thing
   * typed that the page shows; the password never is), so it can be filled in for the next visitor.
   */
  function keepBusySignIn(key: string, generation: number, response: globalThis.Response, html: string, nonce: string, body: unknown) {
    if (response.headers.has("Set-Cookie") || !html.includes(nonce) || !html.includes(PASSWORD_BUSY_MESSAGE)) return;
    const email = formOf(body)?.get("email");
    const typed = `value="${escapeAttribute(email ?? "")}"`;
    if (!email || !occursOnce(html, typed)) return;
    const token = csrfFieldValue(html, CSRF_FIELD);
    if (!token) return;
    const headers = [...response.headers.entries()];
    formPages.set(key, generation, { status: response.status, headers, html, token, nonce, typed }, null);
  }

  return { answerFromKept, keepAnswer };
}

/** The urlencoded form the body guard read (res.locals.body), or null. */
function formOf(body: unknown): URLSearchParams | null {
  return Buffer.isBuffer(body) ? new URLSearchParams(body.toString("utf8")) : null;
}

/** The kept forms as `keptFormsOf` wires them. */
export type KeptForms = ReturnType<typeof keptFormsOf>;
