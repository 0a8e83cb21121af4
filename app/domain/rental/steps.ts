/**
 * The steps of an online rental (issue 4): the step lives in the URL (?step=…), the answers on the
 * server (checkouts table). Pure helpers to decide which step a visitor may see.
 */
import { z } from "zod";
import type { CardBrand } from "../payments/cards";
import { cardShape, refineCardExpiry, type YearMonth } from "../payments/card-schema";
import { accountPasswordShape, optionalCheckbox, passwordsMustMatch, tenantContactShape, withPasswordLength } from "../shared/tenant-form";

export const MOVE_IN_STEPS = ["details", "protection", "review", "sign", "pay"] as const;
export type RentalStep = (typeof MOVE_IN_STEPS)[number];

export const STEP_LABELS: Record<RentalStep, string> = {
  details: "Your details",
  protection: "Protection plan",
  review: "Review charges",
  sign: "Sign lease",
  pay: "Payment",
};

/**
 * The steps at a location (decision 203): with `is_sitelink_esign_enabled` off there is no online
 * e-sign step; the lease is signed at the office.
 */
export function rentalSteps(eSign: boolean): readonly RentalStep[] {
  return eSign ? MOVE_IN_STEPS : MOVE_IN_STEPS.filter((s) => s !== "sign");
}

export function parseStep(value: string | null | undefined): RentalStep {
  return (MOVE_IN_STEPS as readonly string[]).includes(value ?? "") ? (value as RentalStep) : "details";
}

export interface RentalProgress {
  hasDetails: boolean;
  hasProtection: boolean;
  hasReviewed: boolean;
  hasSigned: boolean;
}

/** The furthest step the visitor may be on given what they have answered (no signature needed without e-sign). */
export function furthestStep(p: RentalProgress, eSign = true): RentalStep {
  if (!p.hasDetails) return "details";
  if (!p.hasProtection) return "protection";
  if (!p.hasReviewed) return "review";
  if (eSign && !p.hasSigned) return "sign";
  return "pay";
}

/**
 * The step to show: the one asked for, or the furthest one allowed when it is asked for too early.
 * Without e-sign, "sign" is not a step: it shows the furthest one allowed.
 */
export function allowedStep(requested: RentalStep, p: RentalProgress, eSign = true): RentalStep {
  const steps = rentalSteps(eSign);
  const max = steps.indexOf(furthestStep(p, eSign));
  const i = steps.indexOf(requested);
  return i >= 0 && i <= max ? requested : steps[max]!;
}

export function previousStep(step: RentalStep, eSign = true): RentalStep | null {
  const steps = rentalSteps(eSign);
  const i = steps.indexOf(step);
  return i > 0 ? steps[i - 1]! : null;
}

/** The step after `step` (the review step's Continue). */
export function nextStep(step: RentalStep, eSign = true): RentalStep | null {
  const steps = rentalSteps(eSign);
  const i = steps.indexOf(step);
  return i >= 0 && i < steps.length - 1 ? steps[i + 1]! : null;
}

/**
 * The tenant details step: the account-creation form. When the visitor comes back to it after
 * choosing a password, the password fields may be left empty to keep the one already chosen.
 */
export function detailsSchema(options: { passwordOptional: boolean }) {
  // The texting opt-in (issue 40, decision 511): unticked unless the renter ticks it.
  if (!options.passwordOptional) return z.object({ ...tenantContactShape, ...accountPasswordShape, text_opt_in: optionalCheckbox }).superRefine(passwordsMustMatch);
  const pw = withPasswordLength(z.string(), "password").optional();
  return z
    .object({
      ...tenantContactShape,
      text_opt_in: optionalCheckbox,
      web_pw: pw,
      confirm_web_pw: withPasswordLength(z.string(), "password confirmation").optional(),
    })
    .superRefine((v, ctx) => {
      if ((v.web_pw ?? "") !== (v.confirm_web_pw ?? "")) {
        ctx.addIssue({ code: "custom", path: ["confirm_web_pw"], message: "The passwords do not match." });
      }
    });
}

/**
 * The protection step: a plan id among those offered, or "none"; and, when more than one move-in
 * date is allowed (rental_days_in_advance > 0), one of those dates.
 */
export function protectionSchema(planIds: string[], required: boolean, moveInDates: readonly string[] = []) {
  return z.object({
    insurance_plan: z
      .string({ error: "Choose a protection plan or 'No protection plan'." })
      .refine((v) => planIds.includes(v) || (!required && v === "none"), "Choose a protection plan or 'No protection plan'."),
    move_in_date:
      moveInDates.length > 1
        ? z
            .string({ error: "Choose your move-in date." })
            .refine((v) => moveInDates.includes(v), "Choose a move-in date from the list.")
        : z.string().optional(),
  });
}

const normaliseName = (s: string) => s.trim().replace(/\s+/g, " ").toLowerCase();

/** The e-sign step: type the full name as on the account, tick consent. */
export function signSchema(fullName: string) {
  return z.object({
    signed_name: z
      .string({ error: "Type your full name to sign." })
      .trim()
      .min(1, "Type your full name to sign.")
      .refine((v) => normaliseName(v) === normaliseName(fullName), `Type your full name exactly as on your details: ${fullName}.`),
    consent: z.literal("on", { error: "Tick the box to agree to the lease and sign it electronically." }),
  });
}

/** The payment step: the card and the autopay choice (forced on when the account forces autopay). */
/**
 * The pay step with a processor's hosted fields (decision 383): no card fields at all. `payment_token`
 * is what Stripe.js posts back (a PaymentMethod or a confirmed PaymentIntent); without it (JavaScript
 * off) the visitor goes to the processor's own payment page.
 */
export function hostedPaySchema(options: { forceAutopay: boolean }) {
  return z.object({
    payment_token: z.preprocess((v) => (v === "" ? undefined : v), z.string().regex(/^(pm|pi)_[A-Za-z0-9_]{1,200}$/, { error: "Enter your card again." }).optional()),
    autopay: optionalCheckbox.transform((v) => options.forceAutopay || v),
  });
}

export function paySchema(today: YearMonth, options: { forceAutopay: boolean; acceptedCards?: readonly CardBrand[] }) {
  return z
    .object({
      ...cardShape(today, options.acceptedCards),
      autopay: optionalCheckbox.transform((v) => options.forceAutopay || v),
    })
    .superRefine(refineCardExpiry(today));
}

