import type { CardBrand } from "~/domain/payments/cards";
import { z } from "zod";
import { cardBrand, expiryInFuture, luhnValid } from "./cards";
import { isCleanLine, NAME_CHARS_MESSAGE } from "../shared/text-rules";
import { cardNotAcceptedMessage } from "./accepted-cards";

/**
 * The card fields of every payment form (rental, portal payments, autopay), one Zod shape
 * for the browser (Conform) and the server. Pure: the caller passes today's year and month in the
 * location's time zone so "expiry in the future" is decided against the right calendar.
 *
 * Accepted brands (spec §9): Visa, Master Card, Discover, recognised by the number's prefix.
 * The parsed value is what the payment gateway takes (`CardDetails`) plus the brand; it lives only
 * in memory for the length of the request and is never stored.
 */

export interface YearMonth {
  year: number;
  month: number;
}

/** Every brand we can take; a location narrows it with its payment_types (~/domain/accepted-cards). */
export const ALL_CARD_BRANDS: readonly CardBrand[] = ["visa", "mastercard", "discover"];

export function cardShape(_today?: YearMonth, accepted: readonly CardBrand[] = ALL_CARD_BRANDS) {
  return {
    card_number: z
      .string({ error: "Enter your card number." })
      .trim()
      .min(1, "Enter your card number.")
      .transform((v) => v.replace(/[\s-]/g, ""))
      .refine((v) => /^\d+$/.test(v), "Enter the card number using digits only.")
      .refine((v) => v.length >= 12 && v.length <= 19, "Enter the full card number (12 to 19 digits).")
      // Only the brands this location takes (its payment_types), reported beside the card number.
      .refine((v) => {
        const brand = cardBrand(v);
        return brand !== null && accepted.includes(brand);
      }, cardNotAcceptedMessage(accepted))
      .refine((v) => luhnValid(v), "This card number is not valid. Please check it."),
    exp_month: z
      .string({ error: "Choose the expiry month." })
      .trim()
      .regex(/^(0?[1-9]|1[0-2])$/, "Choose the expiry month.")
      .transform(Number),
    exp_year: z
      .string({ error: "Choose the expiry year." })
      .trim()
      .regex(/^\d{2}(\d{2})?$/, "Choose the expiry year.")
      .transform((v) => (v.length === 2 ? 2000 + Number(v) : Number(v))),
    cvv: z
      .string({ error: "Enter the security code (CVV)." })
      .trim()
      .min(1, "Enter the security code (CVV).")
      .regex(/^\d{3,4}$/, "The security code is the 3 or 4 digits on your card."),
    name_on_card: z
      .string({ error: "Enter the name on the card." })
      .trim()
      .min(1, "Enter the name on the card.")
      .max(100, "The name on the card can be at most 100 characters.")
      .refine(isCleanLine, NAME_CHARS_MESSAGE),
    billing_postal_code: z
      .string({ error: "Enter the billing ZIP code." })
      .trim()
      .min(1, "Enter the billing ZIP code.")
      .regex(/^\d{5}(-?\d{4})?$/, "Enter a 5-digit billing ZIP code, like 28358."),
  };
}

/** Adds the "expiry in the future" rule, reported on the month field. Use on any object containing cardShape. */
export function refineCardExpiry<T extends { exp_month: number; exp_year: number }>(today: YearMonth) {
  return (v: T, ctx: z.RefinementCtx) => {
    if (!expiryInFuture(v.exp_month, v.exp_year, today)) {
      ctx.addIssue({ code: "custom", path: ["exp_month"], message: "This card has expired. Check the expiry date or use another card." });
    }
  };
}

/** The card fields alone, with the expiry rule (and only the `accepted` brands). */
export function cardSchema(today: YearMonth, accepted: readonly CardBrand[] = ALL_CARD_BRANDS) {
  return z.object(cardShape(today, accepted)).superRefine(refineCardExpiry(today));
}

type CardFormValue = z.infer<ReturnType<typeof cardSchema>>;

interface ParsedCard {
  brand: CardBrand;
  number: string;
  expMonth: number;
  expYear: number;
  cvv: string;
  nameOnCard: string;
  postalCode: string;
}

/** The gateway's `CardDetails` (plus brand) from the parsed form value. */
export function toCardDetails(v: CardFormValue): ParsedCard {
  return {
    brand: cardBrand(v.card_number)!,
    number: v.card_number,
    expMonth: v.exp_month,
    expYear: v.exp_year,
    cvv: v.cvv,
    nameOnCard: v.name_on_card,
    postalCode: v.billing_postal_code,
  };
}

/** Years offered in the expiry select: this year and the next 15. */
export function expiryYears(today: YearMonth): number[] {
  return Array.from({ length: 16 }, (_, i) => today.year + i);
}
