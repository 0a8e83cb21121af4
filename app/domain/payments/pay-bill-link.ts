/**
 * Where "Pay Bill" goes (docs/decisions/090-external-payment-link.md). A location's
 * external_payment_link, when set to an http(s) URL, replaces our customer portal for that
 * location's tenants. Pure.
 */
import type { MenuItem } from "../site/menu";

/** The portal's sign-in page: the default target of Pay Bill (spec §2, /payonline redirects here). */
export const PORTAL_LOGIN_PATH = "/customer-portal/login";

/** Paths that mean "pay my bill" in the operator's menus. */
const PAY_BILL_PATHS = new Set(["/payonline", PORTAL_LOGIN_PATH]);

/** The location's external payment link if it is a usable http(s) URL, else null (blank or bad data is ignored). */
export function externalPaymentLink(value: string | null | undefined): string | null {
  const v = (value ?? "").trim();
  if (!v) return null;
  try {
    const url = new URL(v);
    return url.protocol === "https:" || url.protocol === "http:" ? url.toString() : null;
  } catch {
    return null;
  }
}

/** Pay Bill for one location: its external link, or our portal. */
export function payBillHref(location: { externalPaymentLink: string | null | undefined }): string {
  return externalPaymentLink(location.externalPaymentLink) ?? PORTAL_LOGIN_PATH;
}

/**
 * The site-wide Pay Bill target: the external link when every live location pays there (the same
 * link), else null (our portal, which serves every location).
 */
export function siteWidePaymentLink(locations: ReadonlyArray<{ status: string; externalPaymentLink: string | null | undefined }>): string | null {
  const live = locations.filter((l) => l.status === "Live");
  if (live.length === 0) return null;
  const links = new Set(live.map((l) => externalPaymentLink(l.externalPaymentLink)));
  const [only] = [...links];
  return links.size === 1 && only ? only : null;
}

/** The menus with their Pay Bill items pointed at `href` (an external link opens as an external link). */
export function withPayBillLink(items: MenuItem[], href: string | null): MenuItem[] {
  if (!href) return items;
  return items.map((item) => ({
    ...item,
    ...(PAY_BILL_PATHS.has(item.url.trim().toLowerCase()) ? { url: href, isInternal: false } : {}),
    children: withPayBillLink(item.children, href),
  }));
}
