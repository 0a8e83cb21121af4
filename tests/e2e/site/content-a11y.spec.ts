import { SiteLayout } from "../support/site";
import { expect, expectNoAxeViolations, test } from "../support/a11y";
import { testHook } from "../support/hooks";

// Issue 24's content on the public pages (decisions 325, 674): special hours near the hours, a
// promotion badge (a promotion that applies: one month free) and a photo on the unit cards. An axe scan with them shown, at a pinned moment
// (Thanksgiving 2026, noon in Lumberton), so the special-hours list is not empty whatever today is.
// The page and site caches are dropped by the hook's writes; the pinned clock changes no cached row.

const LUMBERTON = "lumberton-nc-28358";
const PHOTO = { width: 64, height: 64, type: null, alt: "", src: "/images/facility.svg", src_webp: null, title: null, file_name: null, file_name_full: null, file_name_original: null, file_name_webp: null, file_name_original_unmodified: null, file_type: null, file_base_url: null };

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  await testHook(request, "setClock", { at: "2026-11-26T17:00:00Z" });
  await testHook(request, "setPublicContent", {
    slug: LUMBERTON,
    specialHours: [
      { date: "2026-11-26", label: "Thanksgiving", isClosed: true },
      { date: "2026-11-27", label: "Black Friday", isClosed: false, open: "10:00", close: "14:00" },
    ],
    promotion: { promotionKind: "percent", promotionPercent: 100, promotionMonths: 1 },
    images: [PHOTO],
  });
});

test.afterAll(async ({ request }) => {
  await testHook(request, "setPublicContent", { slug: LUMBERTON, specialHours: [], images: [] });
  await testHook(request, "setClock", { at: null });
});

test("axe: a location page with special hours, promotions and unit photos", async ({ scanPage }) => {
  await new SiteLayout(scanPage).goto(`/locations/${LUMBERTON}`);
  await expect(scanPage.getByTestId("special-hours")).toContainText("Thu, Nov 26 — Thanksgiving: Closed");
  await expect(scanPage.locator(".hours__status").first()).toHaveText("Closed now · opens tomorrow at 10:00 AM");
  await expect(scanPage.getByTestId("unit-promotion").first()).toContainText("First month free");
  await expectNoAxeViolations(scanPage);
});

test("axe: /units with promotions and unit photos", async ({ scanPage }) => {
  await new SiteLayout(scanPage).goto("/units");
  await expect(scanPage.getByTestId("unit-promotion").first()).toContainText("First month free");
  await expectNoAxeViolations(scanPage);
});
