import { eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { redirects } from "~/db/schema";
import { findRedirectLoop, normalizePath } from "~/domain/redirects";

export class RedirectLoopError extends Error {
  override name = "RedirectLoopError";
}

/**
 * Saves a permanent redirect for a website. The source path is stored normalised; a rule that would
 * make a loop with the existing ones (including one that points at itself) is refused.
 */
export async function saveRedirect(
  db: Database | Transaction,
  input: { websiteId: number; fromPath: string; toPath: string; statusCode?: number },
) {
  const fromPath = normalizePath(input.fromPath);
  const existing = await db
    .select({ fromPath: redirects.fromPath, toPath: redirects.toPath, statusCode: redirects.statusCode })
    .from(redirects)
    .where(eq(redirects.websiteId, input.websiteId));
  const loop = findRedirectLoop(existing, { fromPath, toPath: input.toPath });
  if (loop) throw new RedirectLoopError(loop);
  const [row] = await db
    .insert(redirects)
    .values({ websiteId: input.websiteId, fromPath, toPath: input.toPath, statusCode: input.statusCode ?? 301 })
    .onConflictDoUpdate({
      target: [redirects.websiteId, redirects.fromPath],
      set: { toPath: input.toPath, statusCode: input.statusCode ?? 301 },
    })
    .returning();
  return row!;
}
