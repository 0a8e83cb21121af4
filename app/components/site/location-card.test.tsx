import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { StatusBadge } from "./location-card";

describe("StatusBadge", () => {
  it("says the location is renting now, not 'Open' (which reads as open right now)", () => {
    const html = renderToStaticMarkup(<StatusBadge status="Live" />);
    expect(html).toBe('<span class="badge badge--live">Renting now</span>');
    expect(html).not.toMatch(/>Open</);
  });

  it("says 'Coming soon' for a location not yet open", () => {
    expect(renderToStaticMarkup(<StatusBadge status="Coming Soon" />)).toBe('<span class="badge badge--soon">Coming soon</span>');
  });
});
