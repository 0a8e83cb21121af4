/**
 * The Fetch API request React Router is given for an Express request (our own small adapter, after
 * @react-router/express): the body is the one the body guard read and counted (`res.locals.body`),
 * not the socket, and it is aborted when the client goes away before the answer is finished.
 */
import type { Request, Response } from "express";

export function fetchRequest(req: Request, res: Response): globalThis.Request {
  const headers = new Headers();
  for (const [key, values] of Object.entries(req.headers)) {
    if (values === undefined) continue;
    for (const value of Array.isArray(values) ? values : [values]) headers.append(key, value);
  }
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const url = new URL(`${req.protocol}://${req.headers.host ?? "localhost"}${req.originalUrl}`);
  const body = res.locals.body;
  return new globalThis.Request(url.href, {
    method: req.method,
    headers,
    signal: controller.signal,
    ...(req.method !== "GET" && req.method !== "HEAD" ? { body: body ? new Uint8Array(body) : null } : {}),
  });
}
