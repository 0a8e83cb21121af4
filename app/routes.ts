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
  route("customer-portal/logout", "routes/customer-portal.logout.tsx"),
  // The portal's pages with a UI share one layout: the portal's stylesheet and the page's container
  // (decision 225).
  layout("routes/customer-portal.layout.tsx", [
    route("customer-portal/login", "routes/customer-portal.login.tsx"),
    route("customer-portal/create-sign-in", "routes/customer-portal.create-sign-in.tsx"),
    route("customer-portal/forgot-password", "routes/customer-portal.forgot-password.tsx"),
    route("customer-portal/reset-password", "routes/customer-portal.reset-password.tsx"),
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
  // ---- The back office (issue 23), desk b: tenants and the SiteLink journal. Under the console's
  // layout (h23-auth: its middleware checks the staff session and sets signedInStaffContext).
  layout("routes/admin.layout.tsx", [
    route("admin/tenants", "routes/admin.tenants.tsx"),
    route("admin/tenants.csv", "routes/admin.tenants[.]csv.ts"),
    route("admin/tenants/:tenantId", "routes/admin.tenant.tsx"),
    route("admin/sitelink-journal", "routes/admin.sitelink-journal.tsx"),
  ]),
  // ---- end of desk b
  route("units", "routes/units.tsx"),
  route("sitemap.xml", "routes/sitemap[.]xml.ts"),
  route("robots.txt", "routes/robots[.]txt.ts"),
  route("__test/hooks", "routes/test-hooks.ts"),
  route("locations/:slug/units/:unitTypeSlug", "routes/unit-type.tsx"),
  route("rent/lease/:leaseId", "routes/rent.lease.tsx"),
  route("rent/:unitTypeId", "routes/rent.tsx"),
  route("rent/:unitTypeId/confirmation", "routes/rent.confirmation.tsx"),
  route("reserve/confirmed/:code", "routes/reserve.confirmed.tsx"),
  route("reserve/cancel/:reservationId", "routes/reserve.cancel.tsx"),
  route("reserve/:unitTypeId", "routes/reserve.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
