/**
 * The online rental's page, step by step (issue 21, decision 225): what `/rent/:unitTypeId` shows for
 * a request — the unit and its rate, the hold, the steps, a block (sold out, coming soon, card
 * locked), or the one step's view (details, protection, review with the quote lines, sign, pay) —
 * and the redirects the steps decide (a step not reached yet, a completed or confirming rental).
 *
 * The route reads the request (cookies, CSRF token), calls `rentPage` and renders what it returns;
 * the step rules themselves live in app/domain/rental-steps.ts.
 */
import type { Database } from "~/db/client.server";
import { autopayChoice } from "~/domain/rental/autopay-choice";
import { formatCents } from "~/domain/shared/money";
import { effectiveMoveInDate } from "~/domain/rental/move-in-date";
import { monthlyRateFor } from "~/domain/site/rates";
import { allowedStep, furthestStep, rentalSteps, parseStep, type RentalStep } from "~/domain/rental/steps";
import { formatPhone } from "~/domain/shared/phone";
import { rentalBlock, rentalBlockMessage, unitDescription } from "~/domain/rental/rules";
import { cardLockedMessage, isCardLocked } from "../payments/card-attempts.server";
import { rentalDetails, rentalProgress, getRental, isActiveRental, type Rental } from "./record.server";
import { rentalLeaseText, quoteRental } from "./move-in.server";
import type { RentalContext } from "./context.server";
import { rentalTextOptIn } from "../texts/rental.server";

/** The card form's "today" (expiry checks): the location's year and month. */
export function yearMonth(today: string) {
  return { year: Number(today.slice(0, 4)), month: Number(today.slice(5, 7)) };
}

/** "Sunday, November 22, 2026" for a "YYYY-MM-DD" day. */
function formatDay(day: string) {
  return new Date(`${day}T12:00:00Z`).toLocaleDateString("en-US", { timeZone: "UTC", weekday: "long", month: "long", day: "numeric", year: "numeric" });
}

interface RentPageRequest {
  unitTypeId: string;
  /** The query string: `step`, and the notes `changed`, `replaced`, `retry`. */
  searchParams: URLSearchParams;
  /** The visitor's rental cookie. */
  rentalId: string | null;
  csrfToken: string;
  now: Date;
}

/** What the rental page shows for one request, or where it sends the visitor instead. */
type RentPage = { redirect: string } | { page: RentPageView };
export type RentPageView = ReturnType<typeof pageBase> & { blocked: string | null; view: StepView | null; furthest: RentalStep | null };
type StepView = Awaited<ReturnType<typeof stepView>>;

export async function rentPage(db: Database, ctx: RentalContext, req: RentPageRequest): Promise<RentPage> {
  const basePath = `/rent/${req.unitTypeId}`;
  let rental = await getRental(db, req.rentalId, req.unitTypeId);
  if (rental?.status === "completed" && req.searchParams.get("step") === "pay") return { redirect: `${basePath}/confirmation` };
  // A payment whose outcome the facility's software has not confirmed yet: the confirming page.
  if (rental?.status === "confirming") return { redirect: `${basePath}/confirmation` };
  if (rental && !isActiveRental(rental)) rental = null;

  const base = pageBase(ctx, req, rental, basePath);
  const block = rentalBlock(ctx, { ignoreAvailability: Boolean(rental) });
  if (block) return { page: { ...base, blocked: rentalBlockMessage(block, base.phone), view: null, furthest: null } };
  if (rental && (await isCardLocked(db, { kind: "rental", rentalId: rental.id }, req.now))) {
    return { page: { ...base, blocked: cardLockedMessage(ctx.location.phoneNumber), view: null, furthest: null } };
  }

  const progress = rentalProgress(rental);
  const requested = parseStep(req.searchParams.get("step"));
  const step = allowedStep(requested, progress, base.eSign);
  if (req.searchParams.has("step") && step !== requested) return { redirect: `${basePath}?step=${step}` };
  const view = await stepView(ctx, step, rental, req.searchParams);
  // On the review step the unit's promotion says what the quote applies, never more (decisions 603, 673).
  const promotion = view.step === "review" ? view.promotion : base.promotion;
  return { page: { ...base, promotion, blocked: null, view, furthest: furthestStep(progress, base.eSign) } };
}

/** What every state of the page shows: the unit, its rate, the hold and the steps. */
function pageBase(ctx: RentalContext, req: RentPageRequest, rental: Rental | null, basePath: string) {
  const eSign = ctx.settings.is_sitelink_esign_enabled;
  return {
    basePath,
    csrfToken: req.csrfToken,
    phone: formatPhone(ctx.location.phoneNumber),
    locationName: ctx.location.name,
    locationPath: `/locations/${ctx.location.urlSlug}`,
    unit: unitDescription(ctx.unitType),
    monthlyRate: monthlyRateFor(ctx.unitType, ctx.settings.is_web_rates_enabled),
    standardRate: ctx.unitType.standardRate,
    promotion: ctx.unitType.promotion.trim(),
    heldUntil:
      rental && rental.expiresAt > req.now
        ? rental.expiresAt.toLocaleTimeString("en-US", { timeZone: ctx.location.timeZone, hour: "numeric", minute: "2-digit" })
        : null,
    hasRental: Boolean(rental),
    // is_sitelink_esign_enabled off: no online e-sign step, the lease is signed at the office (decision 203).
    eSign,
    steps: rentalSteps(eSign),
  };
}

/** The one step's view; `allowedStep` has made sure the rental has what the step needs. */
async function stepView(ctx: RentalContext, step: RentalStep, rental: Rental | null, searchParams: URLSearchParams) {
  const details = rentalDetails(rental);
  switch (step) {
    case "details":
      return {
        step,
        hasPassword: Boolean(rental?.webPwHash),
        // The texting opt-in (decision 511), where the location can text.
        textOptIn: rentalTextOptIn(ctx.location),
        defaults: details
          ? {
              ...Object.fromEntries(Object.entries(details).map(([k, v]) => [k, typeof v === "boolean" ? (v ? "on" : "") : (v ?? "")])),
              cell_phone: formatPhone(details.cell_phone),
              alt_contact_phone: details.alt_contact_phone ? formatPhone(details.alt_contact_phone) : "",
            }
          : {},
      } as const;
    case "protection": {
      const { plans } = await quoteRental(ctx, null);
      const moveInDate = effectiveMoveInDate(rental?.moveInDate, ctx.moveInDates) ?? ctx.today;
      return {
        step,
        plans: plans.map((p) => ({
          id: p.id,
          label: `${formatCents(p.coverage)} coverage for ${formatCents(p.premium)} a month`,
          detail: `Theft covered at ${p.description || "50%"}.${p.provider ? ` Provided by ${p.provider}.` : ""}`,
        })),
        required: ctx.settings.is_insurance_required,
        choice: rental?.insuranceChoice ?? null,
        moveInDates: ctx.moveInDates.map((d) => ({ value: d, label: `${formatDay(d)}${d === ctx.today ? " (today)" : ""}` })),
        moveInDate,
        moveInDateLabel: formatDay(moveInDate),
      } as const;
    }
    case "review": {
      const q = await quoteRental(ctx, rental!.insuranceChoice, rental!.moveInDate);
      return {
        step,
        lines: q.quote.lines,
        total: q.quote.total,
        monthlyTotal: q.quote.monthlyTotal,
        moveInDate: formatDay(q.quote.moveInDate),
        paidThroughDate: formatDay(q.quote.paidThroughDate),
        nextDueDate: formatDay(q.quote.nextDueDate),
        changed: searchParams.get("changed") === "1",
        // The promotion as the quote applies it (decision 672): its words, and what it gives the later months.
        promotion: q.quote.promotion?.wording ?? "",
        promotionLater: q.quote.promotion?.later ?? "",
      } as const;
    }
    case "sign": {
      const q = await quoteRental(ctx, rental!.insuranceChoice, rental!.moveInDate);
      return {
        step,
        leaseText: rentalLeaseText(ctx, details!, q),
        fullName: `${details!.first_name} ${details!.last_name}`,
        signedName: rental!.signedName,
      } as const;
    }
    case "pay": {
      const q = await quoteRental(ctx, rental!.insuranceChoice, rental!.moveInDate);
      return {
        step,
        total: q.quote.total,
        today: yearMonth(ctx.today),
        acceptedCards: ctx.acceptedCards,
        demonstration: ctx.cardPayments.demonstration,
        hosted: ctx.cardPayments.hosted,
        autopay: autopayChoice(ctx.settings),
        autopayTerms: ctx.location.autopayTerms,
        nameOnCard: `${details!.first_name} ${details!.last_name}`,
        postalCode: details!.postal_code,
        // The held unit was rented at the office a moment before the payment; another is held now.
        replacedUnit: (searchParams.get("replaced") ?? "").replace(/[^A-Za-z0-9 _-]/g, "").slice(0, 20) || null,
        // A payment the facility's software never received: nothing was charged, pay again.
        retry: searchParams.get("retry") === "1",
      } as const;
    }
  }
}
