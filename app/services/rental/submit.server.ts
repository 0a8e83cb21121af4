/**
 * The online rental's form submissions, step by step (issue 21, decision 225): what a POST to
 * `/rent/:unitTypeId` does — cancel, details (hold first, then the limits, then the e-mail check:
 * decisions 196, 197, 206), protection, sign, pay — and what it answers: where to send the visitor
 * (with the rental cookie to set or clear), or the form's errors with the values typed and the
 * status. No HTTP here: the route reads the request (form data, CSRF, cookie, client address),
 * calls `submitRentalStep` and turns the result into a Response; `rentPage` (rental-steps.server.ts)
 * is the page it renders.
 */
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { eq } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { rentals } from "~/db/schema/rental";
import { autopayChoice } from "~/domain/rental/autopay-choice";
import { toCardDetails } from "~/domain/payments/card-schema";
import { commonPasswordError } from "~/domain/shared/common-passwords";
import { isHoneypotFilled } from "~/domain/web/form-fields";
import { detailsSchema, hostedPaySchema, paySchema, protectionSchema, signSchema } from "~/domain/rental/steps";
import { methodLast4, type PaymentMethodInput } from "~/domain/payments/method";
import { CONFIRM_IN_PAGE_MESSAGE, type InPageAuthentication } from "~/domain/payments/card-authentication";
import { formatPhone } from "~/domain/shared/phone";
import { rentalBlock, rentalBlockMessage } from "~/domain/rental/rules";
import { CardNotTakenOnlineError, SoftwareUnreachableError, StorageValidationError, UnitUnavailableError, storageErrorMessage } from "~/storage-software/errors";
import { limitDetailsSubmission, releaseHoldCount } from "../web/anonymous-limits.server";
import { beginCardAttempt, cardApproved, cardDeclined, cardLockedMessage, cardNotTried } from "../payments/card-attempts.server";
import {
  abandonRental,
  giveUpUnrentedPayment,
  retryChargingWithNewCard,
  rentalDetails,
  rentalProgress,
  getRental,
  holdForDetails,
  isActiveRental,
  releaseDetailsHold,
  releaseOtherRental,
  saveHeldDetails,
  saveProtection,
  saveSignature,
  type DetailsHold,
} from "./record.server";
import { rentalLeaseText, placeMoveIn, quoteRental } from "./move-in.server";
import { getPaymentGateway } from "~/platform/payments/gateway.server";
import { PAYMENT_UNAVAILABLE_MESSAGE } from "~/db/unavailable";
import { yearMonth } from "./steps.server";
import { tellAccountHolder } from "./account-notice.server";
import { recordRentalTextChoice, rentalTextOptIn } from "../texts/rental.server";
import { loadRentalContext, soldOutContext, type RentalContext } from "./context.server";

/** Fields whose values are never sent back to the browser with the errors. */
const HIDDEN_FIELDS = ["web_pw", "confirm_web_pw", "card_number", "cvv"];

interface RentalSubmission {
  unitTypeId: string;
  formData: FormData;
  /** The visitor's rental cookie. */
  rentalId: string | null;
  clientIp: string;
  now: Date;
  /** The website's configured origin (for the links in the confirmation e-mail); asked only by the pay step. */
  origin: () => Promise<string>;
}

/** What the form shows again: the errors beside the fields (values typed kept), a form-level message, the "e-mail has an account" note. */
export interface RentalFormAnswer {
  result: SubmissionResult<string[]> | null;
  formError: string | null;
  emailTaken: boolean;
  /** The pay step: the bank wants the visitor to confirm the payment on the page (3-D Secure, decision 405). */
  authenticate?: InPageAuthentication | null;
}

export type RentalSubmitResult =
  | { redirect: string; cookie?: { set: string } | "clear" }
  | {
      status: number;
      answer: RentalFormAnswer;
      /**
       * Set only when the step wrote nothing: the rental context as the answer leaves it, which the
       * page's loader of the same request may use instead of reading it again (decision 332).
       */
      contextAfter?: RentalContext;
    }
  /** Not a step of the form (a hand-made request): the page's error answer, as for any bad request. */
  | { unknownStep: true };

export async function submitRentalStep(db: Database, ctx: RentalContext, sub: RentalSubmission): Promise<RentalSubmitResult> {
  const { formData, now, unitTypeId } = sub;
  const basePath = `/rent/${unitTypeId}`;
  const intent = String(formData.get("intent") ?? "");
  const found = await getRental(db, sub.rentalId, unitTypeId);
  // A repeated payment submit (double click, back and resubmit) lands on the confirmation; any other
  // step of a completed rental starts a new rental.
  if ((found?.status === "completed" || found?.status === "confirming") && intent === "pay") return { redirect: `${basePath}/confirmation` };
  const rental = found && isActiveRental(found) ? found : null;

  if (intent === "cancel") {
    if (rental) {
      await abandonRental(db, ctx, rental);
      await releaseHoldCount(db, sub.clientIp);
    }
    return { redirect: `/locations/${ctx.location.urlSlug}`, cookie: "clear" };
  }

  const block = rentalBlock(ctx, { ignoreAvailability: Boolean(rental) });
  if (block) return unchanged(ctx, fail(null, 409, { formError: rentalBlockMessage(block, formatPhone(ctx.location.phoneNumber)) }));

  if (intent === "details") {
    if (isHoneypotFilled(formData)) return { redirect: basePath };
    const schema = detailsSchema({ passwordOptional: Boolean(rental?.webPwHash) });
    const submission = parseWithZod(formData, { schema });
    if (submission.status !== "success") return unchanged(ctx, fail(submission.reply({ hideFields: HIDDEN_FIELDS })));
    const { web_pw, confirm_web_pw: _confirm, ...details } = submission.value;
    const commonPassword = commonPasswordError(web_pw);
    if (commonPassword) return unchanged(ctx, fail(submission.reply({ hideFields: HIDDEN_FIELDS, fieldErrors: { web_pw: [commonPassword] } })));
    const phone = formatPhone(ctx.location.phoneNumber);
    // The unit first (issue 22, decision 206): in a rush for the last unit, the visitors who lose learn
    // "sold out" from this one write, before any other check or write is made for them. A check below
    // that refuses the visitor lets a new rental's unit go again at once.
    let hold: DetailsHold;
    try {
      hold = await holdForDetails(db, ctx, { existing: rental, now });
    } catch (error) {
      // A new visitor's page shows "sold out" without the form (no field to refill), so the answer is
      // the one a visitor gets whose page already knew: the same for every loser of a rush, whose
      // page is then rendered once (decision 330). A visitor with a rental keeps the form, and
      // what was typed.
      // A new visitor's failed hold wrote nothing and proved that no unit is free: the page of the
      // same request says "sold out" without sweeping and reading availability again (decision 332).
      if (error instanceof UnitUnavailableError && !rental) return unchanged(soldOutContext(ctx), fail(null, 409, { formError: rentalBlockMessage("sold_out", phone) }));
      if (error instanceof UnitUnavailableError) return fail(submission.reply({ hideFields: HIDDEN_FIELDS }), 409, { formError: rentalBlockMessage("sold_out", phone) });
      throw error;
    }
    let id: string;
    try {
      // The form's limit and, for a new rental, the holds from this address and of this unit type:
      // one statement, counted before the e-mail is looked up, so "this e-mail has an account" can be
      // asked only as often as the form may be saved (decisions 196, 197).
      const limited = await limitDetailsSubmission(db, { ip: sub.clientIp, now, phone, newHold: !rental, unitTypeId });
      if (limited) {
        await releaseDetailsHold(ctx, hold);
        return fail(submission.reply({ hideFields: HIDDEN_FIELDS, formErrors: [limited] }), 429, { formError: limited });
      }
      // The same answer whether or not the e-mail has an account (issue 36, decision 465): the page says
      // nothing; the address's owner is told by e-mail. The pay step still refuses the move-in before any
      // charge (one e-mail is one tenant), with the note to sign in.
      if (await ctx.storage.isEmailRegistered(details.email)) {
        await tellAccountHolder(db, { email: details.email, locationName: ctx.location.name, operatorName: ctx.operatorName, origin: await sub.origin(), now });
      }
      await releaseOtherRental(db, ctx, sub.rentalId, unitTypeId);
      // The texting opt-in (decision 511): its consent in the transaction that saves the details.
      const optIn = rentalTextOptIn(ctx.location);
      const tickedBefore = rentalDetails(rental)?.text_opt_in === true;
      const textOptIn = optIn ? details.text_opt_in : tickedBefore;
      id = await saveHeldDetails(db, ctx, {
        existing: rental,
        hold,
        details: { ...details, text_opt_in: textOptIn },
        webPw: web_pw,
        alsoWrite: optIn
          ? (tx, rentalId) =>
              recordRentalTextChoice(tx, { accountId: ctx.location.accountId, locationId: ctx.location.id, rentalId, phone: details.cell_phone, optedIn: textOptIn, tickedBefore, now })
          : undefined,
      });
    } catch (error) {
      // Nothing half-saved (an outage, say): a new rental's unit is not left held by nobody.
      await releaseDetailsHold(ctx, hold).catch(() => undefined);
      throw error;
    }
    return { redirect: `${basePath}?step=protection`, cookie: { set: id } };
  }

  // Every later step needs the visitor's own rental.
  if (!rental || !rentalProgress(rental).hasDetails) return { redirect: `${basePath}?step=details` };

  try {
    if (intent === "protection") {
      const { plans } = await quoteRental(ctx, null);
      const submission = parseWithZod(formData, { schema: protectionSchema(plans.map((p) => p.id), ctx.settings.is_insurance_required, ctx.moveInDates) });
      if (submission.status !== "success") return fail(submission.reply());
      await saveProtection(db, ctx, rental, submission.value.insurance_plan, now, submission.value.move_in_date);
      return { redirect: `${basePath}?step=review` };
    }

    // Without e-sign there is nothing to sign online (decision 203).
    if (intent === "sign" && !ctx.settings.is_sitelink_esign_enabled) return { redirect: `${basePath}?step=pay` };
    if (intent === "sign") {
      const details = rentalDetails(rental)!;
      const submission = parseWithZod(formData, { schema: signSchema(`${details.first_name} ${details.last_name}`) });
      if (submission.status !== "success") return fail(submission.reply());
      if (rental.insuranceChoice == null) return { redirect: `${basePath}?step=protection` };
      const q = await quoteRental(ctx, rental.insuranceChoice, rental.moveInDate);
      await saveSignature(db, ctx, rental, { signedName: submission.value.signed_name, text: rentalLeaseText(ctx, details, q), ip: sub.clientIp, now });
      return { redirect: `${basePath}?step=pay` };
    }

    if (intent === "pay" && ctx.cardPayments.hosted) {
      // The processor's hosted fields (decision 383): a token from Stripe.js, or (JavaScript off) its own payment page.
      const submission = parseWithZod(formData, { schema: hostedPaySchema({ forceAutopay: autopayChoice(ctx.settings).required }) });
      if (submission.status !== "success") return fail(submission.reply());
      const autopay = autopayChoice(ctx.settings).offered && submission.value.autopay;
      const token = submission.value.payment_token;
      if (!token) {
        const gateway = getPaymentGateway(ctx.location);
        if (!gateway.startHostedPayment) return fail(null, 409, { formError: PAYMENT_UNAVAILABLE_MESSAGE });
        const origin = await sub.origin();
        const q = await quoteRental(ctx, rental.insuranceChoice, rental.moveInDate);
        const { url } = await gateway.startHostedPayment({
          amount: q.quote.total,
          idempotencyKey: rental.idempotencyKey,
          description: `Storage unit rental at ${ctx.location.name}`,
          email: rentalDetails(rental)?.email,
          saveCard: autopay,
          // What the webhook needs to finish the rental when the visitor does not come back (decision 433).
          metadata: { gatehouse_rental: rental.id, gatehouse_autopay: autopay ? "1" : "0" },
          returnUrl: `${origin}${basePath}?step=pay&checkout_session={SESSION}${autopay ? "&autopay=1" : ""}`,
          cancelUrl: `${origin}${basePath}?step=pay`,
        });
        return { redirect: url };
      }
      // A new card while the last one awaits the bank's check on the page: that payment is given up first (decision 405).
      if (token.startsWith("pm_")) await retryChargingWithNewCard(db, rental);
      return payWithToken(db, ctx, rental, { token, autopay, clientIp: sub.clientIp, now, origin: sub.origin, basePath, reply: () => submission.reply() });
    }

    if (intent === "pay") {
      const submission = parseWithZod(formData, { schema: paySchema(yearMonth(ctx.today), { forceAutopay: autopayChoice(ctx.settings).required, acceptedCards: ctx.acceptedCards }) });
      if (submission.status !== "success") return fail(submission.reply({ hideFields: HIDDEN_FIELDS }));
      const autopay = autopayChoice(ctx.settings).offered && submission.value.autopay;
      const phone = ctx.location.phoneNumber;
      const attempt = await beginCardAttempt(db, { scope: { kind: "rental", rentalId: rental.id }, email: rentalDetails(rental)!.email, ip: sub.clientIp, now });
      if (!attempt.allowed) return fail(submission.reply({ hideFields: HIDDEN_FIELDS, formErrors: [cardLockedMessage(phone)] }), 429, { formError: cardLockedMessage(phone) });
      const payment: PaymentMethodInput = { kind: "card", card: toCardDetails(submission.value) };
      const outcome = await placeMoveIn(db, ctx, rental, { payment, autopay, now, origin: await sub.origin() }).catch(async (error: unknown) => {
        await cardNotTried(db, attempt.ticket);
        // The card could not be taken online (the unit is still free): say so plainly, keep the form.
        if (error instanceof CardNotTakenOnlineError) return { status: "not_taken" as const, message: storageErrorMessage(error, formatPhone(phone)) };
        throw error;
      });
      if (outcome.status === "not_taken") {
        return fail(submission.reply({ hideFields: HIDDEN_FIELDS, formErrors: [outcome.message] }), 409, { formError: outcome.message });
      }
      if (outcome.status === "changed") {
        await cardNotTried(db, attempt.ticket);
        return { redirect: `${basePath}?step=review&changed=1` };
      }
      if (outcome.status === "confirming") {
        // Not a decline and not an approval yet: the confirming page settles it (never "declined").
        await cardNotTried(db, attempt.ticket);
        return { redirect: `${basePath}/confirmation` };
      }
      if (outcome.status === "declined" || outcome.status === "authenticate") {
        // (A card typed in our own fields is never held for authentication: only a processor's token is.)
        const reason = outcome.status === "declined" ? outcome.reason : "authentication required";
        const { message } = cardDeclined(attempt.ticket, { where: `rental ${unitTypeId}`, reason, last4: methodLast4(payment), phone });
        return fail(submission.reply({ hideFields: HIDDEN_FIELDS, formErrors: [message] }), 402, { formError: message });
      }
      await cardApproved(db, attempt.ticket);
      return { redirect: `${basePath}/confirmation` };
    }
  } catch (error) {
    if (error instanceof UnitUnavailableError) {
      // Taken at the office a moment before the payment, another unit of the size is held instead:
      // the visitor sees it on the pay page with its own total (nothing was charged).
      if (intent === "pay" && error.replacementUnitName) {
        return { redirect: `${basePath}?step=pay&replaced=${encodeURIComponent(error.replacementUnitName)}` };
      }
      if (intent === "pay" && error.message.startsWith("The unit held for you")) return fail(null, 409, { formError: error.message });
      return fail(null, 409, { formError: storageErrorMessage(error, formatPhone(ctx.location.phoneNumber)) });
    }
    if (error instanceof StorageValidationError) {
      return fail(null, 409, { formError: error.message, emailTaken: Boolean(error.fieldErrors.email) });
    }
    // The facility's software unreachable or refusing our credentials: the form stays, nothing was
    // charged or saved, and the visitor is told to try again (never an error page).
    if (error instanceof SoftwareUnreachableError) {
      return fail(null, 503, { formError: storageErrorMessage(error, formatPhone(ctx.location.phoneNumber)) });
    }
    throw error;
  }
  return { unknownStep: true };
}

/** An answer of a step that wrote nothing, with the context the page may reuse. */
function unchanged(ctx: RentalContext, result: RentalSubmitResult): RentalSubmitResult {
  return "status" in result ? { ...result, contextAfter: ctx } : result;
}

function fail(result: unknown, status = 400, extra: { formError?: string; emailTaken?: boolean; authenticate?: InPageAuthentication } = {}): RentalSubmitResult {
  return {
    status,
    answer: {
      result: result as SubmissionResult<string[]> | null,
      formError: extra.formError ?? null,
      emailTaken: extra.emailTaken ?? false,
      ...(extra.authenticate ? { authenticate: extra.authenticate } : {}),
    },
  };
}

/**
 * The pay step with a processor's token (decision 383): a PaymentMethod or PaymentIntent id from
 * Stripe.js, or the PaymentIntent of a Checkout page paid for this rental (the return, below). The
 * move-in charges it through the gateway, which checks the amount server-side: nothing is rented
 * until the payment is confirmed there.
 */
async function payWithToken(
  db: Database,
  ctx: RentalContext,
  rental: NonNullable<Awaited<ReturnType<typeof getRental>>>,
  input: TokenPayment,
): Promise<RentalSubmitResult> {
  const key = rental.idempotencyKey;
  // A PaymentIntent completed in the browser (the bank's check on the page) that does not end in the
  // lease (the charges changed, the unit went, a refusal that will not change on retry): the money
  // goes back at once and the rental gets a new key, so the money and the lease agree (decision 405).
  // An outage leaves it "charging": the same form sent again records it, or the sweep refunds it.
  const paidInBrowser = input.token.startsWith("pi_");
  let result: RentalSubmitResult;
  try {
    result = await chargeToken(db, ctx, rental, input);
  } catch (error) {
    if (paidInBrowser && (error instanceof UnitUnavailableError || error instanceof StorageValidationError)) await giveUpUnrentedPayment(db, rental, key);
    throw error;
  }
  if (paidInBrowser && !("redirect" in result && result.redirect === `${input.basePath}/confirmation`)) await giveUpUnrentedPayment(db, rental, key);
  return result;
}

interface TokenPayment {
  token: string;
  autopay: boolean;
  clientIp: string;
  now: Date;
  origin: () => Promise<string>;
  basePath: string;
  /** The form's values as sent (no errors): kept on the page that runs the bank's check, so the form is sent again as it was. */
  reply?: () => unknown;
}

async function chargeToken(
  db: Database,
  ctx: RentalContext,
  rental: NonNullable<Awaited<ReturnType<typeof getRental>>>,
  input: TokenPayment,
): Promise<RentalSubmitResult> {
  const phone = ctx.location.phoneNumber;
  const attempt = await beginCardAttempt(db, { scope: { kind: "rental", rentalId: rental.id }, email: rentalDetails(rental)!.email, ip: input.clientIp, now: input.now });
  if (!attempt.allowed) return fail(null, 429, { formError: cardLockedMessage(phone) });
  const payment: PaymentMethodInput = { kind: "token", token: input.token };
  const outcome = await placeMoveIn(db, ctx, rental, { payment, autopay: input.autopay, now: input.now, origin: await input.origin() }).catch(async (error: unknown) => {
    await cardNotTried(db, attempt.ticket);
    if (error instanceof CardNotTakenOnlineError) return { status: "not_taken" as const, message: storageErrorMessage(error, formatPhone(phone)) };
    throw error;
  });
  if (outcome.status === "not_taken") return fail(null, 409, { formError: outcome.message });
  if (outcome.status === "changed") {
    await cardNotTried(db, attempt.ticket);
    return { redirect: `${input.basePath}?step=review&changed=1` };
  }
  if (outcome.status === "confirming") {
    await cardNotTried(db, attempt.ticket);
    return { redirect: `${input.basePath}/confirmation` };
  }
  if (outcome.status === "authenticate") {
    // Nothing rented or charged yet: the page runs the bank's check and sends the completed PaymentIntent
    // back (the attempt stays counted until a card is approved).
    return fail(input.reply?.() ?? null, 200, { formError: CONFIRM_IN_PAGE_MESSAGE, authenticate: { clientSecret: outcome.clientSecret } });
  }
  if (outcome.status === "declined") {
    const { message } = cardDeclined(attempt.ticket, { where: `rental ${rental.unitTypeId}`, reason: outcome.reason, last4: "", phone });
    return fail(null, 402, { formError: message });
  }
  await cardApproved(db, attempt.ticket);
  return { redirect: `${input.basePath}/confirmation` };
}

/**
 * The return from the processor's payment page (Stripe Checkout, JavaScript off): the session must be
 * paid, for this rental's key; its PaymentIntent is then charged like a token (the gateway checks
 * the amount). A session not paid (or not this rental's) goes back to the pay step, nothing rented.
 */
export async function returnFromHostedPayment(
  db: Database,
  ctx: RentalContext,
  input: { unitTypeId: string; rentalId: string | null; sessionId: string; autopay: boolean; clientIp: string; now: Date; origin: () => Promise<string> },
): Promise<RentalSubmitResult> {
  const basePath = `/rent/${input.unitTypeId}`;
  const rental = await getRental(db, input.rentalId, input.unitTypeId);
  if (!rental) return { redirect: basePath };
  if (rental.status === "completed" || rental.status === "confirming") return { redirect: `${basePath}/confirmation` };
  const finished = await finishHostedRental(db, ctx, rental, { ...input, basePath });
  if (finished === "unpaid") return { redirect: `${basePath}?step=pay` };
  return finished;
}

/**
 * A paid session of this rental's key charged like a token (the gateway checks the amount): the
 * lease, or, not rented (the charges changed, the unit went, a refusal), the money taken on the
 * payment page given back at once, so the money and the lease agree. "unpaid": the session is not
 * paid, or not this rental's.
 */
async function finishHostedRental(
  db: Database,
  ctx: RentalContext,
  rental: NonNullable<Awaited<ReturnType<typeof getRental>>>,
  input: { sessionId: string; autopay: boolean; clientIp: string; now: Date; origin: () => Promise<string>; basePath: string },
): Promise<RentalSubmitResult | "unpaid"> {
  const { basePath } = input;
  const gateway = getPaymentGateway(ctx.location);
  const token = await gateway.hostedPaymentToken?.(input.sessionId, rental.idempotencyKey);
  if (!token) return "unpaid";
  const autopay = autopayChoice(ctx.settings).offered && (input.autopay || autopayChoice(ctx.settings).required);
  const key = rental.idempotencyKey;
  const result = await payWithToken(db, ctx, rental, { token, autopay, clientIp: input.clientIp, now: input.now, origin: input.origin, basePath });
  if ("redirect" in result && result.redirect === `${basePath}/confirmation`) return result;
  if ((await gateway.lookup(key))?.status === "approved") await gateway.refund(key);
  return "redirect" in result ? result : { redirect: `${basePath}?step=pay&retry=1` };
}

/**
 * The webhook of a rental's Checkout Session paid on the processor's page (decision 433): the
 * visitor may have closed the tab before coming back, so the rental is finished here exactly as the
 * return would finish it (the same move-in, idempotent on the rental: one lease, one payment, one
 * welcome e-mail with the receipt, whichever of the two comes first). Null when the key is not an
 * open rental's (the caller judges it as before).
 */
export async function finishRentalFromWebhook(
  db: Database,
  input: { key: string; sessionId: string; autopay: boolean; now: Date; origin: () => Promise<string> },
): Promise<string | null> {
  const row = await db.query.rentals.findFirst({ columns: { id: true, unitTypeId: true, status: true }, where: eq(rentals.idempotencyKey, input.key) });
  if (!row || row.status !== "open" || row.unitTypeId === null) return null;
  const unitTypeId = String(row.unitTypeId);
  const rental = await getRental(db, row.id, unitTypeId);
  const ctx = rental ? await loadRentalContext(db, unitTypeId, input.now) : null;
  if (!rental || !ctx) return null;
  const basePath = `/rent/${unitTypeId}`;
  const result = await finishHostedRental(db, ctx, rental, {
    sessionId: input.sessionId,
    autopay: input.autopay,
    // No visitor's address here: the attempt is counted under the session, never under one key all webhooks share.
    clientIp: `webhook:${input.sessionId}`,
    now: input.now,
    origin: input.origin,
    basePath,
  });
  if (result === "unpaid") return "ignored: the session is not paid for this rental";
  if ("redirect" in result && result.redirect === `${basePath}/confirmation`) return "recorded: the rental finished from the processor's page";
  return "refunded: the rental could not be finished";
}
