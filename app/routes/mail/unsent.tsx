import { data } from "react-router";
import type { Route } from "./+types/unsent";
import { DeskList } from "~/components/desk/list";
import { parseDeskFilter } from "~/domain/desk/filters";
import { listUnsentMail } from "~/services/mail/unsent.server";
import { deskLocations } from "~/services/desk/scope.server";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { requirePermission, signedInStaff } from "~/services/staff/context.server";

/**
 * Mail that could not be sent (issue 39, decision 645): given up, or refused by the mail server and
 * waiting to be tried again, by location; the console home's number links here with its location.
 */
export const meta: Route.MetaFunction = () => [{ title: "Mail that could not be sent | Back office" }, { name: "robots", content: "noindex" }];

export const headers: Route.HeadersFunction = consoleRouteHeaders;

const NO_STORE = { "Cache-Control": "no-store" };
const PATH = "/admin/unsent-mail";

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "desk.view");
  const parsed = parseDeskFilter(new URL(request.url).searchParams);
  const errors: Record<string, string> = parsed.ok ? {} : { ...parsed.errors };
  let filter = { page: parsed.filter.page, location: parsed.filter.location };
  const viewer = { accountId: staff.accountId, scope: staff.scope };
  let result = await listUnsentMail(context.db, viewer, filter);
  if (!result.ok) {
    errors[result.field] = result.message;
    filter = { ...filter, location: undefined };
    result = await listUnsentMail(context.db, viewer, filter);
  }
  return data(
    {
      filter,
      errors,
      locations: (await deskLocations(context.db, viewer)).map((l) => ({ id: l.id, name: l.name })),
      rows: result.ok ? result.rows : [],
      total: result.ok ? result.total : 0,
    },
    { status: Object.keys(errors).length ? 400 : 200, headers: NO_STORE },
  );
}

export default function UnsentMail({ loaderData: d }: Route.ComponentProps) {
  return (
    <DeskList
      title="Mail that could not be sent"
      path={PATH}
      filter={d.filter}
      errors={d.errors}
      locations={d.locations}
      columns={[
        { header: "Written", cell: (r) => r.at },
        { header: "Location", cell: (r) => r.location },
        { header: "To", cell: (r) => r.to },
        { header: "Subject", cell: (r) => r.subject },
        { header: "State", cell: (r) => (r.state === "failed" ? "Given up: follow up another way" : `Refused by the mail server; tried ${r.attempts} time${r.attempts === 1 ? "" : "s"}, trying again`) },
        { header: "Last error", cell: (r) => r.error ?? "" },
      ]}
      rows={d.rows}
      rowKey={(r) => r.id}
      total={d.total}
      empty="All mail was sent."
    />
  );
}
