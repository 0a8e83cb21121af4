import { describe, expect, it } from "vitest";
import { directionsUrl, hoursView, locationStatusLabel, presentLinks, selfStorageJsonLd } from "./location-page";
import { formatCents, formatWholeDollars } from "../shared/money";

const address = { street1: "4350 Fayetteville Rd", city: "Lumberton", stateProvince: "NC", postal: "28358" };

describe("directionsUrl", () => {
  it("asks Google Maps for directions to the full address", () => {
    expect(directionsUrl(address)).toBe(
      "https://www.google.com/maps/dir/?api=1&destination=4350%20Fayetteville%20Rd%2C%20Lumberton%2C%20NC%2028358",
    );
  });
});

describe("formatWholeDollars and formatCents (money.ts) for the coverage table", () => {
  it.each([
    [100_000, "$1,000", "$1,000.00"],
    [1_500_000, "$15,000", "$15,000.00"],
    [895, "$8.95", "$8.95"],
    [3695, "$36.95", "$36.95"],
    [0, "$0", "$0.00"],
  ])("%i cents → %s / %s", (cents, dollars, money) => {
    expect(formatWholeDollars(cents)).toBe(dollars);
    expect(formatCents(cents)).toBe(money);
  });
});

describe("hoursView", () => {
  const blocks = [
    { type: "gate" as const, isAvailable: true, displayText: "", items: [{ days: "Mo,Tu,We,Th,Fr,Sa,Su", open: null, close: null, isOpen24Hours: true, isClosed: false }] },
    { type: "office" as const, isAvailable: true, displayText: "Office hours", items: [{ days: "Mo,Tu,We,Th,Fr", open: "08:00", close: "17:00", isOpen24Hours: false, isClosed: false }] },
  ];

  it("shows office hours first, then the gate, with today's status in the location's time zone", () => {
    const view = hoursView(blocks, new Date("2026-01-12T15:00:00Z"), "America/New_York");
    expect(view.map((v) => [v.type, v.heading, v.status.text])).toEqual([
      ["office", "Office hours", "Open now · closes at 5:00 PM"],
      ["gate", "Gate hours", "Open 24 hours"],
    ]);
    expect(view[0]!.ranges.map((r) => `${r.label}: ${r.text}`)).toEqual(["Mon – Fri: 8:00 AM – 5:00 PM", "Sat – Sun: Closed"]);
  });

  it("leaves out blocks that are not available", () => {
    const view = hoursView([{ ...blocks[0]!, isAvailable: false }, blocks[1]!], new Date("2026-01-12T15:00:00Z"), "America/New_York");
    expect(view.map((v) => v.type)).toEqual(["office"]);
  });
});

describe("selfStorageJsonLd", () => {
  const base = {
    name: "Gatehouse Self Storage Lumberton",
    url: "https://www.example.com/locations/lumberton-nc-28358",
    phone: "(910) 555-0134",
    email: "office@example.com",
    address: { ...address, country: "US", lat: 34.6521, lon: -79.0189 },
    officeHours: ["Mo-Fr 09:00-18:00", "Sa 09:00-14:00"],
    sameAs: ["https://www.facebook.com/x"],
  };

  it("describes the business: address, geo, phone and opening hours", () => {
    expect(selfStorageJsonLd(base)).toEqual({
      "@context": "https://schema.org",
      "@type": "SelfStorage",
      name: "Gatehouse Self Storage Lumberton",
      url: "https://www.example.com/locations/lumberton-nc-28358",
      "@id": "https://www.example.com/locations/lumberton-nc-28358",
      telephone: "(910) 555-0134",
      email: "office@example.com",
      address: {
        "@type": "PostalAddress",
        streetAddress: "4350 Fayetteville Rd",
        addressLocality: "Lumberton",
        addressRegion: "NC",
        postalCode: "28358",
        addressCountry: "US",
      },
      geo: { "@type": "GeoCoordinates", latitude: 34.6521, longitude: -79.0189 },
      openingHours: ["Mo-Fr 09:00-18:00", "Sa 09:00-14:00"],
      sameAs: ["https://www.facebook.com/x"],
    });
  });

  it.each([
    ["no reviews: no rating", { rating: { value: 0, count: 0 } }, (ld: Record<string, unknown>) => expect(ld).not.toHaveProperty("aggregateRating")],
    [
      "reviews: a rating",
      { rating: { value: 4.5, count: 10 } },
      (ld: Record<string, unknown>) => expect(ld.aggregateRating).toEqual({ "@type": "AggregateRating", ratingValue: 4.5, reviewCount: 10 }),
    ],
    [
      "no coordinates: no geo",
      { address: { ...base.address, lat: null, lon: null } },
      (ld: Record<string, unknown>) => expect(ld).not.toHaveProperty("geo"),
    ],
    ["no hours, email or links", { officeHours: [], email: null, sameAs: [] }, (ld: Record<string, unknown>) => {
      expect(ld).not.toHaveProperty("openingHours");
      expect(ld).not.toHaveProperty("email");
      expect(ld).not.toHaveProperty("sameAs");
    }],
  ])("%s", (_name, change, check) => {
    check(selfStorageJsonLd({ ...base, ...change }) as Record<string, unknown>);
  });
});

describe("presentLinks", () => {
  it("keeps the links that are set", () => {
    expect(presentLinks([["Facebook", "https://f"], ["Yelp", null], ["Google", " "], ["X", undefined], ["Instagram", "https://i"]])).toEqual([
      ["Facebook", "https://f"],
      ["Instagram", "https://i"],
    ]);
  });
});

describe("locationStatusLabel: the badge speaks of the location, never open/closed", () => {
  it.each([
    ["Live", "Renting now"],
    ["Coming Soon", "Coming soon"],
  ])("%s → %s", (status, label) => {
    expect(locationStatusLabel(status)).toBe(label);
    expect(locationStatusLabel(status)).not.toMatch(/\b(open|closed)\b/i);
  });
});
