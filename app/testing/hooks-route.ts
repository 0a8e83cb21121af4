import type { Route } from "./+types/hooks-route";
import { testHooks, testHooksEnabled } from "~/testing/hooks.server";
import { notFound } from "~/services/web/responses.server";

/** POST /__test/hooks with JSON { intent, ... }: see app/testing/hooks.server.ts. */
export async function action({ request, context }: Route.ActionArgs) {
  if (!testHooksEnabled()) throw notFound();
  const body = (await request.json()) as Record<string, unknown>;
  const hook = typeof body.intent === "string" ? testHooks[body.intent] : undefined;
  if (!hook) return Response.json({ error: `Unknown intent ${String(body.intent)}` }, { status: 400 });
  return Response.json((await hook(context.db, body)) ?? { ok: true }, { headers: { "Cache-Control": "no-store" } });
}

export function loader() {
  throw notFound();
}
