import type { Route } from "./+types/home";
import { adminMeta } from "~/components/console/shell";
import { consoleNavFor } from "~/domain/console/nav";
import { can } from "~/domain/staff/roles";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { formatCents } from "~/domain/shared/money";
import { formatDeskDate, formatDeskTime } from "~/domain/desk/time";
import { homeNumbers, type HomeNumber, type HomeSection } from "~/services/console/today.server";
import { listMoveOutsDue, MOVE_OUTS_DUE_DAYS } from "~/services/desk/move-outs.server";
import { signedInStaff } from "~/services/staff/context.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * The back office's home: today's numbers for the member's locations, each a link to the list that
 * shows exactly those rows (issue 39, decision 514); what needs the office — open payment differences
 * (decision 440) and move-outs due (decision 500) — then the lists and pages the member's role may open.
 */
export async function loader({ context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  const desk = can(staff.role, "desk.view");
  const now = clockNow();
  const home = desk ? await homeNumbers(context.db, staff, now) : { sections: [], differences: [] };
  const moveOuts = desk ? await listMoveOutsDue(context.db, staff, now) : null;
  const sections = home.sections.map((s) => ({
    ...s,
    today: formatDeskDate(s.today),
    occupancy:
      s.occupancy && "total" in s.occupancy
        ? { ...s.occupancy, asOf: s.occupancy.asOf ? formatDeskTime(s.occupancy.asOf, s.timeZone) : null }
        : s.occupancy,
  }));
  return { name: staff.name, sections, differences: home.differences, moveOuts, dueDays: MOVE_OUTS_DUE_DAYS, links: consoleNavFor(staff.role).filter((l) => l.href !== "/admin").map(({ href, label }) => ({ href, label })) };
}

function NumberLink({ n }: { n: HomeNumber }) {
  return (
    <li className="home-number">
      <a href={n.href} data-number={n.key}>
        <span className="home-number__count">{n.count}</span> <span className="home-number__label">{n.label}</span>
        {n.cents !== undefined ? <span className="home-number__money">{n.key === "payments" ? `net ${formatCents(n.cents)}` : formatCents(n.cents)}</span> : null}
      </a>
    </li>
  );
}

type Section = Omit<HomeSection, "today" | "occupancy"> & {
  today: string;
  occupancy: { taken: number; total: number; available: number; asOf: string | null } | { error: string } | null;
};

/** Occupancy in words (one string: the numbers as text, with what they count and where they come from). */
function occupancyText(o: { taken: number; total: number; available: number; asOf: string | null }): string {
  if (!o.total) return "Occupancy: no units are recorded for this location.";
  const where = o.asOf ? `from SiteLink's last sync at ${o.asOf}` : "live";
  return `Occupancy: ${Math.round((o.taken / o.total) * 100)}% (${o.taken} of ${o.total} units rented, reserved or out of service; ${o.available} available to rent), ${where}.`;
}

function NumbersSection({ s }: { s: Section }) {
  const id = `home-numbers-${s.locationId ?? "all"}`;
  const open = s.attention.filter((a) => a.count > 0);
  return (
    <section aria-labelledby={id} className="home-section">
      <h3 id={id}>
        {s.title} <small>· today {s.today}</small>
      </h3>
      <ul className="home-numbers">
        {s.numbers.map((n) => (
          <NumberLink key={n.key} n={n} />
        ))}
      </ul>
      <p className="home-recovery">
        <a href={s.recovery.href} data-recovery="">
          Abandoned-rental reminders in the last 7 days: {s.recovery.remindersSent} sent, {s.recovery.recovered} came back and rented.
        </a>
      </p>
      {s.occupancy ? (
        "error" in s.occupancy ? (
          <p>Occupancy: {s.occupancy.error}</p>
        ) : (
          <p className="home-occupancy">{occupancyText(s.occupancy)}</p>
        )
      ) : null}
      {s.attention.length ? (
        open.length ? (
          <>
            <h4>Needs attention</h4>
            <ul className="home-numbers">
              {open.map((n) => (
                <NumberLink key={n.key} n={n} />
              ))}
            </ul>
          </>
        ) : (
          <p>Nothing needs attention.</p>
        )
      ) : null}
    </section>
  );
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
      {d.sections.length ? (
        <section aria-labelledby="home-today">
          <h2 id="home-today">Today</h2>
          {d.differences.length ? (
            <p>
              <a href="#home-differences" data-number="differences">
                <strong>{d.differences.length}</strong> {d.differences.length === 1 ? "payment difference" : "payment differences"} to look into
              </a>
            </p>
          ) : null}
          {d.sections.map((s) => (
            <NumbersSection key={s.locationId ?? "all"} s={s} />
          ))}
        </section>
      ) : null}
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
                  <a href={`/admin/tenants/${m.tenantId}`}>{m.tenantName}</a>, unit {m.unitName} at {m.locationName}: {formatDeskDate(m.moveOutDate)}
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
