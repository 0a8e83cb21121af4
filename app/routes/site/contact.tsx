import { data } from "react-router";
import type { Route } from "./+types/contact";
import { requireSite } from "~/services/site/context.server";
import { readLocations } from "~/db/queries/cached-reads.server";
import { getCsrfToken } from "~/services/web/csrf.server";
import { handleContactForm } from "~/services/site/contact-form.server";
import { routeMeta } from "~/components/ui/route-meta";
import { ContactForm } from "~/components/site/contact-form";
import { phoneHref } from "~/domain/shared/phone";
import { NO_STORE } from "~/domain/web/cache";
import { keepFormThroughOutage, outageResult } from "~/services/web/form-outage.server";

export const handle = { enhanceForms: true };

export async function loader({ request, context }: Route.LoaderArgs) {
  const { account } = await requireSite(context);
  const [locations, csrf] = await Promise.all([readLocations(context, account.id), getCsrfToken(request)]);
  const sent = new URL(request.url).searchParams.get("sent") === "1";
  return data(
    {
      csrfToken: csrf.token,
      sent,
      phone: locations[0]?.phoneNumber ?? "",
      locations: locations.map((l) => ({ urlSlug: l.urlSlug, name: l.name })),
    },
    { headers: { "Cache-Control": NO_STORE, ...(csrf.setCookie ? { "Set-Cookie": csrf.setCookie } : {}) } },
  );
}

export const action = keepFormThroughOutage(contactAction, (form) => ({ result: outageResult(form) }));

async function contactAction({ request, context }: Route.ActionArgs) {
  return handleContactForm(request, context, { kind: "contact", successUrl: "/contact?sent=1" });
}

export const headers: Route.HeadersFunction = ({ loaderHeaders, actionHeaders }) => ({
  "Cache-Control": NO_STORE,
  ...(loaderHeaders.get("Set-Cookie") ? { "Set-Cookie": loaderHeaders.get("Set-Cookie")! } : {}),
  ...(actionHeaders?.get("Set-Cookie") ? { "Set-Cookie": actionHeaders.get("Set-Cookie")! } : {}),
});

export const meta: Route.MetaFunction = ({ matches }) =>
  routeMeta(matches, {
    title: "Contact Us",
    description: "Questions about a unit, a rental or your bill? Send us a message or call the office.",
    path: "/contact",
  });

export default function Contact({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <div className="container page page--narrow">
      <h1>Contact us</h1>
      {loaderData.sent ? (
        <div className="alert alert--success" role="status">
          <h2>Thank you, your message has been sent.</h2>
          <p>We usually reply within one business day. For anything urgent, please call us.</p>
        </div>
      ) : (
        <p className="lead">
          Call us at <a href={phoneHref(loaderData.phone)}>{loaderData.phone}</a> or send a message and we will get back to
          you within one business day.
        </p>
      )}
      <ContactForm
        kind="contact"
        csrfToken={loaderData.csrfToken}
        lastResult={actionData?.result}
        locations={loaderData.locations}
      />
    </div>
  );
}
