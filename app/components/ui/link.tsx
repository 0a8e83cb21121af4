/**
 * React Router's `Link` and `NavLink`, with a shortcut for the server render of the common case
 * (docs/decisions/164-cpu-per-miss.md). Every `<Link>` resolves its path against the matched routes
 * on each render (hooks, a JSON round trip of the matches, path parsing): on a location page, with
 * the menus and footer, that was about 7 % of the CPU of a page-cache miss. A plain absolute path
 * ("/units", "/locations/lumberton-nc-28358", no query, no dots, nothing to encode) resolves to
 * itself, so on the server such a link is rendered directly: the same `<a>` React Router renders,
 * attribute for attribute (href, `data-discover`, NavLink's `active` class and `aria-current`).
 * Anything else — a query or hash, a relative path, a URL, other props, and every render in the
 * browser (a page that hydrates navigates with React Router) — goes to React Router's own component.
 */
import { forwardRef, useContext, type ForwardedRef } from "react";
import {
  Link as RouterLink,
  NavLink as RouterNavLink,
  UNSAFE_NavigationContext as NavigationContext,
  useLocation,
  type LinkProps,
  type NavLinkProps,
} from "react-router";

const ON_SERVER = typeof document === "undefined";

/** A path that React Router resolves, encodes and compares as it is. */
const PLAIN_ABSOLUTE_PATH = /^(?:\/[A-Za-z0-9_~-]+)*\/?$/;

/** Link props React Router reads itself and does not pass to the `<a>`: any of them set takes the full path. */
const ROUTER_PROPS = [
  "discover",
  "prefetch",
  "relative",
  "reloadDocument",
  "replace",
  "mask",
  "state",
  "preventScrollReset",
  "viewTransition",
  "defaultShouldRevalidate",
  "onClick",
] as const;

function isPlain(props: object, to: unknown): to is string {
  if (typeof to !== "string" || to === "" || !PLAIN_ABSOLUTE_PATH.test(to)) return false;
  for (const name of ROUTER_PROPS) if ((props as Record<string, unknown>)[name] !== undefined) return false;
  return true;
}

function useRootBasename(): boolean {
  return useContext(NavigationContext).basename === "/";
}

const ServerLink = forwardRef(function ServerLink(props: LinkProps, ref: ForwardedRef<HTMLAnchorElement>) {
  const rootBasename = useRootBasename();
  if (!rootBasename || !isPlain(props, props.to)) return <RouterLink {...props} ref={ref} />;
  const { to, target, ...rest } = props;
  // React Router's order: the other props, href, (onClick, ref), target, data-discover.
  return <a {...rest} href={to} ref={ref} target={target} data-discover="true" />;
});

const ServerNavLink = forwardRef(function ServerNavLink(props: NavLinkProps, ref: ForwardedRef<HTMLAnchorElement>) {
  const rootBasename = useRootBasename();
  const location = useLocation();
  const {
    "aria-current": ariaCurrentProp = "page",
    caseSensitive = false,
    className: classNameProp = "",
    end = false,
    style: styleProp,
    to,
    children,
    ...rest
  } = props;
  if (
    !rootBasename ||
    !isPlain(props, to) ||
    typeof classNameProp === "function" ||
    typeof styleProp === "function" ||
    typeof children === "function"
  ) {
    return <RouterNavLink {...props} ref={ref} />;
  }
  // React Router's NavLink on the server (no navigation in progress, no view transition).
  let locationPathname = location.pathname;
  let toPathname = to;
  if (!caseSensitive) {
    locationPathname = locationPathname.toLowerCase();
    toPathname = toPathname.toLowerCase();
  }
  const endSlashPosition = toPathname !== "/" && toPathname.endsWith("/") ? toPathname.length - 1 : toPathname.length;
  const isActive =
    locationPathname === toPathname ||
    (!end && locationPathname.startsWith(toPathname) && locationPathname.charAt(endSlashPosition) === "/");
  const className = [classNameProp, isActive ? "active" : null].filter(Boolean).join(" ");
  const { target, ...linkRest } = rest;
  return (
    <a
      {...linkRest}
      aria-current={isActive ? ariaCurrentProp : undefined}
      className={className}
      style={styleProp}
      href={to}
      ref={ref}
      target={target}
      data-discover="true"
    >
      {children}
    </a>
  );
});

export const Link = ON_SERVER ? ServerLink : RouterLink;
export const NavLink = ON_SERVER ? ServerNavLink : RouterNavLink;
