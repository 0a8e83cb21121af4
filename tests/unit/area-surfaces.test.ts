/**
 * Cross-area imports go through a small, named surface (issue 38, decision 545): each area lists the
 * modules other areas may import; an import of any other module of an area from outside it fails
 * here. Adding a module to a surface is a deliberate change, seen in review. Shared folders (shared,
 * web, ui, jobs) are not areas: every area may import them.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP } from "./app-sources";
import { areaOf, crossAreaImports } from "./area-imports";

/** Per area: the modules other areas may import (app-relative). */
const SURFACES: Record<string, string[]> = {
  audit: [
    "services/audit/events.server.ts",
    "services/audit/trail.server.ts",
  ],
  console: [
    "components/console/shell.tsx",
    "domain/console/origin.ts",
    "services/console/headers.server.ts",
  ],
  content: [
    "domain/content/publish-forms.ts",
    "domain/content/sanitize.server.ts",
    "services/content/changes-page.server.ts",
    "services/content/media.server.ts",
    "services/content/promotion.server.ts",
    "services/content/publish.server.ts",
  ],
  desk: [
    "components/desk/list.tsx",
    "domain/desk/filters.ts",
    "domain/desk/tenants.ts",
    "domain/desk/time.ts",
    "services/desk/journal.server.ts",
    "services/desk/leads.server.ts",
    "services/desk/move-outs.server.ts",
    "services/desk/payments.server.ts",
    "services/desk/reconciliation.server.ts",
    "services/desk/rentals.server.ts",
    "services/desk/reservations.server.ts",
    "services/desk/scope.server.ts",
    "services/desk/tenants.server.ts",
  ],
  mail: [
    "services/mail/outbox.server.ts",
    "services/mail/unsubscribe-headers.server.ts",
    "services/mail/unsent.server.ts",
  ],
  marketing: [
    "domain/marketing/review-link.ts",
  ],
  payments: [
    "components/payments/autopay-field.tsx",
    "components/payments/card-brands.tsx",
    "components/payments/card-fields.tsx",
    "components/payments/page-guard.ts",
    "domain/payments/accepted-cards.ts",
    "domain/payments/billing.ts",
    "domain/payments/card-authentication.ts",
    "domain/payments/card-schema.ts",
    "domain/payments/cards.ts",
    "domain/payments/charge-wording.ts",
    "domain/payments/method.ts",
    "domain/payments/pages.ts",
    "domain/payments/pay-bill-link.ts",
    "domain/payments/reconciliation.ts",
    "platform/payments/gateway.server.ts",
    "platform/payments/stripe.server.ts",
    "services/payments/authentication.server.ts",
    "services/payments/card-attempts.server.ts",
    "services/payments/pay-links.server.ts",
    "services/payments/receipt-email.server.ts",
    "services/payments/waiting-webhooks.server.ts",
  ],
  portal: [
    "components/portal/parts.tsx",
    "domain/portal/forms.ts",
    "services/portal/card-forms.server.ts",
    "services/portal/context.server.ts",
    "services/portal/hosted-payment.server.ts",
    "services/portal/payments.server.ts",
    "services/portal/profile.server.ts",
    "services/portal/sign-in-limits.server.ts",
  ],
  rental: [
    "domain/rental/autopay-choice.ts",
    "domain/rental/hold.ts",
    "domain/rental/promotion.ts",
    "domain/rental/rules.ts",
    "services/rental/lease-links.server.ts",
    "services/rental/move-in.server.ts",
    "services/rental/recovery.server.ts",
    "services/rental/submit.server.ts",
  ],
  site: [
    "components/site/unit-promotion.tsx",
    "domain/site/menu.ts",
    "domain/site/rates.ts",
    "domain/site/redirects.ts",
    "domain/site/units.ts",
    "domain/site/website-settings.ts",
    "services/site/context.server.ts",
    "services/site/origin.server.ts",
    "services/site/redirects.server.ts",
  ],
  staff: [
    "domain/staff/roles.ts",
    "services/staff/context.server.ts",
    "services/staff/step-up.server.ts",
    "services/staff/session.server.ts",
  ],
  texts: [
    "domain/texts/rules.ts",
    "platform/texts/provider.server.ts",
    "services/texts/desk.server.ts",
    "services/texts/leads.server.ts",
    "services/texts/planned.server.ts",
    "services/texts/portal.server.ts",
    "services/texts/rental.server.ts",
  ],
};

describe("cross-area imports", () => {
  const imports = crossAreaImports();

  it("find the imports between areas", () => {
    expect(imports.length).toBeGreaterThan(100);
    expect(areaOf("services/desk/leads.server.ts")).toBe("desk");
    expect(areaOf("domain/shared/money.ts")).toBeNull();
  });

  it("go only to a module of the other area's surface", () => {
    const outside = imports.filter((i) => !(SURFACES[i.area] ?? []).includes(i.to)).map((i) => `${i.from} -> ${i.to}`);
    expect(outside).toEqual([]);
  });

  it("every module of a surface exists, belongs to its area and is imported from another area", () => {
    const listed = Object.entries(SURFACES).flatMap(([area, modules]) => modules.map((m) => ({ area, m })));
    expect(listed.filter(({ m }) => !existsSync(path.join(APP, m))).map(({ m }) => m)).toEqual([]);
    expect(listed.filter(({ area, m }) => areaOf(m) !== area).map(({ m }) => m)).toEqual([]);
    const used = new Set(imports.map((i) => i.to));
    expect(listed.filter(({ m }) => !used.has(m)).map(({ m }) => m)).toEqual([]);
  });

  it("the check bites: an import of a module outside the surface is found", () => {
    const graph = new Map([["routes/desk/leads.tsx", ["services/portal/payments.server.ts", "services/web/csrf.server.ts"]]]);
    expect(crossAreaImports(graph)).toEqual([{ from: "routes/desk/leads.tsx", to: "services/portal/payments.server.ts", area: "portal" }]);
  });
});
