import { data } from "react-router";
import type { Route } from "./+types/changes.diff";
import { adminMeta, CsrfInput } from "~/components/console/shell";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { draftDiff, type DiffLine } from "~/services/content/page-diff.server";
import { requireSite } from "~/services/site/context.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/**
 * What the draft changes (issue 24, decision 318): every public URL whose page changes when the draft
 * is published, with its text before and after, and each field the draft changes. A manager sees the
 * whole draft, as in preview (the draft is the account's, decision 317).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const { account } = await requireSite(context);
  if (!context.renderPublicPage) throw new Error("The draft's diff needs the server's renderPublicPage");
  const diff = await draftDiff(context.db, account.id, context.renderPublicPage);
  const csrf = await getCsrfToken(request);
  return data({ diff, csrfToken: csrf.token }, { headers: consoleHeaders(csrf.setCookie) });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("What will change");

const MARK: Record<DiffLine["kind"], string> = { same: " ", added: "+", removed: "−", skipped: "…" };

function Lines({ lines }: { lines: DiffLine[] }) {
  return (
    <ol className="console-diff" aria-label="Text of the page, before and after">
      {lines.map((line, i) => (
        <li key={i} className={`console-diff__line console-diff__line--${line.kind}`}>
          <span aria-hidden="true" className="console-diff__mark">
            {MARK[line.kind]}
          </span>
          {line.kind === "added" ? (
            <ins>
              <span className="visually-hidden">Added: </span>
              {line.text}
            </ins>
          ) : line.kind === "removed" ? (
            <del>
              <span className="visually-hidden">Removed: </span>
              {line.text}
            </del>
          ) : line.kind === "skipped" ? (
            <em>{line.text}</em>
          ) : (
            line.text
          )}
        </li>
      ))}
    </ol>
  );
}

export default function AdminChangesDiff({ loaderData }: Route.ComponentProps) {
  const { diff } = loaderData;
  return (
    <>
      <p>
        <a href="/admin/changes">Changes waiting to be published</a>
      </p>
      <h1>What will change</h1>
      {!diff ? (
        <p role="status">No changes are waiting to be published: the live site is what you see.</p>
      ) : (
        <>
          <div className="console-actions">
            <form method="post" action="/admin/preview">
              <CsrfInput token={loaderData.csrfToken} />
              <input type="hidden" name="intent" value="on" />
              <input type="hidden" name="returnTo" value={diff.pages[0]?.path ?? "/"} />
              <button type="submit" className="console-button console-button--quiet">
                Preview the site
              </button>
            </form>
          </div>
          <h2>Pages that change ({diff.pages.length})</h2>
          {diff.pages.length === 0 ? (
            <p>
              None of the {diff.compared} pages of the site changes: the text every visitor reads stays the same.
            </p>
          ) : (
            <>
              <p>
                {diff.pages.length} of the {diff.compared} pages of the site change. Each shows its title, its description for search engines and its
                text; lines marked + are added, lines marked − are removed.
              </p>
              {diff.pages.map((page) => (
                <section key={page.path} aria-labelledby={`page-${page.path}`} className="console-diff-page">
                  <h3 id={`page-${page.path}`}>
                    <a href={page.path}>{page.path}</a>{" "}
                    {page.change === "added" ? "(new page)" : page.change === "removed" ? "(page removed)" : null}
                  </h3>
                  <Lines lines={page.lines} />
                </section>
              ))}
            </>
          )}
          <h2>Fields changed ({diff.fields.length})</h2>
          {diff.fields.length === 0 ? (
            <p>The draft changes no field.</p>
          ) : (
            <table>
              <caption className="visually-hidden">Every field the draft changes, with its live value and its new value</caption>
              <thead>
                <tr>
                  <th scope="col">What</th>
                  <th scope="col">Record</th>
                  <th scope="col">Field</th>
                  <th scope="col">Now</th>
                  <th scope="col">After publishing</th>
                </tr>
              </thead>
              <tbody>
                {diff.fields.map((f, i) => (
                  <tr key={i}>
                    <td data-label="What">{f.entity}</td>
                    <td data-label="Record">{f.record}</td>
                    <td data-label="Field">{f.field}</td>
                    <td data-label="Now">{f.before}</td>
                    <td data-label="After publishing">{f.after}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </>
  );
}
