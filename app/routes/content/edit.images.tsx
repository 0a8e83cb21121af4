import { Link, useActionData } from "react-router";
import type { Route } from "./+types/edit.images";
import { DoneMessage, ImageFieldEditor } from "~/components/content/images";
import type { ImageFormReply } from "~/domain/content/media";
import { consoleRouteHeaders } from "~/services/console/headers.server";
import { imageEdits, imageRoute } from "~/services/content/image-route.server";
import { accountImagesPage, websiteOf } from "~/services/content/media-edits.server";

/**
 * The site's images (issue 24, decision 322): the website's logo and footer logo and the company's
 * main image (account-wide: owners), and a link to each location's photos (the member's locations).
 */
export const meta: Route.MetaFunction = () => [{ title: "Images | Back office" }, { name: "robots", content: "noindex" }];

export const headers: Route.HeadersFunction = consoleRouteHeaders;

const route = imageRoute({
  page: accountImagesPage,
  edit: imageEdits({
    fields: ["website.logo", "website.footerLogo", "account.mainImage"],
    recordOf: async (db, staff, field) => (field.entity === "account" ? staff.accountId : websiteOf(db, staff)),
  }),
  path: () => "/admin/content/images",
});
export const loader = route.loader;
export const action = route.action;

export default function ContentImages({ loaderData }: Route.ComponentProps) {
  const { page, csrfToken, done } = loaderData;
  const reply = useActionData<typeof action>() as ImageFormReply | undefined;
  const a = page.account;
  return (
    <article>
      <p>
        <Link to="/admin/content">Website content</Link>
      </p>
      <h1>Images</h1>
      <p>Changes go into the draft. The site shows them once they are published on the <Link to="/admin/changes">changes page</Link>.</p>
      <DoneMessage done={done} />
      <section aria-labelledby="locations-title">
        <h2 id="locations-title">Photos of each location</h2>
        {page.locations.length ? (
          <ul>
            {page.locations.map((l) => (
              <li key={l.id}>
                <Link to={`/admin/content/locations/${l.id}/photos`}>{l.name}</Link>
              </li>
            ))}
          </ul>
        ) : (
          <p>You have no locations.</p>
        )}
      </section>
      {a ? (
        <>
          <ImageFieldEditor csrfToken={csrfToken} target="website.logo" label="Logo" image={a.logo} pending={a.pending.includes("website.logo")} reply={reply} altHint="The words of the logo, for example the company's name." />
          <ImageFieldEditor csrfToken={csrfToken} target="website.footerLogo" label="Footer logo" image={a.footerLogo} pending={a.pending.includes("website.footerLogo")} reply={reply} altHint="The words of the logo, for example the company's name." />
          <ImageFieldEditor csrfToken={csrfToken} target="account.mainImage" label="Home page image" image={a.mainImage} pending={a.pending.includes("account.mainImage")} reply={reply} />
        </>
      ) : (
        <p>The website’s logos and the home page image are changed by an owner.</p>
      )}
    </article>
  );
}
