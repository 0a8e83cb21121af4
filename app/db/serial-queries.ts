/**
 * One statement at a time on a PostgreSQL connection (issue 24, docs/decisions/350-one-statement-at-a-time-per-connection.md).
 *
 * A transaction holds one connection, and several pieces of work may send statements on it at once: a
 * previewed page's loaders run in parallel inside the preview transaction (decision 315), and any
 * `Promise.all` inside `db.transaction` does the same. node-postgres 8 queues such calls itself but
 * warns ("Calling client.query() when the client is already executing a query is deprecated") and
 * pg 9 will refuse them. This wraps a client's `query` in a queue of our own: each call is handed to
 * the client only once the one before it has finished, in the order they were made, so the client
 * never has a query waiting behind another. Results and errors go to their own caller unchanged.
 *
 * A Submittable (a cursor or a stream: an object with `submit`) and a call whose config carries its
 * own callback are passed straight on: they end on events of their own. Neither is used here.
 *
 * Pure: promises only, no I/O.
 */

type Callback = (error: Error | null, result?: unknown) => void;
type QueryFn = (...args: unknown[]) => unknown;

const SERIALISED = Symbol("gatehouse.serialisedQueries");

/** Makes `client.query` send one statement at a time (idempotent: a client is wrapped once). */
export function serialiseQueries<C extends { query: unknown }>(client: C): C {
  const target = client as unknown as { query: QueryFn; [SERIALISED]?: true };
  if (target[SERIALISED]) return client;
  const query = target.query.bind(client) as QueryFn;
  let tail: Promise<unknown> = Promise.resolve();
  target.query = (...args: unknown[]) => {
    const first = args[0] as { submit?: unknown; callback?: unknown } | null | undefined;
    if (first && typeof first === "object" && (typeof first.submit === "function" || typeof first.callback === "function")) return query(...args);
    const callback = typeof args[args.length - 1] === "function" ? (args.pop() as Callback) : undefined;
    const run = tail.then(() => query(...args) as Promise<unknown>);
    tail = run.then(
      () => undefined,
      () => undefined,
    );
    if (!callback) return run;
    run.then(
      (result) => callback(null, result),
      (error: Error) => callback(error),
    );
    return undefined;
  };
  target[SERIALISED] = true;
  return client;
}
