import type { Route } from "./+types/admin._index";
import { adminMeta } from "~/components/admin/console";
import { formatDate } from "~/domain/calendar";
import { consoleNavFor } from "~/domain/console-nav";
import { can } from "~/domain/staff-roles";
import { consoleRouteHeaders } from "~/services/console.server";
import { listMoveOutsDue, MOVE_OUTS_DUE_DAYS } from "~/services/move-outs.server";
import { signedInStaff } from "~/services/staff-context.server";
import { now as clockNow } from "~/platform/clock.server";

/** The back office's home: what needs the office soon (move-outs due, issue 39), then the pages the member's role may open. */
export async function loader({ context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  const moveOuts = can(staff.role, "desk.view") ? await listMoveOutsDue(context.db, staff, clockNow()) : null;
  return { name: staff.name, moveOuts, dueDays: MOVE_OUTS_DUE_DAYS, links: consoleNavFor(staff.role).filter((l) => l.href !== "/admin").map(({ href, label }) => ({ href, label })) };
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Home");

export default function ConsoleHome({ loaderData }: Route.ComponentProps) {
  const { moveOuts } = loaderData;
  return (
    <>
      <h1>Back office</h1>
      <p>Welcome, {loaderData.name}.</p>
      {moveOuts ? (
        <section aria-labelledby="move-outs-title">
          <h2 id="move-outs-title">Move-outs due in the next {loaderData.dueDays} days</h2>
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
        {loaderData.links.map((l) => (
          <li key={l.href}>
            <a href={l.href}>{l.label}</a>
          </li>
        ))}
      </ul>
    </>
  );
}
