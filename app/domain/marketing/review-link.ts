/** The location's review link, in the order an operator would want it used: Google, else Yelp, else Facebook (https only; decision 501). */
export function reviewLinkOf(location: { googleReviewLink: string | null; yelpReviewLink: string | null; facebookReviewLink: string | null }): string | null {
  for (const link of [location.googleReviewLink, location.yelpReviewLink, location.facebookReviewLink]) {
    const t = link?.trim();
    if (t && /^https:\/\//i.test(t)) return t;
  }
  return null;
}
