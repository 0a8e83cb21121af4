import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, type RouterContextProvider } from "react-router";
import { contactSchema, notifySchema } from "~/domain/site/contact-schema";
import { isHoneypotFilled } from "~/domain/web/form-fields";
import { validateCsrf } from "../web/csrf.server";
import { limitAnonymousForm } from "../web/anonymous-limits.server";
import { now as clockNow } from "~/platform/clock.server";
import { submitContactMessage } from "./contact.server";
import { requireSite } from "./context.server";
import { listLocations } from "~/db/queries/locations.server";

/**
 * The action behind both contact forms: CSRF check, honeypot, validation (400 with field errors and
 * the typed values), then store + email and redirect to the confirmation (post/redirect/get).
 */
export async function handleContactForm(
  request: Request,
  context: Readonly<RouterContextProvider>,
  options: { kind: "contact" | "notify"; successUrl: string },
) {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  if (isHoneypotFilled(formData)) throw redirect(options.successUrl, 303);
  const submission = parseWithZod(formData, { schema: options.kind === "notify" ? notifySchema : contactSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  const limited = await limitAnonymousForm(context.db, options.kind, context.clientIp, clockNow());
  if (limited) return data({ result: submission.reply({ formErrors: [limited] }) }, { status: 429 });
  const { account } = await requireSite(context);
  const locations = await listLocations(context.db, account.id);
  const location = locations.find((l) => l.urlSlug === submission.value.location);
  const office = await context.db.query.locations.findFirst({
    columns: { email: true },
    where: (l, { eq }) => eq(l.id, location?.id ?? locations[0]?.id ?? 0),
  });
  await submitContactMessage(context.db, {
    accountId: account.id,
    kind: options.kind,
    locationId: location?.id ?? null,
    locationName: location?.name ?? null,
    name: submission.value.name,
    email: submission.value.email,
    phone: submission.value.phone,
    message: submission.value.message,
    officeEmail: office?.email ?? null,
  });
  throw redirect(options.successUrl, 303);
}
