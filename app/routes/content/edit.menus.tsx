import type { Route } from "./+types/edit.menus";
import { adminMeta } from "~/components/console/shell";
import { CONTENT_DONE, DraftNote, RecordForm, type ContentActionData } from "~/components/content/record-forms";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { menusPage, menusTargets } from "~/services/content/pages.server";
import { contentRoute } from "~/services/content/route.server";
import { MENU_ITEM_FIELDS } from "~/domain/content/form";

/** The website's menus (issue 24, owners): headings and items (add, rename, relink, reorder, remove, nest one level). */
const route = contentRoute({ page: menusPage, targets: menusTargets });
export const loader = route.loader;
export const action = route.action;

export const headers: Route.HeadersFunction = consoleRouteHeaders;
export const meta: Route.MetaFunction = () => adminMeta("Menus");

export default function MenusContent({ loaderData, actionData }: Route.ComponentProps) {
  const act = (actionData ?? null) as ContentActionData | null;
  const { csrfToken } = loaderData;
  return (
    <>
      <p>
        <a href="/admin/content">All content</a>
      </p>
      <h1>Menus</h1>
      <DraftNote done={loaderData.done ? CONTENT_DONE[loaderData.done]! : null} />
      {loaderData.menus.map((m) => (
        <section key={m.id} aria-labelledby={`menu-${m.id}`}>
          <h2 id={`menu-${m.id}`}>Menu: {m.name}</h2>
          {m.heading ? (
            <RecordForm formId={`menu-${m.id}-heading`} target="menu" entity="menu" fields={["heading"]} intent="save" values={m.heading.values} base={m.heading.base} pending={m.heading.pending} recordId={m.id} csrfToken={csrfToken} actionData={act} legend={`${m.name}: heading`} submitLabel="Save heading" />
          ) : null}
          {m.items.map((i) => (
            <div key={i.key} className={i.nested ? "console-nested" : undefined}>
              <RecordForm
                formId={`menu-item-${i.key}`}
                target="menuItem"
                entity="menuItem"
                fields={MENU_ITEM_FIELDS}
                intent="save"
                values={i.values}
                base={i.base}
                pending={i.pending}
                recordId={i.id}
                createKey={i.createKey}
                choices={{ parentId: [{ value: "", label: "(top level)" }, ...m.parents.filter((p) => p.value !== String(i.id))] }}
                csrfToken={csrfToken}
                actionData={act}
                legend={`${i.nested ? "↳ " : ""}${String(i.raw.name)}${i.id === null ? " (new)" : ""}`}
                submitLabel="Save this item"
                removable
                movable
              />
            </div>
          ))}
          <RecordForm
            formId={`new-menu-item-${m.id}`}
            target="menuItem"
            entity="menuItem"
            fields={MENU_ITEM_FIELDS}
            intent="create"
            values={m.blank}
            hidden={{ menuId: String(m.id) }}
            choices={{ parentId: [{ value: "", label: "(top level)" }, ...m.parents] }}
            csrfToken={csrfToken}
            actionData={act}
            legend={`Add an item to ${m.name}`}
            submitLabel="Add this item"
          />
        </section>
      ))}
    </>
  );
}
