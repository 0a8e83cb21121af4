import type { Route } from "./+types/admin._index";
import { adminMeta } from "~/components/admin/console";
import { consoleNavFor } from "~/domain/console-nav";
import { can } from "~/domain/staff-roles";
import { consoleRouteHeaders } from "~/services/console.server";
import { openDifferences } from "~/services/desk-reconciliation.server";
import { signedInStaff } from "~/services/staff-context.server";

/** The back office's home: open payment differences (decision 440), then the lists and pages the member's role may open. */
export async function loader({ context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  const differences = can(staff.role, "desk.view") ? await openDifferences(context.db, staff) : [];
  return { name: staff.name, differences, links: consoleNavFor(staff.role).filter((l) => l.href !== "/admin").map(({ href, label }) => ({ href, label })) };
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Home");

export default function ConsoleHome({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  return (
    <>
      <h1>Back office</h1>
      <p>Welcome, {d.name}.</p>
      {d.differences.length ? (
        <section aria-labelledby="home-differences" className="alert alert--warning">
          <h2 id="home-differences">Payments that do not match the card processor ({d.differences.length})</h2>
          <ul>
            {d.differences.map((x) => (
              <li key={x.id}>
                <a href={x.href}>
                  {x.label}: {x.location}, {x.day}
                </a>{" "}
                — {x.detail}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <ul className="console-cards">
        {d.links.map((l) => (
          <li key={l.href}>
            <a href={l.href}>{l.label}</a>
          </li>
        ))}
      </ul>
    </>
  );
}
