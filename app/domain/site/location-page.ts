import { groupHours, openStatus, type HoursItemInput, type SpecialHoursInput, type SpecialHoursView } from "./hours";

/** A Google Maps directions link to an address. */
/**
 * The status badge speaks of the location, not of the clock: "Renting now" for a Live location,
 * "Coming soon" otherwise. Whether the office is open right now comes from the hours (`openStatus`).
 */
export function locationStatusLabel(status: string): string {
  return status === "Live" ? "Renting now" : "Coming soon";
}

export function directionsUrl(a: { street1: string; city: string; stateProvince: string; postal: string }): string {
  const dest = `${a.street1}, ${a.city}, ${a.stateProvince} ${a.postal}`;
  return `https://www.google.com/maps/dir/?api=1&destination=${encodeURIComponent(dest)}`;
}

interface HoursView {
  type: "gate" | "office";
  heading: string;
  /** The block's show_on_google_my_business: its hours are the business's opening hours in JSON-LD. */
  showOnGoogle: boolean;
  ranges: ReturnType<typeof groupHours>;
  status: ReturnType<typeof openStatus>;
}

/**
 * Hours blocks ready to show: grouped day ranges and today's status in the location's time zone.
 * Special hours (decision 325) are the office's: they change its status on their date; the gate keeps
 * its week. A location that shows no office hours applies them to the hours it shows.
 */
export function hoursView(
  blocks: Array<{ type: "gate" | "office"; isAvailable: boolean; displayText: string; showOnGoogleMyBusiness?: boolean; items: HoursItemInput[] }>,
  now: Date,
  timeZone: string,
  special: readonly SpecialHoursInput[] = [],
): HoursView[] {
  const shown = blocks
    .filter((b) => b.isAvailable)
    .sort((a, b) => (a.type === b.type ? 0 : a.type === "office" ? -1 : 1));
  const followsSpecial = shown[0]?.type;
  return shown.map((b) => ({
    type: b.type,
    heading: b.displayText || (b.type === "gate" ? "Gate hours" : "Office hours"),
    showOnGoogle: b.showOnGoogleMyBusiness ?? true,
    ranges: groupHours(b.items),
    status: openStatus(b.items, now, timeZone, b.type === followsSpecial ? special : []),
  }));
}

/**
 * schema.org specialOpeningHoursSpecification of the upcoming special hours: one day each; closed
 * all day is opens = closes = "00:00" (the form Google documents).
 */
export function specialOpeningHoursJsonLd(special: ReadonlyArray<Pick<SpecialHoursView, "date" | "opens" | "closes">>) {
  return special.map((s) => ({
    "@type": "OpeningHoursSpecification",
    validFrom: s.date,
    validThrough: s.date,
    opens: s.opens,
    closes: s.closes,
  }));
}

/**
 * schema.org openingHours of a location: the hours of the block marked show_on_google_my_business
 * (when both are, the office's: they are when the business is open to talk to; gate hours are access
 * hours). No block marked: none.
 */
export function googleOpeningHours(hours: ReadonlyArray<Pick<HoursView, "type" | "showOnGoogle" | "ranges">>): string[] {
  const marked = hours.filter((h) => h.showOnGoogle);
  const block = marked.find((h) => h.type === "office") ?? marked[0];
  return block ? block.ranges.flatMap((r) => (r.schemaOrg ? [r.schemaOrg] : [])) : [];
}

/** schema.org SelfStorage business data for a location page. */
export function selfStorageJsonLd(input: {
  name: string;
  url?: string;
  phone: string;
  email?: string | null;
  image?: string;
  address: { street1: string; city: string; stateProvince: string; postal: string; country: string; lat: number | null; lon: number | null } | null;
  officeHours: string[];
  /** specialOpeningHoursSpecification entries (`specialOpeningHoursJsonLd`). */
  specialHours?: ReturnType<typeof specialOpeningHoursJsonLd>;
  rating?: { value: number; count: number };
  sameAs: string[];
}) {
  return {
    "@context": "https://schema.org",
    "@type": "SelfStorage",
    name: input.name,
    ...(input.url ? { url: input.url, "@id": input.url } : {}),
    telephone: input.phone,
    ...(input.email ? { email: input.email } : {}),
    ...(input.image ? { image: input.image } : {}),
    ...(input.address
      ? {
          address: {
            "@type": "PostalAddress",
            streetAddress: input.address.street1,
            addressLocality: input.address.city,
            addressRegion: input.address.stateProvince,
            postalCode: input.address.postal,
            addressCountry: input.address.country,
          },
          ...(input.address.lat !== null && input.address.lon !== null
            ? { geo: { "@type": "GeoCoordinates", latitude: input.address.lat, longitude: input.address.lon } }
            : {}),
        }
      : {}),
    ...(input.officeHours.length ? { openingHours: input.officeHours } : {}),
    ...(input.specialHours?.length ? { specialOpeningHoursSpecification: input.specialHours } : {}),
    ...(input.rating && input.rating.count > 0
      ? { aggregateRating: { "@type": "AggregateRating", ratingValue: input.rating.value, reviewCount: input.rating.count } }
      : {}),
    ...(input.sameAs.length ? { sameAs: input.sameAs } : {}),
  };
}

/** Keeps the [label, url] pairs whose url is set. */
export function presentLinks(pairs: Array<[string, string | null | undefined]>): Array<[string, string]> {
  return pairs.filter((p): p is [string, string] => typeof p[1] === "string" && p[1].trim() !== "");
}
