/**
 * Issue 21, decision 235: the code says "rental" for the visitor's online rental, never "checkout".
 * The retired word may not come back in a file name under app/ or in a name app/ exports (a type, a
 * function, a constant, a component). What the word still names on purpose is listed in decision
 * 235 (the SQL table `checkouts` and its columns, the cookie's name, the spec's
 * `charges_to_show_at_checkout`): those are strings and column properties, not exported names.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP, appSources } from "./app-sources";

const RETIRED = /checkout/i;

/** The names a module exports: declarations and `export { a, b as c }` lists. */
function exportedNames(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/\bexport\s+(?:default\s+)?(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)) names.push(m[1]!);
  for (const m of source.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(",")) {
      const name = part.trim().split(/\s+as\s+/).pop()?.replace(/^type\s+/, "").trim();
      if (name) names.push(name);
    }
  }
  return names;
}

describe("the glossary's words in app/ (decision 235)", () => {
  it("reads exported names (the guard itself)", () => {
    expect(exportedNames("export function getCheckout() {}\nexport const x = 1;\nexport { a as checkoutThing, type B };")).toEqual(["getCheckout", "x", "checkoutThing", "B"]);
  });

  it("no file under app/ is named after the checkout", () => {
    const named = appSources().map((f) => path.relative(APP, f)).filter((f) => RETIRED.test(f));
    expect(named).toEqual([]);
  });

  it("no name exported from app/ says checkout", () => {
    const found = appSources().flatMap((f) => exportedNames(readFileSync(f, "utf8")).filter((n) => RETIRED.test(n)).map((n) => `${path.relative(APP, f)}: ${n}`));
    expect(found).toEqual([]);
  });
});
