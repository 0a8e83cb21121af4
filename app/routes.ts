import { type RouteConfig, index, layout, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("view-locations", "routes/view-locations.tsx"),
  route("locations/:slug", "routes/location.tsx"),
  route("about", "routes/about.tsx"),
  route("portable-storage", "routes/portable-storage.tsx"),
  route("contact", "routes/contact.tsx"),
  route("faqs", "routes/faqs.tsx"),
  route("storage-tips", "routes/storage-tips.tsx"),
  route("size-guide", "routes/size-guide.tsx"),
  route("privacy-policy", "routes/privacy-policy.tsx"),
  // Stripe's signed webhooks (issue 25, decision 382).
  route("webhooks/stripe", "routes/webhooks.stripe.ts"),
  // Twilio's signed webhooks: delivery status and inbound texts (issue 40, decision 493).
  route("webhooks/twilio/status", "routes/webhooks.twilio.status.ts"),
  route("webhooks/twilio/inbound", "routes/webhooks.twilio.inbound.ts"),
  route("customer-portal/logout", "routes/customer-portal.logout.tsx"),
  // The portal's pages with a UI share one layout: the portal's stylesheet and the page's container
  // (decision 225).
  layout("routes/customer-portal.layout.tsx", [
    route("customer-portal/login", "routes/customer-portal.login.tsx"),
    route("customer-portal/create-sign-in", "routes/customer-portal.create-sign-in.tsx"),
    route("customer-portal/forgot-password", "routes/customer-portal.forgot-password.tsx"),
    route("customer-portal/reset-password", "routes/customer-portal.reset-password.tsx"),
    // "Pay without a password" (decision 240): a signed, single-use link, no session.
    route("pay/:token", "routes/pay.tsx"),
    // A payment the bank wants confirmed (3-D Secure), from the e-mailed link (decision 395).
    route("pay/authenticate/:token", "routes/pay.authenticate.tsx"),
    // Pathless layouts (decision 160): their middleware checks the session, then the unit, once, before
    // any loader or action of the pages under them; the URLs are the pages' own. The signed-in one
    // also draws the portal's navigation (decision 225).
    layout("routes/customer-portal.signed-in.tsx", [
      route("customer-portal", "routes/customer-portal._index.tsx"),
      route("customer-portal/profile", "routes/customer-portal.profile.tsx"),
      route("customer-portal/receipts/:paymentId", "routes/customer-portal.receipt.tsx"),
      layout("routes/customer-portal.unit.tsx", [
        route("customer-portal/units/:leaseId/pay", "routes/customer-portal.pay.tsx"),
        route("customer-portal/units/:leaseId/prepay", "routes/customer-portal.prepay.tsx"),
        route("customer-portal/units/:leaseId/autopay", "routes/customer-portal.autopay.tsx"),
        route("customer-portal/units/:leaseId/move-out", "routes/customer-portal.move-out.tsx"),
      ]),
    ]),
  ]),
  // The back office (issue 23): the console's shell (its own layout and stylesheet, no site chrome or
  // operator code, no-store, noindex), then the signed-in layout whose middleware checks the staff
  // session before any loader or action under it.
  layout("routes/admin.shell.tsx", [
    route("admin/sign-in", "routes/admin.sign-in.tsx"),
    route("admin/sign-in/code", "routes/admin.sign-in.code.tsx"),
    route("admin/sign-out", "routes/admin.sign-out.tsx"),
    route("admin/invite/:token", "routes/admin.invite.tsx"),
    layout("routes/admin.layout.tsx", [
      route("admin", "routes/admin._index.tsx"),
      route("admin/reauth", "routes/admin.reauth.tsx"),
      route("admin/staff", "routes/admin.staff.tsx"),
      route("admin/audit", "routes/admin.audit.tsx"),
      route("admin/security", "routes/admin.security.tsx"),
      route("admin/audit.csv", "routes/admin.audit[.]csv.ts"),
      route("admin/rentals", "routes/admin.rentals.tsx"),
      route("admin/rentals.csv", "routes/admin.rentals[.]csv.ts"),
      route("admin/reservations", "routes/admin.reservations.tsx"),
      route("admin/reservations.csv", "routes/admin.reservations[.]csv.ts"),
      route("admin/leads", "routes/admin.leads.tsx"),
      route("admin/leads.csv", "routes/admin.leads[.]csv.ts"),
      route("admin/leads/:leadKey", "routes/admin.lead.tsx"),
      route("admin/payments", "routes/admin.payments.tsx"),
      route("admin/payments.csv", "routes/admin.payments[.]csv.ts"),
      route("admin/reconciliation", "routes/admin.reconciliation.tsx"),
      route("admin/tenants", "routes/admin.tenants.tsx"),
      route("admin/tenants.csv", "routes/admin.tenants[.]csv.ts"),
      route("admin/tenants/:tenantId", "routes/admin.tenant.tsx"),
      route("admin/sitelink-journal", "routes/admin.sitelink-journal.tsx"),
      // Issue 24 (decisions 315, 318): preview mode on and off; what the draft changes.
      route("admin/preview", "routes/admin.preview.tsx"),
      route("admin/changes/diff", "routes/admin.changes.diff.tsx"),
      // Content editing (issue 24): every edit goes into the draft changeset (decision 300).
      route("admin/content", "routes/admin.content._index.tsx"),
      route("admin/content/website", "routes/admin.content.website.tsx"),
      route("admin/content/company", "routes/admin.content.company.tsx"),
      route("admin/content/menus", "routes/admin.content.menus.tsx"),
      route("admin/content/pages", "routes/admin.content.pages.tsx"),
      route("admin/content/faqs", "routes/admin.content.faqs.tsx"),
      route("admin/content/redirects", "routes/admin.content.redirects.tsx"),
      route("admin/content/locations/:locationId", "routes/admin.content.location.tsx"),
      route("admin/content/locations/:locationId/hours", "routes/admin.content.location-hours.tsx"),
      route("admin/content/locations/:locationId/special-hours", "routes/admin.content.location-special-hours.tsx"),
      route("admin/content/locations/:locationId/amenities", "routes/admin.content.location-amenities.tsx"),
      route("admin/content/unit-types/:unitTypeId", "routes/admin.content.unit-type.tsx"),
      route("admin/changes", "routes/admin.changes.tsx"),
      route("admin/changes/versions/:version", "routes/admin.changes.version.tsx"),
      // Images (issue 24, decision 322): uploads into the draft.
      route("admin/content/images", "routes/admin.content.images.tsx"),
      route("admin/content/locations/:locationId/photos", "routes/admin.content.location-photos.tsx"),
      route("admin/content/unit-types/:unitTypeId/photos", "routes/admin.content.unit-type-photos.tsx"),
      route("admin/*", "routes/admin.not-found.tsx"),
    ]),
  ]),
  route("units", "routes/units.tsx"),
  route("sitemap.xml", "routes/sitemap[.]xml.ts"),
  route("robots.txt", "routes/robots[.]txt.ts"),
  route("media/:file", "routes/media.$file.ts"),
  route("__test/hooks", "routes/test-hooks.ts"),
  // Preview on the public site, handed over from the console's own origin (decision 450).
  route("preview/start", "routes/preview.start.ts"),
  route("preview/end", "routes/preview.end.ts"),
  route("locations/:slug/units/:unitTypeSlug", "routes/unit-type.tsx"),
  route("rent/lease/:leaseId", "routes/rent.lease.tsx"),
  route("rent/:unitTypeId", "routes/rent.tsx"),
  route("rent/:unitTypeId/confirmation", "routes/rent.confirmation.tsx"),
  route("reserve/confirmed/:code", "routes/reserve.confirmed.tsx"),
  route("reserve/cancel/:reservationId", "routes/reserve.cancel.tsx"),
  route("reserve/:unitTypeId", "routes/reserve.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
