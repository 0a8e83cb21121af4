/**
 * The rental rules (spec §9), pure: whether a unit type can be rented online right now and what the
 * visitor is told, the rental success message with the gate code, a unit's description. The rental
 * context they read is built by app/services/rental-context.server.ts.
 */
import { RENTALS_DISABLED_MESSAGE } from "../shared/account-settings";

/** What the rules look at (a RentalContext has all of it). */
export interface RentalRulesInput {
  settings: { is_rentals_enabled: boolean };
  location: { status: "Live" | "Coming Soon" };
  /** The card brands the location takes online. */
  acceptedCards: readonly string[];
  /** False when the location's cards need our payment gateway and none is configured (decision 200). */
  cardPayments: { online: boolean; awaitingGoLive?: boolean };
  /** The move-in dates a visitor may pick. */
  moveInDates: readonly string[];
  unitType: { availableCount: number; isHiddenOnline: boolean };
}

type RentalBlock = "rentals_off" | "coming_soon" | "no_card_payment" | "sunday" | "hidden" | "sold_out" | null;

/** Why this unit type cannot be rented online right now, or null. Spec §9 rules. */
export function rentalBlock(ctx: RentalRulesInput, options: { ignoreAvailability?: boolean } = {}): RentalBlock {
  if (!ctx.settings.is_rentals_enabled) return "rentals_off";
  // A SiteLink location that has not passed its go-live check (issue 37, decision 470): shown as
  // rentals switched off, with the office's phone.
  if (ctx.cardPayments.awaitingGoLive) return "rentals_off";
  if (ctx.location.status !== "Live") return "coming_soon";
  // A location with no payment types, or whose cards need a payment gateway that is not configured,
  // takes no card payments online: call to rent.
  if (ctx.acceptedCards.length === 0 || !ctx.cardPayments.online) return "no_card_payment";
  // No move-in date left to pick (today is Sunday, Sundays are not allowed and nothing in advance).
  if (ctx.moveInDates.length === 0) return "sunday";
  // Hidden on the website (decision 326): no new rental starts; one already holding a unit may finish, as when sold out.
  if (!options.ignoreAvailability && ctx.unitType.isHiddenOnline) return "hidden";
  if (!options.ignoreAvailability && ctx.unitType.availableCount < 1) return "sold_out";
  return null;
}

export function rentalBlockMessage(block: Exclude<RentalBlock, null>, phone: string): string {
  switch (block) {
    case "rentals_off":
      return RENTALS_DISABLED_MESSAGE;
    case "coming_soon":
      return `This location is coming soon and cannot be rented online yet. Call ${phone} to hear when it opens.`;
    case "no_card_payment":
      return `This location does not take card payments online. Please call the office at ${phone} to rent this unit.`;
    case "sunday":
      return `Online rentals are not available on Sundays. Please come back tomorrow or call ${phone}.`;
    case "hidden":
      return unitNotOfferedOnlineMessage(phone);
    case "sold_out":
      return `Sorry, this unit size is sold out. Please choose another size or call ${phone}; we may have something similar.`;
  }
}

/** A unit type hidden on the website (decision 326): what the rental and reservation pages say. */
export function unitNotOfferedOnlineMessage(phone: string): string {
  return `Sorry, this unit size is not offered online. Please choose another size or call ${phone}.`;
}

/** The location's success message with the gate code filled in (sanitise it before rendering). */
export function rentalSuccessHtml(message: string, gateCode: string): string {
  const code = gateCode.replace(/[^0-9A-Za-z]/g, "");
  if (message.includes("{gate_code}")) return message.replaceAll("{gate_code}", code);
  return `${message}\n<p>Your gate code is <strong>${code}</strong>. At the keypad, enter the digits and then press <strong>#</strong>.</p>`;
}

export function unitDescription(u: { name: string; width: number; length: number }): string {
  return `${u.width}' x ${u.length}' ${u.name}`;
}
