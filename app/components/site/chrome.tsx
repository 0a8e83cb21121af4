import { Link, NavLink } from "~/components/ui/link";
import type { SiteLayout } from "~/db/queries/site.server";
import type { MenuItem } from "~/domain/site/menu";
import { componentProp, type ComponentSetting } from "~/domain/site/website-settings";
import { phoneHref } from "~/domain/shared/phone";
import { ResponsiveImage } from "../ui/responsive-image";

function MenuLink({ item, className }: { item: MenuItem; className?: string }) {
  if (!item.isInternal || /^[a-z]+:/i.test(item.url)) {
    return (
      <a
        href={item.url}
        className={className}
        {...(item.isTargetBlank ? { target: "_blank", rel: "noopener noreferrer" } : {})}
      >
        {item.name}
        {item.isTargetBlank ? <span className="visually-hidden"> (opens in a new tab)</span> : null}
      </a>
    );
  }
  return (
    <NavLink to={item.url} className={className} end {...(item.isTargetBlank ? { target: "_blank" } : {})}>
      {item.name}
    </NavLink>
  );
}

/**
 * A menu level. Items with children are disclosure widgets (<details>/<summary>): keyboard and
 * screen-reader accessible and working without JavaScript. Top-level ones share a name so opening
 * one closes the others.
 */
function MenuLevel({ items, depth, group }: { items: MenuItem[]; depth: number; group: string }) {
  return (
    <ul className={depth === 0 ? "menu menu--top" : "menu menu--sub"}>
      {items.map((item) => (
        <li key={item.id} className={item.children.length ? "menu__item has-children" : "menu__item"}>
          {item.children.length ? (
            <details name={`${group}-${depth}`} className="menu__disclosure">
              <summary className="menu__summary">{item.name}</summary>
              <div className="menu__panel">
                {item.url && !item.children.some((c) => c.url === item.url) ? (
                  <MenuLink item={{ ...item, name: `All ${item.name}` }} className="menu__link menu__link--overview" />
                ) : null}
                <MenuLevel items={item.children} depth={depth + 1} group={group} />
              </div>
            </details>
          ) : (
            <MenuLink item={item} className="menu__link" />
          )}
        </li>
      ))}
    </ul>
  );
}

function AnnouncementBar({ nav, fallbackPhone }: { nav: ComponentSetting; fallbackPhone: string }) {
  if (!componentProp(nav, "announcement_bar_enabled", false)) return null;
  const text = componentProp(nav, "announcement_bar_text", "");
  const phone = componentProp(nav, "announcement_bar_phone", fallbackPhone);
  return (
    <div className="announcement-bar" role="region" aria-label="Announcement">
      <div className="container">
        {text} {phone ? <a href={phoneHref(phone)}>{phone}</a> : null}
      </div>
    </div>
  );
}

interface NavbarProps {
  site: SiteLayout;
  variant: "classic" | "centered";
}

function Navbar({ site, variant }: NavbarProps) {
  const nav = site.website.navComponent;
  const menuName = componentProp(nav, "main_menu", "Main Menu");
  const menu = site.menus[menuName];
  const rentText = componentProp(nav, "rent_button_text", "Rent a unit");
  // Spec §2: /units is the default target of a rent button (the seed sets /view-locations).
  const rentUrl = componentProp(nav, "rent_button_url", "/units");
  const logo = site.website.logo;
  return (
    <header className={`site-header site-header--${variant}`}>
      <div className="container site-header__inner">
        <Link to="/" className="site-header__brand">
          {logo ? (
            <ResponsiveImage image={logo} alt={site.website.websiteName} eager sizes="(max-width: 59.99rem) 150px, 220px" />
          ) : (
            <span className="site-header__name">{site.website.websiteName}</span>
          )}
        </Link>
        {menu ? (
          <nav aria-label="Main" className="main-nav">
            <MenuLevel items={menu.items} depth={0} group="main" />
          </nav>
        ) : null}
        {menu ? (
          // Small screens: the same menu behind one "Menu" disclosure (works without JavaScript).
          // CSS shows either this or the bar above, so one "Main" navigation is exposed at a time.
          <details className="mobile-nav">
            <summary className="mobile-nav__toggle">Menu</summary>
            <nav aria-label="Main" className="mobile-nav__panel">
              <MenuLevel items={menu.items} depth={0} group="mobile" />
            </nav>
          </details>
        ) : null}
        <Link to={rentUrl} className="button button--primary site-header__cta">
          {rentText}
        </Link>
      </div>
    </header>
  );
}

/** Navbars by `nav_component.name`; an unknown name falls back to the classic one. */
const navbars: Record<string, NavbarProps["variant"]> = {
  NavbarClassic: "classic",
  NavbarCentered: "centered",
};

export function SiteHeader({ site }: { site: SiteLayout }) {
  const nav = site.website.navComponent;
  return (
    <>
      <AnnouncementBar nav={nav} fallbackPhone={site.phoneNumber} />
      <Navbar site={site} variant={navbars[nav.name] ?? "classic"} />
    </>
  );
}

function FooterMenu({ site, propName, fallback }: { site: SiteLayout; propName: string; fallback: string }) {
  const name = componentProp(site.website.footerComponent, propName, fallback);
  const menu = site.menus[name];
  if (!menu) return null;
  const headingId = `footer-menu-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <nav className="footer-menu" aria-labelledby={headingId}>
      <h2 id={headingId} className="footer-menu__heading">
        {menu.heading || menu.name}
      </h2>
      <ul>
        {menu.items.map((item) => (
          <li key={item.id}>
            <MenuLink item={item} />
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * The footer: brand and phone, then the two menus of spec §2 named by footer_component's props
 * (Company and Quick Links by default). No location list: Quick Links and the main menu already
 * lead to every location (docs/decisions/095-footer-two-menus.md).
 */
export function SiteFooter({ site }: { site: SiteLayout }) {
  const logo = site.website.footerLogo;
  return (
    <footer className="site-footer">
      <div className="container site-footer__inner">
        <div className="site-footer__brand">
          {logo ? <ResponsiveImage image={logo} alt={site.website.websiteName} sizes="220px" /> : <p>{site.website.websiteName}</p>}
          {site.account.tagline ? <p>{site.account.tagline}</p> : null}
          {site.phoneNumber ? (
            <p>
              Call us: <a href={phoneHref(site.phoneNumber)}>{site.phoneNumber}</a>
            </p>
          ) : null}
        </div>
        <FooterMenu site={site} propName="first_menu" fallback="Company" />
        <FooterMenu site={site} propName="second_menu" fallback="Quick Links" />
      </div>
      <div className="container site-footer__legal">
        <p>
          © {new Date().getFullYear()} {site.account.name}. <Link to="/privacy-policy">Privacy policy</Link>
        </p>
      </div>
    </footer>
  );
}
