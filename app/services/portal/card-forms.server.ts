import type { CardBrand } from "~/domain/payments/cards";
import type { SubmissionResult } from "@conform-to/react";
import { data, redirect } from "react-router";
import type { InPageAuthentication } from "~/domain/payments/card-authentication";
import { savedCardProblem, type FormMethod } from "~/domain/portal/forms";
import { getCsrfToken, validateCsrf } from "../web/csrf.server";
import { portalCardPayment, portalHeaders, usableSavedCards } from "./context.server";
import type { SignedInTenant, TenantUnit } from "./access.server";
import { cardPaymentsAt } from "../../storage-software/index.server";

/**
 * What the portal's card pages (pay, prepay, autopay) share: the page's common data, reading the
 * form (CSRF first, then whether this location takes cards here at all: its payment types, its
 * external payment site, a configured payment gateway, decision 200), and the 400 answers. A card
 * number and CVV are never sent back to the page.
 */
const NOT_ECHOED = ["card_number", "cvv"];

/** The data every card page shows (who is signed in is the signed-in layout's, decision 225): the unit, the location's cards and saved cards. */
export async function cardPageData(request: Request, ctx: SignedInTenant, unit: TenantUnit) {
  const payment = portalCardPayment(unit.location, await cardPaymentsAt(unit.storage, unit.location));
  const [savedCards, csrf] = await Promise.all([unit.storage.listSavedCards(ctx.session.tenantId), getCsrfToken(request)]);
  return {
    page: {
      csrfToken: csrf.token,
      phone: unit.location.phoneNumber,
      locationName: unit.location.name,
      lease: unit.lease,
      savedCards: usableSavedCards(savedCards, payment),
      payment,
      today: ctx.today,
    },
    headers: portalHeaders(csrf.setCookie),
  };
}

/**
 * The submitted form after the CSRF check. Where this location takes no card here (an external
 * payment site, or no payment types) only a cancel goes on; anything else goes back to the page at
 * `self`, which says where to pay.
 */
export async function readCardForm(request: Request, unit: TenantUnit, self: string): Promise<{ formData: FormData; accepted: CardBrand[] }> {
  const formData = await request.formData();
  await validateCsrf(request, formData);
  const payment = portalCardPayment(unit.location, await cardPaymentsAt(unit.storage, unit.location));
  if (payment.kind !== "cards" && formData.get("intent") !== "cancel") throw redirect(self, 303);
  return { formData, accepted: payment.kind === "cards" ? payment.accepted : [] };
}

interface Replying {
  reply(options: { formErrors?: string[]; fieldErrors?: Record<string, string[]>; hideFields?: string[] }): SubmissionResult<string[]>;
}

/** A card form answered with its errors (400): what was typed is kept, except the card number and CVV. */
export function cardFormErrors(submission: Replying, errors: { formErrors?: string[]; fieldErrors?: Record<string, string[]> } = {}) {
  return data({ result: submission.reply({ ...errors, hideFields: NOT_ECHOED }) }, { status: 400, headers: portalHeaders() });
}

/**
 * The form sent back for the bank's check on the page (3-D Secure, decision 405): what was sent is kept
 * (no errors; never the card number or CVV), and `authenticate` gives the page's script the intent's
 * client secret and the form's key (the page is not stored: portal pages are no-store).
 */
export function cardFormAuthentication(submission: Replying, authenticate: InPageAuthentication) {
  return data({ result: submission.reply({ hideFields: NOT_ECHOED }), authenticate }, { headers: portalHeaders() });
}

/** The 400 answer when the chosen saved card can't be used here (gone, expired, a brand this location refuses); null when it can. */
export async function savedCardRefusal(submission: Replying, method: FormMethod, ctx: SignedInTenant, unit: TenantUnit, accepted: CardBrand[]) {
  const problem = savedCardProblem(method, await unit.storage.listSavedCards(ctx.session.tenantId), accepted);
  return problem ? cardFormErrors(submission, { fieldErrors: { payment_method: [problem] } }) : null;
}
