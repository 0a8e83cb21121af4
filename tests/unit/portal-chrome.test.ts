/**
 * Issue 21 (decision 225): the portal's layouts own its chrome. The stylesheet (portal.css) is linked
 * by one layout (routes/portal/layout.tsx), the navigation (PortalNav) drawn by one layout
 * (routes/portal/signed-in.tsx); no page links or draws them again, and every portal page
 * with a UI sits under the layout that links the stylesheet.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import routes from "~/routes";

const APP = path.resolve(import.meta.dirname, "../../app");
const STYLESHEET_LAYOUT = "routes/portal/layout.tsx";
const NAV_LAYOUT = "routes/portal/signed-in.tsx";

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

const rel = (f: string) => path.relative(APP, f).split(path.sep).join("/");
const filesWith = (pattern: RegExp) => sources(APP).filter((f) => pattern.test(readFileSync(f, "utf8"))).map(rel).sort();

type Entry = { file: string; path?: string; children?: Entry[] };
const find = (list: Entry[], file: string): Entry | undefined => {
  for (const e of list) {
    if (e.file === file) return e;
    const inner = find(e.children ?? [], file);
    if (inner) return inner;
  }
};
const filesUnder = (e: Entry): string[] => (e.children ?? []).flatMap((c) => [c.file, ...filesUnder(c)]);

describe("the portal's chrome is drawn by its layouts, once", () => {
  it("portal.css is imported by the portal layout only", () => {
    expect(filesWith(/portal\.css/)).toEqual([STYLESHEET_LAYOUT]);
  });

  it("the portal navigation is rendered by the signed-in layout only (and defined in components/portal/parts.tsx)", () => {
    expect(filesWith(/<PortalNav\b/)).toEqual([NAV_LAYOUT]);
    expect(filesWith(/\bPortalNav\b/)).toEqual(["components/portal/parts.tsx", NAV_LAYOUT]);
  });

  it("no page draws the portal's container itself", () => {
    expect(filesWith(/className="container page (page--narrow )?portal"/)).toEqual([]);
  });

  it("every portal page file with a default export sits under the portal layout; the signed-in layout is inside it", () => {
    const layout = find(routes as unknown as Entry[], STYLESHEET_LAYOUT);
    expect(layout).toBeDefined();
    const under = filesUnder(layout!);
    expect(under).toContain(NAV_LAYOUT);
    const pages = readdirSync(path.join(APP, "routes", "portal"))
      .filter((n) => !n.endsWith(".test.tsx"))
      .map((n) => `routes/portal/${n}`)
      .filter((f) => f !== STYLESHEET_LAYOUT && /^export default /m.test(readFileSync(path.join(APP, f), "utf8")));
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.filter((f) => !under.includes(f))).toEqual([]);
  });
});
