import type { Route } from "./+types/home";
import { adminMeta } from "~/components/console/shell";
import { formatDate } from "~/domain/shared/calendar";
import { consoleNavFor } from "~/domain/console/nav";
import { can } from "~/domain/staff/roles";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { openDifferences } from "~/services/desk/reconciliation.server";
import { listMoveOutsDue, MOVE_OUTS_DUE_DAYS } from "~/services/desk/move-outs.server";
import { signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * The back office's home: what needs the office — open payment differences (decision 440) and
 * move-outs due (issue 39, decision 500) — then the lists and pages the member's role may open.
 */
export async function loader({ context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  const desk = can(staff.role, "desk.view");
  const differences = desk ? await openDifferences(context.db, staff) : [];
  const moveOuts = desk ? await listMoveOutsDue(context.db, staff, clockNow()) : null;
  return { name: staff.name, differences, moveOuts, dueDays: MOVE_OUTS_DUE_DAYS, links: consoleNavFor(staff.role).filter((l) => l.href !== "/admin").map(({ href, label }) => ({ href, label })) };
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Home");

export default function ConsoleHome({ loaderData }: Route.ComponentProps) {
  const d = loaderData;
  const { moveOuts } = d;
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
      {moveOuts ? (
        <section aria-labelledby="move-outs-title">
          <h2 id="move-outs-title">Move-outs due in the next {d.dueDays} days</h2>
          {moveOuts.length ? (
            <ul>
              {moveOuts.map((m) => (
                <li key={`${m.tenantId}-${m.unitName}-${m.moveOutDate}`}>
                  <a href={`/admin/tenants/${m.tenantId}`}>{m.tenantName}</a>, unit {m.unitName} at {m.locationName}: {formatDate(m.moveOutDate)}
                  {m.overdue ? <strong> (date passed: record the move-out or ask the tenant)</strong> : null}
                </li>
              ))}
            </ul>
          ) : (
            <p>None.</p>
          )}
          <p>
            <a href="/admin/tenants?status=moving_out">Every tenant moving out</a>
          </p>
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
