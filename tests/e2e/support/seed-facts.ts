/**
 * What the public-site browser tests expect, read from the seed data (seeds/operator.ts) so the
 * tests follow the operator's data instead of repeating it.
 */
import * as operator from "../../../seeds/operator";
import { locationSlug } from "../../../app/domain/shared/slug";

export const CONTACT_PHONE = operator.CONTACT_PHONE;
export const CONTACT_PHONE_TEL = operator.CONTACT_PHONE_TEL;
/** Every location's e-mail address: the office's notices go there. */
export const CONTACT_EMAIL = operator.CONTACT_EMAIL;
export const PRIMARY_DOMAIN = operator.website.domain;

interface SeededLocation {
  name: string;
  slug: string;
  path: string;
  status: "Live" | "Coming Soon";
  street1: string;
  city: string;
  postal: string;
  amenities: string[];
  insurance: boolean;
  paymentTypes: boolean;
}

export const LOCATIONS: SeededLocation[] = operator.locations.map((l) => {
  const slug = locationSlug(l.address);
  return {
    name: l.name,
    slug,
    path: `/locations/${slug}`,
    status: l.status,
    street1: l.address.street1,
    city: l.address.city,
    postal: l.address.postal,
    amenities: l.amenities,
    insurance: l.insurance,
    paymentTypes: l.paymentTypes,
  };
});

export const LIVE_LOCATIONS = LOCATIONS.filter((l) => l.status === "Live");
export const COMING_SOON_LOCATIONS = LOCATIONS.filter((l) => l.status === "Coming Soon");

/** Spec §9 insurance premiums as shown ("$8.95"). */
export const INSURANCE_PREMIUMS = operator.insuranceTiers.map((t) => `$${(t.premium / 100).toFixed(2)}`);
export const CARD_LABELS = operator.cardPaymentTypes.map((c) => c.label);

/** Spec §2: the permanent, forced redirects. */
const SPEC_REDIRECTS = [
  { fromPath: "/contact-us", toPath: "/contact" },
  { fromPath: "/faq", toPath: "/faqs" },
  { fromPath: "/payonline", toPath: "/customer-portal/login" },
  { fromPath: "/privacy", toPath: "/privacy-policy" },
  { fromPath: "/terms", toPath: "/privacy-policy" },
  { fromPath: "/self-storage", toPath: "/view-locations" },
];
/** "One old street-address path → /view-locations": the path itself is demo data in the seed. */
const streetAddressLine = operator.website.redirects.split("\n").find((line) => /^\/\d/.test(line.trim()));
if (!streetAddressLine) throw new Error("the seed has no old street-address redirect");
const [streetFrom = ""] = streetAddressLine.trim().split(/\s+/);
export const REDIRECTS = [...SPEC_REDIRECTS, { fromPath: streetFrom, toPath: "/view-locations" }];
export const OLD_DOMAINS = operator.oldDomains.map((d) => ({
  hostname: d.hostname,
  target: `https://${PRIMARY_DOMAIN}/locations/${d.locationSlug}`,
}));

export const FAQ_TITLES = operator.faqs.map(([title]) => title);
export const STORAGE_TIP_TITLES = operator.storageTips.map(([title]) => title);

export type SeedMenu = (typeof operator.menus)[number];
export function seedMenu(name: string): SeedMenu {
  const menu = operator.menus.find((m) => m.name === name);
  if (!menu) throw new Error(`no seeded menu ${name}`);
  return menu;
}

export const NAV_PROPS = Object.fromEntries(operator.website.navComponent.props.map((p) => [p.name, p.value]));
export const FOOTER_PROPS = Object.fromEntries(operator.website.footerComponent.props.map((p) => [p.name, p.value]));
