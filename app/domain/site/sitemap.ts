/** The public pages every sitemap lists (location pages are added from the data). */
export const PUBLIC_PATHS = [
  "/",
  "/view-locations",
  "/units",
  "/about",
  "/portable-storage",
  "/contact",
  "/faqs",
  "/storage-tips",
  "/size-guide",
  "/privacy-policy",
  "/customer-portal/login",
] as const;

function escapeXml(value: string): string {
  return value.replace(/[<>&'"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c]!);
}

export function buildSitemap(origin: string, paths: readonly string[]): string {
  const urls = [...new Set(paths)].map((p) => `  <url><loc>${escapeXml(origin + p)}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("\n")}\n</urlset>\n`;
}
