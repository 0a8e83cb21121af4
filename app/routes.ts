import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

export default [
  index("routes/site/home.tsx"),
  route("view-locations", "routes/site/view-locations.tsx"),
  route("locations/:slug", "routes/site/location.tsx"),
  route("about", "routes/site/about.tsx"),
  route("portable-storage", "routes/site/portable-storage.tsx"),
  route("contact", "routes/site/contact.tsx"),
  route("faqs", "routes/site/faqs.tsx"),
  route("storage-tips", "routes/site/storage-tips.tsx"),
  route("size-guide", "routes/site/size-guide.tsx"),
  route("privacy-policy", "routes/site/privacy-policy.tsx"),
  // Stripe's signed webhooks (issue 25, decision 382).
  route("webhooks/stripe", "routes/payments/webhooks.stripe.ts"),
  // Twilio's signed webhooks: delivery status and inbound texts (issue 40, decision 493).
  route("webhooks/twilio/status", "routes/texts/webhooks.twilio.status.ts"),
  route("webhooks/twilio/inbound", "routes/texts/webhooks.twilio.inbound.ts"),
  route("customer-portal/logout", "routes/portal/logout.tsx"),
  // The portal's pages with a UI share one layout: the portal's stylesheet and the page's container
  // (decision 225).
  layout("routes/portal/layout.tsx", [
    route("customer-portal/login", "routes/portal/login.tsx"),
    route("customer-portal/create-sign-in", "routes/portal/create-sign-in.tsx"),
    route("customer-portal/forgot-password", "routes/portal/forgot-password.tsx"),
    route("customer-portal/reset-password", "routes/portal/reset-password.tsx"),
    // "Pay without a password" (decision 240): a signed, single-use link, no session.
    route("pay/:token", "routes/payments/pay.tsx"),
    // A payment the bank wants confirmed (3-D Secure), from the e-mailed link (decision 395).
    route("pay/authenticate/:token", "routes/payments/pay.authenticate.tsx"),
    // Pathless layouts (decision 160): their middleware checks the session, then the unit, once, before
    // any loader or action of the pages under them; the URLs are the pages' own. The signed-in one
    // also draws the portal's navigation (decision 225).
    layout("routes/portal/signed-in.tsx", [
      route("customer-portal", "routes/portal/_index.tsx"),
      route("customer-portal/profile", "routes/portal/profile.tsx"),
      route("customer-portal/receipts/:paymentId", "routes/portal/receipt.tsx"),
      layout("routes/portal/unit.tsx", [
        route("customer-portal/units/:leaseId/pay", "routes/portal/pay.tsx"),
        route("customer-portal/units/:leaseId/prepay", "routes/portal/prepay.tsx"),
        route("customer-portal/units/:leaseId/autopay", "routes/portal/autopay.tsx"),
        route("customer-portal/units/:leaseId/move-out", "routes/portal/move-out.tsx"),
      ]),
    ]),
  ]),
  // The back office (issue 23): the console's shell (its own layout and stylesheet, no site chrome or
  // operator code, no-store, noindex), then the signed-in layout whose middleware checks the staff
  // session before any loader or action under it.
  layout("routes/console/shell.tsx", [
    route("admin/sign-in", "routes/staff/sign-in.tsx"),
    route("admin/sign-in/code", "routes/staff/sign-in.code.tsx"),
    route("admin/sign-out", "routes/staff/sign-out.tsx"),
    route("admin/invite/:token", "routes/staff/invite.tsx"),
    route("admin/forgot-password", "routes/staff/forgot-password.tsx"),
    route("admin/reset-password/:token", "routes/staff/reset-password.tsx"),
    // The report e-mail's unsubscribe link, one click and RFC 8058's POST, no session (decision 612).
    route("admin/reports/unsubscribe/:token", "routes/console/reports.unsubscribe.tsx"),
    layout("routes/console/layout.tsx", [
      route("admin", "routes/console/home.tsx"),
      route("admin/reauth", "routes/staff/reauth.tsx"),
      route("admin/staff", "routes/staff/members.tsx"),
      route("admin/audit", "routes/audit/trail.tsx"),
      route("admin/security", "routes/staff/security.tsx"),
      // Reports by e-mail (issue 40, decision 610).
      route("admin/reports", "routes/console/reports.tsx"),
      route("admin/audit.csv", "routes/audit/trail[.]csv.ts"),
      route("admin/rentals", "routes/desk/rentals.tsx"),
      route("admin/rentals.csv", "routes/desk/rentals[.]csv.ts"),
      route("admin/reservations", "routes/desk/reservations.tsx"),
      route("admin/reservations.csv", "routes/desk/reservations[.]csv.ts"),
      route("admin/leads", "routes/desk/leads.tsx"),
      route("admin/leads.csv", "routes/desk/leads[.]csv.ts"),
      route("admin/leads/:leadKey", "routes/desk/lead.tsx"),
      route("admin/payments", "routes/desk/payments.tsx"),
      route("admin/payments.csv", "routes/desk/payments[.]csv.ts"),
      route("admin/reconciliation", "routes/desk/reconciliation.tsx"),
      route("admin/tenants", "routes/desk/tenants.tsx"),
      route("admin/tenants.csv", "routes/desk/tenants[.]csv.ts"),
      route("admin/tenants/:tenantId", "routes/desk/tenant.tsx"),
      route("admin/sitelink-journal", "routes/desk/sitelink-journal.tsx"),
      route("admin/unsent-mail", "routes/mail/unsent.tsx"),
      // Issue 24 (decisions 315, 318): preview mode on and off; what the draft changes.
      route("admin/preview", "routes/content/preview.tsx"),
      route("admin/changes/diff", "routes/content/changes.diff.tsx"),
      // Content editing (issue 24): every edit goes into the draft changeset (decision 300).
      route("admin/content", "routes/content/edit._index.tsx"),
      route("admin/content/website", "routes/content/edit.website.tsx"),
      route("admin/content/company", "routes/content/edit.company.tsx"),
      route("admin/content/menus", "routes/content/edit.menus.tsx"),
      route("admin/content/pages", "routes/content/edit.pages.tsx"),
      route("admin/content/faqs", "routes/content/edit.faqs.tsx"),
      route("admin/content/redirects", "routes/content/edit.redirects.tsx"),
      // A new location from the console (issue 40, decision 620): owners only, through the draft.
      route("admin/content/locations/new", "routes/content/locations.new.tsx"),
      route("admin/content/locations/:locationId", "routes/content/edit.location.tsx"),
      route("admin/content/locations/:locationId/hours", "routes/content/edit.location-hours.tsx"),
      route("admin/content/locations/:locationId/special-hours", "routes/content/edit.location-special-hours.tsx"),
      route("admin/content/locations/:locationId/amenities", "routes/content/edit.location-amenities.tsx"),
      route("admin/content/locations/:locationId/settings", "routes/content/edit.location-settings.tsx"),
      route("admin/content/rental-settings", "routes/content/edit.rental-settings.tsx"),
      route("admin/content/unit-types/:unitTypeId", "routes/content/edit.unit-type.tsx"),
      route("admin/changes", "routes/content/changes.tsx"),
      route("admin/changes/versions/:version", "routes/content/changes.version.tsx"),
      // Images (issue 24, decision 322): uploads into the draft.
      route("admin/content/images", "routes/content/edit.images.tsx"),
      route("admin/content/locations/:locationId/photos", "routes/content/edit.location-photos.tsx"),
      route("admin/content/unit-types/:unitTypeId/photos", "routes/content/edit.unit-type-photos.tsx"),
      route("admin/*", "routes/console/not-found.tsx"),
    ]),
  ]),
  route("units", "routes/site/units.tsx"),
  route("sitemap.xml", "routes/site/sitemap[.]xml.ts"),
  route("robots.txt", "routes/site/robots[.]txt.ts"),
  route("media/:file", "routes/site/media.$file.ts"),
  route("__test/hooks", "testing/hooks-route.ts"),
  // Preview on the public site, handed over from the console's own origin (decision 450).
  route("preview/start", "routes/content/preview.start.ts"),
  route("preview/end", "routes/content/preview.end.ts"),
  route("locations/:slug/units/:unitTypeSlug", "routes/site/unit-type.tsx"),
  route("rent/lease/:leaseId", "routes/rental/rent.lease.tsx"),
  route("rent/back/:token", "routes/rental/rent.back.tsx"),
  route("rent/unsubscribe/:token", "routes/rental/rent.unsubscribe.tsx"),
  route("rent/:unitTypeId", "routes/rental/rent.tsx"),
  route("rent/:unitTypeId/confirmation", "routes/rental/rent.confirmation.tsx"),
  route("reserve/confirmed/:code", "routes/rental/reserve.confirmed.tsx"),
  route("reserve/cancel/:reservationId", "routes/rental/reserve.cancel.tsx"),
  route("reserve/:unitTypeId", "routes/rental/reserve.tsx"),
  route("*", "routes/site/not-found.tsx"),
] satisfies RouteConfig;
