/**
 * Forms during a database outage (issue 14), or while the facility's storage software (SiteLink) cannot
 * be reached (issue 11; the same mechanism, see unavailable-page.server.ts `outageOf`): the action answers 503 with a plain message instead of
 * an error page, keeping what was typed (passwords and card data excepted). With JavaScript the form
 * stays on screen as it was (React Router does not revalidate after a 5xx action). Without
 * JavaScript the page after the action needs the database too; if it is still down the visitor gets
 * the 503 page, which says that the Back button brings the typed answers back.
 */
import { data } from "react-router";
import type { SubmissionResult } from "@conform-to/react";
import { FORM_UNAVAILABLE_MESSAGE, RETRY_AFTER_SECONDS } from "~/db/unavailable";
import { NO_STORE } from "~/domain/web/cache";
import { logger } from "~/platform/logger.server";
import { outageLogFields, outageOf } from "./unavailable-page.server";
import { PasswordBusyError } from "~/platform/password.server";

/**
 * A sign-in (or any password check) while the hashing threads have more queued than they can check
 * within the allowed wait (decision 331): 429 with Retry-After, what was typed kept (not the password).
 */
export const PASSWORD_BUSY_MESSAGE = "Many people are signing in right now. Please try again in a moment.";
const PASSWORD_BUSY_RETRY_AFTER_SECONDS = 5;

/** Never echoed back: passwords, card data, tokens. */
const SECRET_FIELD = /pw|password|card_number|cvv|csrf|token/i;

export function keepFormThroughOutage<Args extends { request: Request }, Result, Reply>(
  action: (args: Args) => Promise<Result>,
  reply: (form: FormData | null, message?: string) => Reply,
): (args: Args) => Promise<Result | ReturnType<typeof data<Reply>>> {
  return async (args) => {
    // The form is parsed once (issue 22): the action's request.formData() and the answer below share
    // one parse, so the body needs no copy (a clone tees the stream for every post).
    const copy = { formData: parseOnce(args.request) };
    try {
      return await action(args);
    } catch (error) {
      if (error instanceof PasswordBusyError) {
        logger.warn("[passwords] busy: a form answered 429");
        const form = await copy.formData().catch(() => null);
        return data(reply(form, PASSWORD_BUSY_MESSAGE), {
          status: 429,
          headers: { "Retry-After": String(PASSWORD_BUSY_RETRY_AFTER_SECONDS), "Cache-Control": NO_STORE },
        });
      }
      if (!outageOf(error)) throw error;
      const { what, reason } = outageLogFields(error);
      logger.warn({ reason }, `[${what}] unavailable: a form answered 503`);
      const form = await copy.formData().catch(() => null);
      return data(reply(form), { status: 503, headers: { "Retry-After": String(RETRY_AFTER_SECONDS), "Cache-Control": NO_STORE } });
    }
  };
}

/** Makes request.formData() parse once and answer the same form to every caller; returns it. */
function parseOnce(request: Request): () => Promise<FormData> {
  const read = request.formData.bind(request);
  let form: Promise<FormData> | undefined;
  const formData = () => (form ??= read());
  Object.defineProperty(request, "formData", { value: formData, configurable: true });
  return formData;
}

/** A Conform result with the form-level message and the typed values (secrets left out). */
export function outageResult(form: FormData | null, message = FORM_UNAVAILABLE_MESSAGE): SubmissionResult<string[]> {
  const initialValue: Record<string, string> = {};
  for (const [name, value] of form?.entries() ?? []) {
    if (typeof value === "string" && !SECRET_FIELD.test(name)) initialValue[name] = value;
  }
  return { status: "error", initialValue, error: { "": [message] } };
}
