import { z } from "zod";
import { ALL_CARD_BRANDS, cardSchema, type YearMonth } from "../payments/card-schema";
import type { CardBrand } from "../payments/cards";
import { cardNotAcceptedMessage } from "../payments/accepted-cards";
import { isIsoDate } from "../shared/calendar";
import { passwordField, tenantContactShape, withPasswordLength } from "../shared/tenant-form";
import { dollarsToCents, formatCents } from "../shared/money";
import { CONTROL_MESSAGE, isCleanText } from "../shared/text-rules";

/**
 * The customer portal's forms: one Zod schema per form for the browser (Conform) and the server.
 * Card fields come from card-schema.ts (the rental flow's rules); contact fields from tenant-form.ts.
 */

export const signInSchema = z.object({
  email: z.string({ error: "Enter your email address." }).trim().min(1, "Enter your email address.").pipe(z.email("Enter a valid email address, like name@example.com.")),
  password: z.string({ error: "Enter your password." }).min(1, "Enter your password."),
  redirectTo: z.string().optional(),
});

export const forgotPasswordSchema = z.object({
  email: z.string({ error: "Enter your email address." }).trim().min(1, "Enter your email address.").pipe(z.email("Enter a valid email address, like name@example.com.")),
});

const confirmField = withPasswordLength(z.string({ error: "Confirm your new password." }).min(1, "Confirm your new password."), "password confirmation");

const mustMatch = (v: { new_password?: string; confirm_password?: string }, ctx: z.RefinementCtx) => {
  if (v.new_password && v.confirm_password && v.new_password !== v.confirm_password) {
    ctx.addIssue({ code: "custom", path: ["confirm_password"], message: "The passwords do not match." });
  }
};

export const resetPasswordSchema = z
  .object({ token: z.string().min(1), new_password: passwordField("new password"), confirm_password: confirmField })
  .superRefine(mustMatch);

export const changePasswordSchema = z
  .object({
    intent: z.literal("password"),
    current_password: z.string({ error: "Enter your current password." }).min(1, "Enter your current password."),
    new_password: passwordField("new password"),
    confirm_password: confirmField,
  })
  .superRefine(mustMatch);

/** Contact details (the rental form's rules); the cell phone has its own form (the portal's phone form flag). */
const { cell_phone: cellPhoneField, ...contactWithoutPhone } = tenantContactShape;
export const profileContactSchema = z.object({
  intent: z.literal("contact"),
  ...contactWithoutPhone,
  /** Needed (and checked by the server) only when the email address changes. */
  current_password: z.string().optional(),
});
export const profilePhoneSchema = z.object({ intent: z.literal("phone"), cell_phone: cellPhoneField });

/**
 * A well-formed dollar amount: digits with an optional "$", commas only as thousands separators
 * ("1,500.00"; never "1,50"), at most two decimals ("15.5", not "1.505"), no sign, no exponent.
 */
const DOLLARS_PATTERN = /^\$?\s*(?:\d{1,3}(?:,\d{3})+|\d{1,6})(?:\.\d{1,2})?$/;
export const AMOUNT_FORMAT_MESSAGE = "Enter an amount in dollars and cents, like 25.00 or 1,500.00.";

/** Amount typed in dollars ("25", "25.5", "$1,025.50") → cents. */
export const dollarsField = z
  .string({ error: "Enter an amount." })
  .trim()
  .min(1, "Enter an amount.")
  .refine((v) => DOLLARS_PATTERN.test(v) && v.replace(/[$,\s]/g, "").split(".")[0]!.length <= 6, AMOUNT_FORMAT_MESSAGE)
  .transform((v) => dollarsToCents(v.replace(/[$,\s]/g, "")))
  .refine((v) => v >= 100, "The smallest payment online is $1.00.");

/**
 * The most a tenant may pay online at once: the balance due plus the allowed prepayment
 * (`portal_prepay_months` months of the monthly total). Cents.
 */
export function maxPortalPayment(input: { balance: number; monthlyTotal: number; prepayMonths: number }): number {
  return Math.max(0, input.balance) + Math.max(0, input.prepayMonths) * input.monthlyTotal;
}

/** Null when `amount` is within the cap, else the message for the amount field. */
export function portalAmountError(amount: number, max: number): string | null {
  return amount > max ? `You can pay at most ${formatCents(max)} online: the balance due plus the months you may pay ahead. For more, please call the office.` : null;
}

const methodField = z.string({ error: "Choose how to pay." }).min(1, "Choose how to pay.");
const optionalText = z.string().optional();
const cardFieldsOptional = {
  card_number: optionalText,
  exp_month: optionalText,
  exp_year: optionalText,
  cvv: optionalText,
  name_on_card: optionalText,
  billing_postal_code: optionalText,
  save_card: z.string().optional(),
  /** A processor's hosted fields (decision 383): what Stripe's Payment Element posts back instead of a card. */
  payment_token: optionalText,
  /** "1" on a hosted form (HostedCardFields), whose empty token the form parser drops. */
  hosted_fields: optionalText,
};

export type ParsedMethod =
  | { kind: "card"; card: { number: string; expMonth: number; expYear: number; cvv: string; nameOnCard: string; postalCode: string }; saveCard: boolean }
  | { kind: "token"; token: string; saveCard: boolean }
  | { kind: "saved"; savedCardId: string };

/**
 * What a card form asks for: a method to charge now (`ParsedMethod`), or, on a hosted form sent
 * without the processor's token (JavaScript off, or Stripe.js did not load), the processor's own
 * page (Stripe Checkout, decision 400), with "save this card" as chosen.
 */
export type FormMethod = ParsedMethod | { kind: "checkout"; saveCard: boolean };

const PAYMENT_TOKEN = /^(pm|pi|seti)_[A-Za-z0-9_]{1,200}$/;
/** A hosted form posted with something in `payment_token` that is not a processor's id. */
export const HOSTED_CARD_MISSING = "This card could not be used. Please enter it again, or choose a saved card.";

const methodShape = { payment_method: methodField, ...cardFieldsOptional };
interface MethodFields {
  payment_method: string;
  card_number?: string;
  exp_month?: string;
  exp_year?: string;
  cvv?: string;
  name_on_card?: string;
  billing_postal_code?: string;
  save_card?: string;
  payment_token?: string;
  hosted_fields?: string;
}

/**
 * Validates the card fields only when a new card is chosen, and reports errors on those fields: a
 * card of a brand the location does not take (its payment_types) is refused beside the card number.
 * A saved card's brand is checked by the server against the tenant's saved cards (savedCardProblem).
 */
function checkMethod(today: YearMonth, accepted: readonly CardBrand[]) {
  const card = cardSchema(today, accepted);
  return (v: MethodFields, ctx: z.RefinementCtx) => {
    if (v.payment_method !== "new") return;
    if (v.hosted_fields === "1" || v.payment_token !== undefined) {
      // A hosted form: no card fields of ours, only the processor's token; none at all goes to the
      // processor's own page (Checkout, decision 400).
      const token = v.payment_token ?? "";
      if (token !== "" && !PAYMENT_TOKEN.test(token)) ctx.addIssue({ code: "custom", path: ["payment_method"], message: HOSTED_CARD_MISSING });
      return;
    }
    const parsed = card.safeParse(v);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", path: issue.path as string[], message: issue.message });
  };
}

/** The payment method of a valid submission (the card exists only in memory). */
function methodOf(today: YearMonth, v: MethodFields): FormMethod {
  if (v.payment_method !== "new") return { kind: "saved", savedCardId: v.payment_method.replace(/^saved:/, "") };
  if (v.hosted_fields === "1" || v.payment_token !== undefined) {
    return v.payment_token ? { kind: "token", token: v.payment_token, saveCard: v.save_card === "on" } : { kind: "checkout", saveCard: v.save_card === "on" };
  }
  const c = cardSchema(today).parse(v);
  return {
    kind: "card",
    card: { number: c.card_number, expMonth: c.exp_month, expYear: c.exp_year, cvv: c.cvv, nameOnCard: c.name_on_card, postalCode: c.billing_postal_code },
    saveCard: v.save_card === "on",
  };
}

const idempotencyKey = z.string({ error: "This form has expired. Please reload the page." }).regex(/^[A-Za-z0-9_-]{16,64}$/, "This form has expired. Please reload the page.");

/**
 * The message for a saved card the location does not take, or null when it may be used (an unknown
 * id is left to the storage software, which refuses a card that is not the tenant's).
 */
export function savedCardProblem(method: FormMethod, savedCards: ReadonlyArray<{ id: string; brand: CardBrand }>, accepted: readonly CardBrand[]): string | null {
  if (method.kind !== "saved") return null;
  const card = savedCards.find((c) => c.id === method.savedCardId);
  return card && !accepted.includes(card.brand) ? cardNotAcceptedMessage(accepted) : null;
}

export function paySchema(today: YearMonth, accepted: readonly CardBrand[] = ALL_CARD_BRANDS) {
  return z
    .object({
      idempotency_key: idempotencyKey,
      amount_choice: z.enum(["balance", "other"], { error: "Choose how much to pay." }),
      other_amount: z.string().optional(),
      ...methodShape,
    })
    .superRefine(checkMethod(today, accepted))
    .superRefine((v, ctx) => {
      if (v.amount_choice === "other") {
        const parsed = dollarsField.safeParse(v.other_amount ?? "");
        if (!parsed.success) ctx.addIssue({ code: "custom", path: ["other_amount"], message: parsed.error.issues[0]?.message ?? "Enter an amount." });
      }
    })
    .transform((v) => ({
      idempotencyKey: v.idempotency_key,
      /** Cents, or null for "the balance due". */
      otherAmount: v.amount_choice === "other" ? dollarsField.parse(v.other_amount ?? "") : null,
      method: methodOf(today, v),
    }));
}

/**
 * The pay-link form (decision 240): the balance due the page showed (checked again by the server) and
 * a new card only, never a saved card: a pay link shows nothing else of the account.
 */
export function payLinkSchema(today: YearMonth, accepted: readonly CardBrand[] = ALL_CARD_BRANDS) {
  return z
    .object({
      idempotency_key: idempotencyKey,
      expected_amount: z.string({ error: "This form has expired. Please reload the page." }).regex(/^\d{1,9}$/, "This form has expired. Please reload the page."),
      ...methodShape,
      payment_method: z.literal("new", { error: "Enter the card below." }),
    })
    .superRefine(checkMethod(today, accepted))
    .transform((v) => ({ idempotencyKey: v.idempotency_key, expectedAmount: Number(v.expected_amount), method: methodOf(today, { ...v, save_card: undefined }) }));
}

export function prepaySchema(today: YearMonth, maxMonths: number, accepted: readonly CardBrand[] = ALL_CARD_BRANDS) {
  return z
    .object({
      idempotency_key: idempotencyKey,
      months: z
        .string({ error: "Choose how many months to pay." })
        .regex(/^\d{1,2}$/, "Choose how many months to pay.")
        .transform(Number)
        .refine((n) => n >= 1 && n <= maxMonths, `You can pay 1 to ${maxMonths} months ahead.`),
      ...methodShape,
    })
    .superRefine(checkMethod(today, accepted))
    .transform((v) => ({ idempotencyKey: v.idempotency_key, months: v.months, method: methodOf(today, v) }));
}

export function autopaySchema(today: YearMonth, accepted: readonly CardBrand[] = ALL_CARD_BRANDS) {
  return z
    .object({
      intent: z.literal("enrol"),
      agree_terms: z.literal("on", { error: "Please read the autopay terms and tick the box to agree." }),
      ...methodShape,
    })
    .superRefine(checkMethod(today, accepted))
    .transform((v) => ({ method: methodOf(today, v) }));
}

/** A move-out date on or after `today` (the location's calendar date). */
export function moveOutSchema(today: string) {
  return z.object({
    move_out_date: z
      .string({ error: "Choose your move-out date." })
      .trim()
      .min(1, "Choose your move-out date.")
      .refine(isIsoDate, "Enter the date as YYYY-MM-DD, for example 2026-12-31.")
      .refine((v) => !isIsoDate(v) || v >= today, "Choose today or a later date."),
    reason: z.string().trim().max(500, "Please keep the reason under 500 characters.").refine(isCleanText, CONTROL_MESSAGE).optional(),
  });
}

/** "Rented at the office? Create your sign-in" (issue 11): the office record's email and web password, then a new password. */
export const officeSignInSchema = z
  .object({
    email: z.string({ error: "Enter your email address." }).trim().min(1, "Enter your email address.").pipe(z.email("Enter a valid email address, like name@example.com.")),
    office_password: z.string({ error: "Enter the password the office gave you." }).min(1, "Enter the password the office gave you."),
    new_password: passwordField("new password"),
    confirm_password: confirmField,
  })
  .superRefine(mustMatch);
