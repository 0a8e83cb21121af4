import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A payment page is a route whose handle says `paymentPage: true` (decision 190). Such a route also
 * needs the client guard (`paymentPageClientLoader`), and a route with card fields needs the flag:
 * this reads the route modules and fails when the three disagree.
 */
const dir = path.resolve(import.meta.dirname, "../../app/routes");
const modules = fs
  .readdirSync(dir, { recursive: true, encoding: "utf8" })
  .map((f) => f.split(path.sep).join("/"))
  .filter((f) => /\.tsx?$/.test(f))
  .map((f) => ({ file: f, source: fs.readFileSync(path.join(dir, f), "utf8") }));

describe("payment routes", () => {
  it("the flag, the client guard and the card fields go together", () => {
    const flagged = modules.filter((m) => /export const handle = \{[^}]*\bpaymentPage: true/.test(m.source)).map((m) => m.file);
    const guarded = modules.filter((m) => /paymentPageClientLoader\(/.test(m.source)).map((m) => m.file);
    const cardFields = modules.filter((m) => /<CardFields\b|name="cardNumber"|autoComplete="cc-number"/.test(m.source)).map((m) => m.file);
    expect(flagged.sort()).toEqual(guarded.sort());
    for (const file of cardFields) expect(flagged, `${file} shows card fields`).toContain(file);
    expect(flagged.sort()).toEqual(["payments/pay.authenticate.tsx", "payments/pay.tsx", "portal/autopay.tsx", "portal/pay.tsx", "portal/prepay.tsx", "rental/rent.tsx"]);
  });
});
