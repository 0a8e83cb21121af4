import { data, Link, redirect, useActionData } from "react-router";
import type { Route } from "./+types/admin.content.images";
import { DoneMessage, ImageFieldEditor } from "~/components/console-images";
import type { ImageFormReply } from "~/domain/media";
import { consoleRouteHeaders } from "~/services/console.server";
import { getCsrfToken, validateCsrf } from "~/services/csrf.server";
import { notFound } from "~/services/http.server";
import { accountImagesPage, clearImageField, IMAGE_FIELDS, imageFormRefusal, imageFormReply, limitImageEdit, readImageForm, uploadImageField, websiteOf } from "~/services/media-edits.server";
import { requirePermission, signedInStaff } from "~/services/staff-context.server";
import { now as clockNow } from "~/platform/clock.server";

/**
 * The site's images (issue 24, decision 322): the website's logo and footer logo and the company's
 * main image (account-wide: owners), and a link to each location's photos (the member's locations).
 */
export const meta: Route.MetaFunction = () => [{ title: "Images | Back office" }, { name: "robots", content: "noindex" }];

export const headers: Route.HeadersFunction = consoleRouteHeaders;

const NO_STORE = { "Cache-Control": "no-store" };
const FIELDS = ["website.logo", "website.footerLogo", "account.mainImage"];

export async function loader({ request, context }: Route.LoaderArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const page = await accountImagesPage(context.db, staff);
  const csrf = await getCsrfToken(request);
  const headers = new Headers(NO_STORE);
  if (csrf.setCookie) headers.append("Set-Cookie", csrf.setCookie);
  return data({ page, csrfToken: csrf.token, done: new URL(request.url).searchParams.get("done") }, { headers });
}

export async function action({ request, context }: Route.ActionArgs) {
  const staff = signedInStaff(context);
  requirePermission(staff, "content.edit");
  const form = await request.formData();
  await validateCsrf(request, form);
  const f = readImageForm(form);
  const now = clockNow();
  const limited = await limitImageEdit(context.db, staff, now);
  const field = FIELDS.includes(f.target) ? IMAGE_FIELDS[f.target]! : null;
  const recordId = field?.entity === "account" ? staff.accountId : await websiteOf(context.db, staff);
  const result = limited
    ? imageFormRefusal(429, limited)
    : !recordId
      ? imageFormRefusal(400, "The site has no website record yet.")
      : f.intent === "upload" && field
      ? await uploadImageField(context.db, staff, { ...field, recordId }, f.upload, now)
      : f.intent === "clear" && field
        ? await clearImageField(context.db, staff, { ...field, recordId })
        : imageFormRefusal(400, "Choose one of the forms on this page.");
  if (!result.ok && "missing" in result) throw notFound(NO_STORE);
  if (!result.ok) return data<ImageFormReply>(imageFormReply(f, result), { status: result.status, headers: NO_STORE });
  throw redirect(`/admin/content/images?done=${f.intent}`, { status: 303, headers: NO_STORE });
}

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
