import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import type { SiteLayout } from "~/db/queries/site.server";
import type { MenuItem } from "~/domain/site/menu";
import { SiteFooter, SiteHeader } from "./chrome";

let id = 0;
const item = (name: string, url: string, children: MenuItem[] = [], extra: Partial<MenuItem> = {}): MenuItem => ({
  id: ++id,
  name,
  url,
  index: id,
  isInternal: true,
  isTargetBlank: false,
  children,
  ...extra,
});

function site(overrides: { nav?: SiteLayout["website"]["navComponent"]; footer?: SiteLayout["website"]["footerComponent"] } = {}): SiteLayout {
  return {
    website: {
      websiteName: "Gatehouse Self Storage",
      domain: "www.example.com",
      analyticsId: null,
      logo: null,
      footerLogo: null,
      globalStyles: {} as SiteLayout["website"]["globalStyles"],
      navComponent: overrides.nav ?? {
        name: "NavbarClassic",
        props: [
          { name: "main_menu", value: "Main Menu" },
          { name: "announcement_bar_enabled", value: true },
          { name: "announcement_bar_text", value: "Questions? Call us today:" },
          { name: "announcement_bar_phone", value: "(910) 555-0134" },
        ],
      },
      footerComponent: overrides.footer ?? {
        name: "FooterTwoMenus",
        props: [
          { name: "first_menu", value: "Company" },
          { name: "second_menu", value: "Quick Links" },
        ],
      },
      customCss: "",
      customJs: "",
      customHeaderCode: "",
      customBodyCode: "",
    },
    account: { name: "Gatehouse Self Storage", tagline: "Clean, secure storage", isRentalsEnabled: true },
    menus: {
      "Main Menu": {
        name: "Main Menu",
        heading: "",
        items: [
          item("Locations", "/view-locations", [
            item("Lumberton", "/locations/lumberton-nc-28358", [
              item("Self Storage", "/locations/lumberton-nc-28358"),
              item("Portable Storage", "/portable-storage"),
            ]),
            item("Jacksonville", "/locations/jacksonville-nc-28546"),
          ]),
          item("Pay Bill", "/payonline"),
          item("Blog", "https://blog.example.com", [], { isInternal: false, isTargetBlank: true }),
        ],
      },
      Company: { name: "Company", heading: "Company", items: [item("About Us", "/about")] },
      "Quick Links": { name: "Quick Links", heading: "Quick Links", items: [item("FAQs", "/faqs")] },
      Other: { name: "Other", heading: "Other links", items: [item("Size Guide", "/size-guide")] },
    },
    locations: [
      { name: "Lumberton", urlSlug: "lumberton-nc-28358", status: "Live", phoneNumber: "(910) 555-0134" },
      { name: "Kinston", urlSlug: "kinston-nc-28501", status: "Coming Soon", phoneNumber: "(910) 555-0134" },
    ],
    phoneNumber: "(910) 555-0134",
  } as SiteLayout;
}

const render = (node: React.ReactNode, path = "/about") => renderToStaticMarkup(<MemoryRouter initialEntries={[path]}>{node}</MemoryRouter>);

describe("SiteHeader", () => {
  it("shows the announcement bar with its text and a tel: link", () => {
    const html = render(<SiteHeader site={site()} />);
    expect(html).toContain('<div class="announcement-bar" role="region" aria-label="Announcement">');
    expect(html).toContain('Questions? Call us today: <a href="tel:+19105550134">(910) 555-0134</a>');
  });

  it("hides the announcement bar when it is not enabled", () => {
    const s = site({ nav: { name: "NavbarClassic", props: [{ name: "announcement_bar_enabled", value: false }] } });
    expect(render(<SiteHeader site={s} />)).not.toContain("announcement-bar");
  });

  it.each([
    ["NavbarClassic", "site-header--classic"],
    ["NavbarCentered", "site-header--centered"],
    ["SomethingUnknown", "site-header--classic"],
  ])("chooses the navbar by nav_component.name: %s → %s", (name, className) => {
    expect(render(<SiteHeader site={site({ nav: { name, props: [] } })} />)).toContain(`class="site-header ${className}"`);
  });

  it("has the 'Rent a unit' button to /units when the props name no target (spec §2), else the props' text and target", () => {
    expect(render(<SiteHeader site={site()} />)).toContain('class="button button--primary site-header__cta" href="/units"');
    expect(render(<SiteHeader site={site()} />)).toMatch(/href="\/units"[^>]*>Rent a unit<\/a>/);
    const seeded = site({
      nav: { name: "NavbarClassic", props: [{ name: "rent_button_text", value: "Rent a unit" }, { name: "rent_button_url", value: "/view-locations" }] },
    });
    expect(render(<SiteHeader site={seeded} />)).toMatch(/class="button button--primary site-header__cta" href="\/view-locations"[^>]*>Rent a unit<\/a>/);
    const custom = site({
      nav: { name: "NavbarClassic", props: [{ name: "rent_button_text", value: "Rent now" }, { name: "rent_button_url", value: "/locations/lumberton-nc-28358" }] },
    });
    expect(render(<SiteHeader site={custom} />)).toMatch(/href="\/locations\/lumberton-nc-28358"[^>]*>Rent now<\/a>/);
  });

  it("renders the Main Menu's submenus as nested disclosure widgets that work without JavaScript", () => {
    const html = render(<SiteHeader site={site()} />);
    expect(html).toContain('<nav aria-label="Main" class="main-nav">');
    // Locations → Lumberton → (Self Storage, Portable Storage): two levels of <details>/<summary>.
    const bar = html.slice(html.indexOf('<nav aria-label="Main" class="main-nav">'), html.indexOf('<details class="mobile-nav">'));
    expect(bar.match(/<details /g)).toHaveLength(2);
    expect(html).toMatch(/<summary class="menu__summary">Locations<\/summary>.*<summary class="menu__summary">Lumberton<\/summary>/);
    expect(html).toContain('href="/portable-storage"');
    // A parent with its own page gets an overview link inside its panel.
    expect(html).toContain(">All Locations</a>");
    expect(html).toContain('href="/payonline"');
  });

  it("offers the same menu behind one 'Menu' disclosure for small screens (no JavaScript needed)", () => {
    const html = render(<SiteHeader site={site()} />);
    const mobile = html.slice(html.indexOf('<details class="mobile-nav">'));
    expect(mobile).toMatch(/^<details class="mobile-nav"><summary class="mobile-nav__toggle">Menu<\/summary><nav aria-label="Main" class="mobile-nav__panel">/);
    expect(mobile).toContain('href="/portable-storage"');
    expect(mobile).toContain('href="/payonline"');
    // Its submenus form their own exclusive group, apart from the desktop bar's.
    expect(mobile).toContain('name="mobile-0"');
    expect(mobile).not.toContain('name="main-0"');
  });

  it("marks links that open a new tab, for screen readers too", () => {
    const html = render(<SiteHeader site={site()} />);
    expect(html).toContain(
      '<a href="https://blog.example.com" class="menu__link" target="_blank" rel="noopener noreferrer">Blog<span class="visually-hidden"> (opens in a new tab)</span></a>',
    );
  });

  it("marks the current page", () => {
    expect(render(<SiteHeader site={site()} />, "/payonline")).toMatch(/aria-current="page"[^>]*href="\/payonline"|href="\/payonline"[^>]*aria-current="page"/);
  });
});

describe("SiteFooter", () => {
  it("shows exactly the two menus named by footer_component (Company and Quick Links), under their headings", () => {
    const html = render(<SiteFooter site={site()} />);
    expect(html.match(/<nav /g)).toHaveLength(2);
    expect(html).toContain('<h2 id="footer-menu-company" class="footer-menu__heading">Company</h2>');
    expect(html).toContain('<h2 id="footer-menu-quick-links" class="footer-menu__heading">Quick Links</h2>');
    expect(html).toContain('href="/about"');
    expect(html).toContain('href="/faqs"');
    expect(html).not.toContain("Other links");
    // No third list of locations (decision 095), even with the older show_locations prop.
    expect(html).not.toContain('href="/locations/kinston-nc-28501"');
    expect(html).toContain('<a href="tel:+19105550134">(910) 555-0134</a>');
  });

  it("follows footer_component's props", () => {
    const s = site({
      footer: {
        name: "FooterTwoMenus",
        props: [
          { name: "first_menu", value: "Other" },
          { name: "second_menu", value: "Company" },
          { name: "show_locations", value: true },
        ],
      },
    });
    const html = render(<SiteFooter site={s} />);
    expect(html).toContain(">Other links</h2>");
    expect(html).toContain(">Company</h2>");
    expect(html).not.toContain("Quick Links");
    expect(html).not.toContain('href="/locations/kinston-nc-28501"');
  });

  it("shows the footer logo when there is one", () => {
    const s = site();
    s.website.footerLogo = {
      width: 220,
      height: 48,
      type: "image",
      alt: "Logo",
      src: "/images/logo-light.svg",
      src_webp: null,
      title: "Logo",
      file_name: "logo-light.svg",
      file_name_full: "/images/logo-light.svg",
      file_name_original: "logo-light.svg",
      file_name_webp: null,
      file_name_original_unmodified: "logo-light.svg",
      file_type: "image/svg+xml",
      file_base_url: "/images/",
    };
    const html = render(<SiteFooter site={s} />);
    expect(html).toMatch(/<img[^>]*src="\/images\/logo-light.svg"[^>]*alt="Gatehouse Self Storage"|<img[^>]*alt="Gatehouse Self Storage"[^>]*src="\/images\/logo-light.svg"/);
  });
});
