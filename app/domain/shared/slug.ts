/** Lowercase, ASCII, words joined by single hyphens. */
export function slugify(value: string): string {
  return value
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** A location's url_slug: city name, state code and postal code, lowercase (spec §2), e.g. "lumberton-nc-28358". */
export function locationSlug(address: { city: string; stateProvince: string; postal: string }): string {
  const postal = address.postal.trim().slice(0, 5);
  return [slugify(address.city), slugify(address.stateProvince), slugify(postal)].filter(Boolean).join("-");
}

const LOCATION_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*-[a-z]{2}-\d{5}$/;

export function isValidLocationSlug(slug: string): boolean {
  return LOCATION_SLUG_PATTERN.test(slug);
}
