import type { MetaDescriptor } from "react-router";
import { absoluteUrl, pageMeta, type PageMetaInput } from "./page-meta";

interface RootMatchData {
  site?: { website: { websiteName: string; domain: string; origin?: string } } | null;
}

type Matches = ReadonlyArray<{ id: string; data?: unknown; loaderData?: unknown } | undefined>;

/** The website's name, domain and configured origin from the root route's data, for titles and canonical URLs. */
export function siteFromMatches(matches: Matches) {
  const root = matches.find((m) => m?.id === "root");
  const d = (root?.loaderData ?? root?.data) as RootMatchData | undefined;
  return d?.site?.website ?? null;
}

/**
 * Meta for a page: "{title} | {website name}" (unless the title already names the site), a canonical
 * link on the primary domain and Open Graph tags.
 */
export function routeMeta(
  matches: Matches,
  input: Omit<PageMetaInput, "canonical" | "siteName"> & { path: string; fullTitle?: boolean },
): MetaDescriptor[] {
  const site = siteFromMatches(matches);
  const name = site?.websiteName ?? "";
  const title = input.fullTitle || !name || input.title.includes(name) ? input.title : `${input.title} | ${name}`;
  return pageMeta({
    ...input,
    title,
    siteName: name || undefined,
    canonical: absoluteUrl(site?.origin, input.path),
    image: input.image ? absoluteUrl(site?.origin, input.image) ?? input.image : undefined,
  });
}
