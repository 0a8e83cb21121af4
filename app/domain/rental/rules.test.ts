import { describe, expect, it } from "vitest";
import { rentalBlock, rentalBlockMessage, rentalSuccessHtml, unitDescription, type RentalRulesInput } from "./rules";

const open: RentalRulesInput = {
  settings: { is_rentals_enabled: true },
  location: { status: "Live" },
  acceptedCards: ["visa"],
  cardPayments: { online: true },
  moveInDates: ["2026-06-15"],
  unitType: { availableCount: 2, isHiddenOnline: false },
};

describe("rental rules (spec §9)", () => {
  it("lets a live location with cards, a date and a free unit rent", () => {
    expect(rentalBlock(open)).toBeNull();
  });

  it("blocks in the spec's order: rentals off, coming soon, no cards, no date, sold out", () => {
    expect(rentalBlock({ ...open, settings: { is_rentals_enabled: false }, location: { status: "Coming Soon" } })).toBe("rentals_off");
    expect(rentalBlock({ ...open, location: { status: "Coming Soon" }, acceptedCards: [] })).toBe("coming_soon");
    expect(rentalBlock({ ...open, acceptedCards: [], moveInDates: [] })).toBe("no_card_payment");
    // Decision 200: the location's cards need our gateway and none is configured: call to rent.
    expect(rentalBlock({ ...open, cardPayments: { online: false }, moveInDates: [] })).toBe("no_card_payment");
    expect(rentalBlock({ ...open, settings: { is_rentals_enabled: false }, cardPayments: { online: false } })).toBe("rentals_off");
    // Issue 37: a SiteLink location before its go-live check passed reads as rentals switched off.
    expect(rentalBlock({ ...open, location: { status: "Coming Soon" }, cardPayments: { online: false, awaitingGoLive: true } })).toBe("rentals_off");
    expect(rentalBlock({ ...open, moveInDates: [], unitType: { availableCount: 0, isHiddenOnline: false } })).toBe("sunday");
    expect(rentalBlock({ ...open, unitType: { availableCount: 0, isHiddenOnline: false } })).toBe("sold_out");
    expect(rentalBlock({ ...open, unitType: { availableCount: 0, isHiddenOnline: false } }, { ignoreAvailability: true })).toBeNull();
  });

  it("blocks a type hidden on the website (decision 326) before sold out; a rental already holding a unit may finish", () => {
    expect(rentalBlock({ ...open, unitType: { availableCount: 2, isHiddenOnline: true } })).toBe("hidden");
    expect(rentalBlock({ ...open, unitType: { availableCount: 0, isHiddenOnline: true } })).toBe("hidden");
    expect(rentalBlock({ ...open, settings: { is_rentals_enabled: false }, unitType: { availableCount: 2, isHiddenOnline: true } })).toBe("rentals_off");
    expect(rentalBlock({ ...open, unitType: { availableCount: 2, isHiddenOnline: true } }, { ignoreAvailability: true })).toBeNull();
    expect(rentalBlockMessage("hidden", "(910) 555-0134")).toBe("Sorry, this unit size is not offered online. Please choose another size or call (910) 555-0134.");
  });

  it("names the phone in the messages that send the visitor to the office", () => {
    expect(rentalBlockMessage("coming_soon", "(910) 555-0134")).toContain("(910) 555-0134");
    expect(rentalBlockMessage("sold_out", "(910) 555-0134")).toContain("sold out");
  });

  it("fills the gate code into the success message, keeping only letters and digits", () => {
    expect(rentalSuccessHtml("<p>Code {gate_code}</p>", "12<b>34")).toBe("<p>Code 12b34</p>");
    expect(rentalSuccessHtml("<p>Welcome</p>", "123456")).toContain("<strong>123456</strong>");
  });

  it("describes a unit by size and name", () => {
    expect(unitDescription({ name: "Climate Controlled", width: 10, length: 10 })).toBe("10' x 10' Climate Controlled");
  });
});
