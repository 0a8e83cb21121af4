import type { Route } from "./+types/edit.location-hours";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, LocationContentNav, RecordForm, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { hoursPage, hoursTargets } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";

/**
 * A location's opening hours (issue 24): each block (gate, office) and its lines, each line's days,
 * opening and closing times, open 24 hours or closed. Edits go into the draft.
 */
const route = contentRoute({ param: "locationId", page: hoursPage, targets: (db, _staff, id) => hoursTargets(db, id) });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = ({ data: d }) => adminMeta(d ? `Hours: ${d.name}` : "Hours");

const BLOCK_LABELS: Record<string, string> = { gate: "Gate hours", office: "Office hours" };

export default function LocationHours({ loaderData, actionData }: Route.ComponentProps) {
  const { csrfToken, blocks, locationId } = loaderData;
  const act = (actionData ?? null) as ContentActionData | null;
  return (
    <>
      <LocationContentNav locationId={locationId} current="hours" />
      <h1>Hours: {loaderData.name}</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      {blocks.map((b) => {
        const title = BLOCK_LABELS[b.type] ?? `${b.type} hours`;
        return (
          <section key={b.id} aria-labelledby={`block-${b.id}`}>
            <h2 id={`block-${b.id}`}>{title}</h2>
            {b.block ? (
              <RecordForm
                formId={`block-${b.id}`}
                target="hoursBlock"
                entity="hoursBlock"
                fields={["isAvailable", "displayText"]}
                intent="save"
                values={b.block.values}
                base={b.block.base}
                pending={b.block.pending}
                recordId={b.id}
                csrfToken={csrfToken}
                actionData={act}
                legend={`${title}: heading`}
                submitLabel={`Save ${title.toLowerCase()} heading`}
              />
            ) : null}
            {b.items.map((item, n) => (
              <RecordForm
                key={item.key}
                formId={`line-${item.key}`}
                target="hoursItem"
                entity="hoursItem"
                fields={["days", "open", "close", "isOpen24Hours", "isClosed"]}
                intent="save"
                values={item.values}
                base={item.base}
                pending={item.pending}
                recordId={item.id}
                createKey={item.createKey}
                csrfToken={csrfToken}
                actionData={act}
                legend={`${title}, line ${n + 1}${item.id === null ? " (new)" : ""}`}
                submitLabel="Save this line"
                removable
              />
            ))}
            <RecordForm
              formId={`new-line-${b.id}`}
              target="hoursItem"
              entity="hoursItem"
              fields={["days", "open", "close", "isOpen24Hours", "isClosed"]}
              intent="create"
              values={b.blank}
              hidden={{ hoursBlockId: String(b.id) }}
              csrfToken={csrfToken}
              actionData={act}
              legend={`Add a line to ${title.toLowerCase()}`}
              submitLabel="Add this line"
            />
          </section>
        );
      })}
    </>
  );
}
