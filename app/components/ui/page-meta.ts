import type { MetaDescriptor } from "react-router";

export interface PageMetaInput {
  title: string;
  description?: string;
  /** Absolute canonical URL of the page (from the website's primary domain). */
  canonical?: string;
  image?: string;
  type?: "website" | "business.business";
  siteName?: string;
  noindex?: boolean;
  jsonLd?: unknown;
}

/** <title>, description, canonical and Open Graph tags for a page. */
export function pageMeta(input: PageMetaInput): MetaDescriptor[] {
  const tags: MetaDescriptor[] = [{ title: input.title }, { property: "og:title", content: input.title }];
  if (input.description) {
    tags.push({ name: "description", content: input.description }, { property: "og:description", content: input.description });
  }
  if (input.canonical) {
    tags.push({ tagName: "link", rel: "canonical", href: input.canonical }, { property: "og:url", content: input.canonical });
  }
  tags.push({ property: "og:type", content: input.type ?? "website" });
  if (input.siteName) tags.push({ property: "og:site_name", content: input.siteName });
  if (input.image) tags.push({ property: "og:image", content: input.image });
  tags.push({ name: "twitter:card", content: input.image ? "summary_large_image" : "summary" });
  if (input.noindex) tags.push({ name: "robots", content: "noindex" });
  if (input.jsonLd) tags.push({ "script:ld+json": input.jsonLd });
  return tags;
}

/** Absolute URL on the website's configured origin (the root loader's site.website.origin; never the request's host). */
export function absoluteUrl(origin: string | undefined, path: string): string | undefined {
  if (!origin) return undefined;
  if (/^https?:\/\//i.test(path)) return path;
  return `${origin}${path.startsWith("/") ? "" : "/"}${path}`;
}
