/**
 * Forms during a database outage (issue 14): the action answers 503 with a plain message instead of
 * an error page, so that (with JavaScript) the form stays on screen with what was typed. Without
 * JavaScript the page after the action needs the database too; if it is still down the visitor gets
 * the 503 page, which says that the Back button brings the typed answers back.
 */
import { data } from "react-router";
import { isDatabaseUnavailable, outageReason, RETRY_AFTER_SECONDS } from "~/db/unavailable";
import { NO_STORE } from "~/domain/cache";
import { logger } from "~/logger.server";

export function keepFormThroughOutage<Args, Result, Reply>(
  action: (args: Args) => Promise<Result>,
  reply: (args: Args) => Reply,
): (args: Args) => Promise<Result | ReturnType<typeof data<Reply>>> {
  return async (args) => {
    try {
      return await action(args);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      logger.warn({ reason: outageReason(error) }, "[db] unavailable: a form answered 503");
      return data(reply(args), { status: 503, headers: { "Retry-After": String(RETRY_AFTER_SECONDS), "Cache-Control": NO_STORE } });
    }
  };
}
