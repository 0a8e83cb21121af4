import type { APIRequestContext } from "@playwright/test";

/** Calls a server-side test hook (app/testing/hooks.server.ts) and returns its JSON. */
export async function testHook<T = unknown>(request: APIRequestContext, intent: string, body: Record<string, unknown> = {}): Promise<T> {
  const response = await request.post("/__test/hooks", { data: { intent, ...body } });
  if (!response.ok()) throw new Error(`test hook ${intent} failed: ${response.status()} ${await response.text()}`);
  return (await response.json()) as T;
}
