import { and, asc, eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { contentItems, pages, type ContentItemTag } from "~/db/schema";
import { sanitizeOperatorHtml } from "~/domain/content/sanitize.server";

/** Content items of one tag in index order, their HTML sanitised. */
export async function getContentItems(db: Database, accountId: number, tag: ContentItemTag) {
  const rows = await db
    .select({ id: contentItems.id, title: contentItems.title, content: contentItems.content, index: contentItems.index })
    .from(contentItems)
    .where(and(eq(contentItems.accountId, accountId), eq(contentItems.tag, tag)))
    .orderBy(asc(contentItems.index), asc(contentItems.id));
  return rows.map((r) => ({ ...r, content: sanitizeOperatorHtml(r.content) }));
}

/** A free-standing content page by slug, its HTML sanitised; null when missing. */
export async function getPage(db: Database, accountId: number, slug: string) {
  const page = await db.query.pages.findFirst({ where: and(eq(pages.accountId, accountId), eq(pages.slug, slug)) });
  return page ? { ...page, content: sanitizeOperatorHtml(page.content) } : null;
}
