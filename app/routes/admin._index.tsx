import type { Route } from "./+types/admin._index";
import { adminMeta } from "~/components/admin/console";
import { consoleNavFor } from "~/domain/console-nav";
import { consoleRouteHeaders } from "~/services/console.server";
import { signedInStaff } from "~/services/staff-context.server";

/** The back office's home: the lists and pages the member's role may open. */
export function loader({ context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  return { name: staff.name, links: consoleNavFor(staff.role).filter((l) => l.href !== "/admin").map(({ href, label }) => ({ href, label })) };
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Home");

export default function ConsoleHome({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <h1>Back office</h1>
      <p>Welcome, {loaderData.name}.</p>
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
