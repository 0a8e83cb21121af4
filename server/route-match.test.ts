import { describe, expect, it } from "vitest";
import type { ServerBuild } from "react-router";
import { matchPage, routeTree } from "./route-match";

// The shape of the build's route manifest for a few of app/routes.ts's routes (the browser tests run
// the real one): the root, the portal's pathless layouts, the payment routes and the catch-all.
const route = (id: string, parentId: string | undefined, path: string | undefined, handle?: object, index?: boolean) => ({
  id,
  parentId,
  path,
  index,
  module: { handle } as never,
});
const manifest = Object.fromEntries(
  [
    route("root", undefined, ""),
    route("routes/site/home", "root", undefined, undefined, true),
    route("routes/site/faqs", "root", "faqs"),
    route("routes/portal/signed-in", "root", undefined),
    route("routes/portal/_index", "routes/portal/signed-in", "customer-portal"),
    route("routes/portal/unit", "routes/portal/signed-in", undefined),
    route("routes/portal/pay", "routes/portal/unit", "customer-portal/units/:leaseId/pay", { enhanceForms: true, paymentPage: true }),
    route("routes/portal/move-out", "routes/portal/unit", "customer-portal/units/:leaseId/move-out", { enhanceForms: true }),
    route("routes/rental/rent.lease", "root", "rent/lease/:leaseId"),
    route("routes/rental/rent", "root", "rent/:unitTypeId", { enhanceForms: true, paymentPage: true }),
    route("routes/rental/rent.confirmation", "root", "rent/:unitTypeId/confirmation"),
    route("routes/site/not-found", "root", "*"),
  ].map((r) => [r.id, r]),
) as unknown as ServerBuild["routes"];
const tree = routeTree(manifest);

describe("matchPage: a payment page by its route, whatever the spelling (decision 190)", () => {
  it.each([
    ["/rent/12?step=pay", true, null],
    ["/RENT/12?step=pay", true, "/rent/12"],
    ["/Rent/12/?step=pay", true, "/rent/12"],
    ["/r%65nt/12", true, "/rent/12"],
    ["/rent/./12", true, "/rent/12"],
    ["/CUSTOMER-PORTAL/units/2/pay", true, "/customer-portal/units/2/pay"],
    ["/customer-portal/UNITS/2/Pay/", true, "/customer-portal/units/2/pay"],
    ["/customer-portal/units/2/pay", true, null],
    ["/rent/12.data", true, null],
    ["/RENT/12.data?_routes=routes%2Frent", true, null],
    ["/rent/12/confirmation", false, null],
    ["/Rent/12/Confirmation", false, "/rent/12/confirmation"],
    ["/rent/lease/5", false, null],
    ["/customer-portal/units/2/move-out", false, null],
    ["/FAQS/", false, "/faqs"],
    ["/", false, null],
    ["/nowhere/Else/", false, null],
    ["/Customer-Portal", false, "/customer-portal"],
  ])("%s → payment %s, canonical %s", (target, payment, canonical) => {
    expect(matchPage(tree, target)).toEqual({ paymentPage: payment, canonicalPath: canonical });
  });

  it("keeps the values of dynamic segments as sent", () => {
    expect(matchPage(tree, "/RENT/Abc%20D").canonicalPath).toBe("/rent/Abc%20D");
  });
});
