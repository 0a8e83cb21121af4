import { type RouteConfig, index, route } from "@react-router/dev/routes";

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
  route("customer-portal/login", "routes/customer-portal.login.tsx"),
  route("units", "routes/units.tsx"),
  route("sitemap.xml", "routes/sitemap[.]xml.ts"),
  route("robots.txt", "routes/robots[.]txt.ts"),
  route("__test/hooks", "routes/test-hooks.ts"),
  route("locations/:slug/units/:unitTypeSlug", "routes/unit-type.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
