/**
 * The operator's data, from ../shared/spec/product-spec.md.
 *
 * Everything marked DEMO is a plausible value the spec does not give (street addresses, company
 * name, phone number, social links, domains, images). Everything else is a fact from the spec.
 */
import type { AccountGlobalSettings } from "~/domain/shared/account-settings";
import type { ComponentSetting, GlobalStyles } from "~/domain/site/website-settings";
import type { ExtraCharge } from "~/domain/site/location-settings";
import type { Image } from "~/db/schema/shared";

/** DEMO: the spec says only that one contact phone number is shared by all locations. */
export const CONTACT_PHONE = "(910) 555-0134";
export const CONTACT_PHONE_TEL = "+19105550134";
/** DEMO */
export const CONTACT_EMAIL = "office@gatehousestorage.example";

export const account = {
  clientCode: "gatehouse", // DEMO
  name: "Gatehouse Self Storage", // DEMO
  tagline: "Clean, secure self storage in Eastern North Carolina", // DEMO
  useDemoUnits: true,
  isSplitUnitsByUnitType: false,
  isReviewsAutoUpdate: false,
  mainImage: image("/images/hero.svg", 1200, 600, "Rows of drive-up storage units under a clear sky"),
  /** Spec §9: business constants and portal flags. */
  globalSettings: {
    reservation_days_valid: 2,
    portal_prepay_months: 3,
    rental_days_in_advance: 0,
    is_autopay_enabled: true,
    is_payments_enabled: true,
    is_prepayments_enabled: true,
    is_move_out_enabled: true,
    is_phone_form_enabled: true,
    is_rentals_enabled: true,
    is_reservation_short_form_enabled: true,
    is_sitelink_esign_enabled: true,
    is_autopay_prechecked: true,
    is_rentals_on_sunday_allowed: true,
    is_reservations_enabled: false,
    is_protection_plans_enabled: false,
    is_force_autopay: false,
    is_id_upload_enabled: false,
    is_unit_alarms_enabled: false,
    is_web_rates_enabled: false,
    is_value_pricing_enabled: false,
    is_insurance_shown: true,
    is_insurance_required: false,
    fake_discount_percentage: 0,
    // Not in the spec (issue 40, decision 501): review requests are off until the operator turns them on.
    is_review_request_enabled: false,
    review_request_days_after_move_in: 14,
    // Not in the spec (issue 40, decision 517): one reminder an hour after a renter stops before paying.
    is_rental_recovery_enabled: true,
    rental_recovery_delay_minutes: 60,
  } satisfies AccountGlobalSettings,
  // DEMO wording; the spec says only that a privacy policy and company information exist.
  privacyPolicy: `
<h2>Who we are</h2>
<p>Gatehouse Self Storage runs self-storage facilities in Eastern North Carolina. This policy explains what we collect when you use this website and the customer portal, and what we do with it.</p>
<h2>What we collect</h2>
<ul>
<li>What you type into our forms: your name, email address, phone numbers, mailing address and, if you give them, an alternate contact.</li>
<li>When you rent or pay: the card brand, the last four digits of your card and the payment reference. We never store your full card number or security code.</li>
<li>Basic request logs (IP address, pages visited) kept for security for 30 days.</li>
</ul>
<h2>How we use it</h2>
<p>To reserve and rent units, run your account, send receipts and notices, and answer your questions. We do not sell your information.</p>
<h2>Cookies</h2>
<p>We use only the cookies the site needs to work: one that keeps you signed in to the customer portal and one that protects our forms against forgery.</p>
<h2>Your choices</h2>
<p>You can ask us to correct or delete your information by calling the office or writing to us through the contact page, unless the law requires us to keep it (for example lease and payment records).</p>
<h2>Contact</h2>
<p>Questions about this policy: call ${CONTACT_PHONE} or use our contact page.</p>`.trim(),
  companyInformation: `
<p>Gatehouse Self Storage is a family-run operator with facilities in Lumberton and Jacksonville, and new sites coming soon to Seven Springs and Kinston.</p>
<p>We keep our properties clean, well lit and secure, with gated access, video surveillance and friendly local managers. Rent online in minutes, pay your bill any time in the customer portal, or stop by the office and we will help you choose the right unit.</p>`.trim(),
};

export const website = {
  websiteName: "Gatehouse Self Storage", // DEMO
  domain: "www.gatehousestorage.example", // DEMO
  stagingDomain: "staging.gatehousestorage.example", // DEMO
  analyticsId: null as string | null,
  // Spec §3: templates with placeholders for unit width/length, unit type, location name and address.
  unitPageTitle: "{width}' x {length}' {unit_type} Storage Unit in {location_name}",
  unitPageMeta:
    "Rent a {width}' x {length}' {unit_type} storage unit at {location_name}, {location_address}. See today's price and rent online in minutes.",
  customCss: "",
  customJs: "",
  customHeaderCode: "",
  customBodyCode: "",
  logo: image("/images/logo.svg", 220, 48, "Gatehouse Self Storage"),
  footerLogo: image("/images/logo-light.svg", 220, 48, "Gatehouse Self Storage"),
  globalStyles: {
    primary_color: "#14457a",
    secondary_color: "#0d2e52",
    accent_color: "#f2b705",
    text_color: "#1f2933",
    background_color: "#ffffff",
    heading_font: "Source Sans 3",
    body_font: "Source Sans 3",
    button_background_color: "#14457a",
    button_text_color: "#ffffff",
    button_border_radius: "6px",
    nav_background_color: "#ffffff",
    nav_text_color: "#1f2933",
    footer_background_color: "#0d2e52",
    footer_text_color: "#ffffff",
  } satisfies GlobalStyles,
  navComponent: {
    name: "NavbarClassic",
    props: [
      { name: "main_menu", value: "Main Menu" },
      { name: "rent_button_text", value: "Rent a unit" },
      { name: "rent_button_url", value: "/view-locations" },
      { name: "announcement_bar_enabled", value: true },
      { name: "announcement_bar_text", value: "Questions? Call us today:" },
      { name: "announcement_bar_phone", value: CONTACT_PHONE },
    ],
  } satisfies ComponentSetting,
  footerComponent: {
    name: "FooterTwoMenus",
    props: [
      { name: "first_menu", value: "Company" },
      { name: "second_menu", value: "Quick Links" },
    ],
  } satisfies ComponentSetting,
  hasNewChanges: false,
  hasRedeployStarted: true,
  /** Spec §2: permanent, forced redirects. The street-address path is DEMO. */
  redirects: [
    "/contact-us /contact",
    "/faq /faqs",
    "/payonline /customer-portal/login",
    "/privacy /privacy-policy",
    "/terms /privacy-policy",
    "/self-storage /view-locations",
    "/4350-fayetteville-rd /view-locations",
  ].join("\n"),
};

/** Spec §2: old domains (DEMO names) redirect to two location pages; each is also matched with "www.". */
export const oldDomains = [
  { hostname: "lumbertonselfstorage.example", locationSlug: "lumberton-nc-28358" },
  { hostname: "jacksonvillestorage.example", locationSlug: "jacksonville-nc-28546" },
];

/** Spec §9: the insurance tiers (percent_of_theft_coverage 1, description 50%). Coverage and premium in cents. */
export const insuranceTiers = [
  { coverage: 100_000, premium: 895 },
  { coverage: 500_000, premium: 1_195 },
  { coverage: 1_000_000, premium: 2_195 },
  { coverage: 1_500_000, premium: 3_695 },
].map((t, i) => ({
  ...t,
  sitelinkId: String(101 + i), // DEMO
  percentOfTheftCoverage: "1",
  description: "50%",
  provider: "Storage Protection Plan", // DEMO
}));

/** Spec §9: accepted cards. */
export const cardPaymentTypes = [
  { value: "visa", label: "Visa", category: "visa" as const },
  { value: "mastercard", label: "Master Card", category: "mastercard" as const },
  { value: "discover", label: "Discover", category: "discover" as const },
];

/** Spec §9: the lock fee (7.00, tax_1_rate 6.75 %, not recurring). */
export const lockFee: ExtraCharge = {
  sitelink_id: "LOCK", // DEMO
  name: "Lock fee",
  tax_1_rate: 6.75,
  tax_2_rate: 0,
  amount: 7,
  is_recurring: false,
};

const NEW_YORK = {
  dstOffset: 0,
  rawOffset: -18000,
  status: "OK",
  timeZoneId: "America/New_York",
  timeZoneName: "Eastern Standard Time",
};

const weekdays = "Mo,Tu,We,Th,Fr";
const allDays = "Mo,Tu,We,Th,Fr,Sa,Su";
const open24 = { days: allDays, isOpen24Hours: true, open: null, close: null };
const standardOfficeHours = [
  { days: weekdays, open: "08:00", close: "17:00" },
  { days: "Sa,Su", isClosed: true, open: null, close: null },
];

// DEMO wording; the meanings are the spec's.
const rentalSuccessMessage = (name: string) =>
  `<h2>Welcome to ${name}!</h2>
<p>Your rental is complete. Your gate code is <strong>{gate_code}</strong>.</p>
<p>At the gate keypad, enter the digits of your gate code and then press the <strong>#</strong> sign (for example <strong>1234#</strong>).</p>
<p>Your lease and receipt are below and in your email. You can pay your bill any time in the customer portal.</p>`;
const reservationSuccessMessage = `<h2>Your unit is reserved</h2>
<p>Please come to the office during office hours to finish your paperwork and get your gate access.</p>
<p>Bring a photo ID. We will hold your unit for the days shown below.</p>`;
const moveOutConfirmationMessage =
  "Thank you. We have received your move-out notice. Please remove your belongings and your lock, leave the unit broom-clean by your move-out date, and stop by the office so we can check the unit with you.";
const autopayTerms =
  "By enrolling in autopay you authorise Gatehouse Self Storage to charge the card on file for your monthly rent and any recurring charges (such as your protection plan) on each due date until you cancel autopay in the customer portal or at the office. A declined charge is treated as unpaid rent and late fees may apply. You may cancel at any time before a due date.";

interface SeedHoursItem {
  days: string;
  open: string | null;
  close: string | null;
  isOpen24Hours?: boolean;
  isClosed?: boolean;
}
export interface SeedLocation {
  name: string;
  status: "Live" | "Coming Soon";
  software: "sitelink" | "no_api";
  address: { street1: string; city: string; stateProvince: string; postal: string; lat: number; lon: number };
  gateHours: SeedHoursItem[];
  officeHours: SeedHoursItem[];
  insurance: boolean;
  paymentTypes: boolean;
  charges: ExtraCharge[];
  metaDescription: string;
  amenities: string[];
  social: Partial<Record<"facebook" | "google" | "yelp", string>>;
}

const liveAmenities = [
  "Gated, keypad access",
  "Video surveillance",
  "Drive-up units",
  "Climate-controlled units",
  "Well-lit property",
  "Boxes and locks for sale",
];

export const locations: SeedLocation[] = [
  {
    name: "Lumberton",
    status: "Live",
    software: "sitelink",
    address: { street1: "4350 Fayetteville Rd", city: "Lumberton", stateProvince: "NC", postal: "28358", lat: 34.6521, lon: -79.0189 }, // street DEMO
    gateHours: [{ days: "Mo,Tu,We,Th,Fr,Sa", open: "08:00", close: "22:00" }],
    officeHours: [
      { days: weekdays, open: "09:00", close: "18:00" },
      { days: "Sa", open: "09:00", close: "14:00" },
      { days: "Su", isClosed: true, open: null, close: null },
    ],
    insurance: true,
    paymentTypes: true,
    charges: [lockFee],
    metaDescription:
      "Self storage in Lumberton, NC: drive-up and climate-controlled units, gated access, and online rentals. See sizes and prices and rent today.",
    amenities: liveAmenities,
    social: { facebook: "https://www.facebook.com/gatehousestorage.example", google: "https://maps.google.com/?cid=0" },
  },
  {
    // Status not shown in the spec: treated as Live on sitelink, like Lumberton (issue 2).
    name: "Jacksonville",
    status: "Live",
    software: "sitelink",
    address: { street1: "1120 Western Blvd", city: "Jacksonville", stateProvince: "NC", postal: "28546", lat: 34.7735, lon: -77.3867 }, // street and postal DEMO
    gateHours: [open24],
    officeHours: standardOfficeHours,
    insurance: true,
    paymentTypes: true,
    charges: [lockFee],
    metaDescription:
      "Self storage in Jacksonville, NC with 24-hour gate access, drive-up and climate-controlled units. Compare sizes and rent online.",
    amenities: [...liveAmenities, "24-hour gate access"],
    social: { facebook: "https://www.facebook.com/gatehousestorage.example" },
  },
  {
    name: "Seven Springs",
    status: "Coming Soon",
    software: "no_api",
    address: { street1: "210 W Spring St", city: "Seven Springs", stateProvince: "NC", postal: "28578", lat: 35.2257, lon: -77.8486 }, // street DEMO
    gateHours: [open24],
    officeHours: standardOfficeHours,
    insurance: false,
    paymentTypes: false,
    charges: [],
    metaDescription:
      "Self storage is coming soon to Seven Springs, NC. Leave your details and we will tell you when units are ready to rent.",
    amenities: ["Gated, keypad access", "Video surveillance", "24-hour gate access"],
    social: {},
  },
  {
    name: "Kinston",
    status: "Coming Soon",
    software: "no_api",
    address: { street1: "2600 N Herritage St", city: "Kinston", stateProvince: "NC", postal: "28501", lat: 35.2916, lon: -77.5811 }, // street DEMO
    gateHours: [open24],
    officeHours: standardOfficeHours,
    insurance: false,
    paymentTypes: false,
    charges: [],
    metaDescription:
      "Self storage is coming soon to Kinston, NC. Leave your details and we will tell you when units are ready to rent.",
    amenities: ["Gated, keypad access", "Video surveillance", "24-hour gate access"],
    social: {},
  },
];

export function locationExtras(loc: SeedLocation) {
  return {
    timeZone: NEW_YORK,
    phoneNumber: CONTACT_PHONE,
    sms: CONTACT_PHONE,
    email: CONTACT_EMAIL,
    rentalSuccessMessage: rentalSuccessMessage(`Gatehouse Self Storage ${loc.name}`),
    reservationSuccessMessage,
    moveOutConfirmationMessage,
    autopayTerms,
    metaTitle: `Self Storage in ${loc.name}, ${loc.address.stateProvince} | Gatehouse Self Storage`,
    metaTagline:
      loc.status === "Live" ? `Storage units in ${loc.name}, ${loc.address.stateProvince}` : `Coming soon to ${loc.name}`,
    isShowExtraChargesAtCheckout: loc.charges.length > 0,
    isHideExtraChargesForParkingOrOffice: true,
    reviewSettings: { batch_id: null, status: "get-results", total_reviews: 0, rating: 0 },
    mainImage: image(
      "/images/facility.svg",
      800,
      450,
      `Gatehouse Self Storage ${loc.name} facility`,
    ),
  };
}

/**
 * Menus (spec §2). The Main Menu nests the locations; Lumberton has two sub-sites (its self-storage
 * page and the portable storage page). "url" null means a heading with children only.
 */
export interface SeedMenuItem {
  name: string;
  url: string;
  isInternal?: boolean;
  isTargetBlank?: boolean;
  children?: SeedMenuItem[];
}
export const menus: Array<{ name: string; heading: string; items: SeedMenuItem[] }> = [
  {
    name: "Main Menu",
    heading: "",
    items: [
      {
        name: "Locations",
        url: "/view-locations",
        children: [
          {
            name: "Lumberton",
            url: "/locations/lumberton-nc-28358",
            children: [
              { name: "Self Storage", url: "/locations/lumberton-nc-28358" },
              { name: "Portable Storage", url: "/portable-storage" },
            ],
          },
          { name: "Jacksonville", url: "/locations/jacksonville-nc-28546" },
          { name: "Seven Springs (Coming Soon)", url: "/locations/seven-springs-nc-28578" },
          { name: "Kinston (Coming Soon)", url: "/locations/kinston-nc-28501" },
        ],
      },
      {
        name: "Resources",
        url: "/faqs",
        children: [
          { name: "Size Guide", url: "/size-guide" },
          { name: "FAQs", url: "/faqs" },
          { name: "Storage Tips", url: "/storage-tips" },
        ],
      },
      { name: "About", url: "/about" },
      { name: "Contact", url: "/contact" },
      { name: "Pay Bill", url: "/payonline" },
    ],
  },
  {
    name: "Company",
    heading: "Company",
    items: [
      { name: "About Us", url: "/about" },
      { name: "Contact Us", url: "/contact" },
      { name: "Portable Storage", url: "/portable-storage" },
      { name: "Privacy Policy", url: "/privacy-policy" },
    ],
  },
  {
    name: "Quick Links",
    heading: "Quick Links",
    items: [
      { name: "View Locations", url: "/view-locations" },
      { name: "Rent a Unit", url: "/units" },
      { name: "Size Guide", url: "/size-guide" },
      { name: "FAQs", url: "/faqs" },
      { name: "Storage Tips", url: "/storage-tips" },
      { name: "Pay Bill", url: "/payonline" },
    ],
  },
];

export const faqs = [
  ["How do I rent a storage unit online?", "<p>Choose a location, pick a unit size and press <strong>Rent</strong>. You create your account, choose a protection plan, review the charges, sign the lease and pay, all in a few minutes. You get your gate code straight away.</p>"],
  ["What do I need to bring on move-in day?", "<p>Your gate code and a lock. If you rented online, everything else is done. We sell disc locks in the office if you need one.</p>"],
  ["How do I enter the gate?", "<p>Enter the digits of your gate code on the keypad and then press the <strong>#</strong> sign.</p>"],
  ["Do I need insurance?", "<p>Protection is not required, but we recommend it. Our protection plans start at $8.95 a month for $1,000 of coverage. Your homeowner's or renter's policy may also cover stored goods.</p>"],
  ["How do I pay my bill?", "<p>Sign in to the <a href=\"/customer-portal/login\">customer portal</a> to pay by card, set up autopay or pay months ahead. You can also pay at the office.</p>"],
  ["Is there a long-term contract?", "<p>No. Rentals are month to month. Give us notice in the customer portal or at the office when you are ready to move out.</p>"],
  ["What can't I store?", "<p>No food, perishables, living things, flammable liquids, hazardous materials, firearms or explosives. Ask the office if you are unsure.</p>"],
  ["What size unit do I need?", "<p>Our <a href=\"/size-guide\">size guide</a> shows what fits in each unit. A 10' x 10' holds the furniture of a one-bedroom apartment.</p>"],
] as const;

export const storageTips = [
  ["Use cartons of 30 lbs or less", "<p>Pack boxes so that each carton weighs 30 lbs or less. Lighter boxes are easier to carry, stack without crushing, and are less likely to burst.</p>"],
  ["Label every box on two sides", "<p>Write what is inside and which room it belongs to on two sides, so you can read the label however the box is stacked.</p>"],
  ["Put heavy items at the bottom", "<p>Stack heavy boxes low and light ones on top. Keep boxes of the same size together for stable stacks.</p>"],
  ["Leave a walkway", "<p>Leave an aisle down the middle of your unit so you can reach things at the back without unpacking everything.</p>"],
  ["Protect furniture", "<p>Cover furniture with cloth or moving blankets rather than plastic, which can trap moisture. Stand sofas on end to save floor space.</p>"],
  ["Choose climate control for sensitive items", "<p>Photos, electronics, wood furniture, documents and instruments last better in a climate-controlled unit.</p>"],
  ["Clean and dry before storing", "<p>Make sure appliances are clean and completely dry, and leave refrigerator doors slightly open.</p>"],
  ["Keep an inventory", "<p>Keep a list of what you store, with photos of valuable items. It helps you find things and helps with any protection plan claim.</p>"],
] as const;

export const portableStoragePage = {
  slug: "portable-storage",
  title: "Portable Storage",
  metaTitle: "Portable Storage Containers | Gatehouse Self Storage",
  metaDescription:
    "Portable storage containers delivered to your door in the Lumberton area. Load at your own pace and we store it at our secure facility or move it for you.",
  content: `
<p>Need storage at home, or time to pack before a move? We deliver a weather-resistant portable storage container to your driveway. Load it at your own pace, then keep it on site or have us take it back to our secure Lumberton facility.</p>
<h2>How it works</h2>
<ol>
<li><strong>We deliver.</strong> Call the office to book a delivery date. We need a level space about 12 ft wide and 20 ft long.</li>
<li><strong>You load.</strong> Keep the container as long as you need. Only you have the key to your lock.</li>
<li><strong>We store or move it.</strong> We bring it back to our gated facility, or to your new address.</li>
</ol>
<h2>Good for</h2>
<ul>
<li>Home renovations and staging a house for sale</li>
<li>Moving across town at your own pace</li>
<li>Extra space for a business or a job site</li>
</ul>
<p>Portable storage is booked by phone: call <a href="tel:${CONTACT_PHONE_TEL}">${CONTACT_PHONE}</a> for a quote.</p>`.trim(),
};

function image(src: string, width: number, height: number, alt: string): Image {
  const fileName = src.split("/").pop() ?? src;
  return {
    width,
    height,
    type: "image",
    alt,
    src,
    src_webp: null,
    title: alt,
    file_name: fileName,
    file_name_full: src,
    file_name_original: fileName,
    file_name_webp: null,
    file_name_original_unmodified: fileName,
    file_type: src.endsWith(".svg") ? "image/svg+xml" : "image/jpeg",
    file_base_url: "/images/",
  };
}
