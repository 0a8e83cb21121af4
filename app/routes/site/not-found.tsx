import { ErrorPage } from "~/components/ui/error-page";
import { pageMeta } from "~/components/ui/page-meta";
import { siteFromMatches } from "~/components/ui/route-meta";
import { NO_STORE } from "~/domain/web/cache";
import { notFound } from "~/services/web/responses.server";

/** Any path no route matches (redirects were already applied by the server): a real 404 page. */
export function loader() {
  throw notFound();
}

/** A 404 is never stored: the path may become a page or a redirect at any time. */
export const headers = () => ({ "Cache-Control": NO_STORE });

export const meta = ({ matches }: { matches: Parameters<typeof siteFromMatches>[0] }) => {
  const name = siteFromMatches(matches)?.websiteName;
  return pageMeta({ title: name ? `Page not found | ${name}` : "Page not found", noindex: true });
};

export default function NotFound() {
  return <ErrorPage status={404} />;
}

export function ErrorBoundary() {
  return <ErrorPage status={404} />;
}
