import { data } from "react-router";
import type { Route } from "./+types/edit._index";
import { adminMeta } from "~/components/console/shell";
import { consoleHeaders, consoleRouteHeaders } from "~/services/console/headers.server";
import { contentLocations } from "~/services/content/editor.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/**
 * What the member may edit (issue 24): owners the account-wide content (website, company, menus,
 * pages, FAQs, redirects) and every location; managers their locations (decision 303).
 */
export async function loader({ context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const locations = await contentLocations(context.db, staff);
  return data({ accountWide: staff.scope.all, locations }, { headers: consoleHeaders() });
}

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Content");

const ACCOUNT_WIDE = [
  { href: "/admin/content/website", label: "Website", note: "Announcement bar, analytics, custom code, unit page titles" },
  { href: "/admin/content/company", label: "Company", note: "Company name, tagline, company information, privacy policy" },
  { href: "/admin/content/rental-settings", label: "Rental settings", note: "Online rentals and reservations, the tenant portal, protection, prices and reminders, for every location" },
  { href: "/admin/content/menus", label: "Menus", note: "The header and footer menus and their items" },
  { href: "/admin/content/pages", label: "Pages", note: "Pages such as portable storage" },
  { href: "/admin/content/faqs", label: "FAQs and storage tips", note: "Questions and answers, storage tips" },
  { href: "/admin/content/redirects", label: "Redirects and old domains", note: "Old paths and old domains that lead to this site" },
];

export default function ContentIndex({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <h1>Content</h1>
      <p>
        Edits are saved to a draft. Nothing changes on the live site until the draft is published on <a href="/admin/changes">Changes</a>.
      </p>
      {loaderData.accountWide ? (
        <section aria-labelledby="account-wide">
          <h2 id="account-wide">The whole website</h2>
          <ul>
            {ACCOUNT_WIDE.map((i) => (
              <li key={i.href}>
                <a href={i.href}>{i.label}</a>: {i.note}
              </li>
            ))}
          </ul>
        </section>
      ) : (
        <p>The website&apos;s shared content (menus, pages, FAQs, redirects) is edited by an owner.</p>
      )}
      <section aria-labelledby="locations">
        <h2 id="locations">Locations</h2>
        {loaderData.locations.length === 0 ? <p>You have no locations to edit.</p> : null}
        {loaderData.accountWide ? (
          <p>
            <a href="/admin/content/locations/new">Add a location</a>
          </p>
        ) : null}
        <ul>
          {loaderData.locations.map((l) => (
            <li key={l.id}>
              <a href={`/admin/content/locations/${l.id}`}>{l.name}</a> ({l.status}
              {l.isPublished ? "" : ", not on the website yet"}) · <a href={`/admin/content/locations/${l.id}/hours`}>hours</a> ·{" "}
              <a href={`/admin/content/locations/${l.id}/special-hours`}>special hours</a> · <a href={`/admin/content/locations/${l.id}/amenities`}>amenities</a> ·{" "}
              <a href={`/admin/content/locations/${l.id}/photos`}>photos</a>
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
