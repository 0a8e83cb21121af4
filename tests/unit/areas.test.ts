/**
 * The product's areas (issue 38, decision 545): every file under app/ is in an area's folder or in a
 * folder that says why it is shared, the README's "Areas" table names every such folder and the
 * layers it is in, and no file name repeats its folder's area.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
const present = tracked.filter((f) => fs.existsSync(path.join(root, f)));

/** The README's Areas table: folder → the layers it is in. */
export function areasTable(md: string): Map<string, string[]> {
  const start = md.indexOf("\n### Areas\n");
  const text = start < 0 ? "" : md.slice(start, md.indexOf("\n## ", start + 1));
  const rows = new Map<string, string[]>();
  for (const m of text.matchAll(/^\| `([a-z-]+)\/` \|[^|]*\| ([a-z, ]+) \|$/gm)) rows.set(m[1]!, m[2]!.split(",").map((l) => l.trim()));
  return rows;
}

/** A file name that repeats its folder's area: `desk/desk-leads.server.ts`, `portal/portal.layout.tsx`. */
export function repeatsArea(file: string): boolean {
  const parts = file.split("/");
  const name = parts.at(-1)!;
  const folder = parts.at(-2) ?? "";
  return name.startsWith(`${folder}-`) || name.startsWith(`${folder}.`) || name.startsWith(`${folder}_`);
}

/** Layers split into area folders; platform may also hold files of its own (infrastructure, shared by definition). */
const AREA_LAYERS = ["domain", "platform", "services", "components", "routes"];
/** What app/ holds besides those layers, each a folder that says what it is. */
const OTHER_FOLDERS = ["db", "storage-software", "testing", "styles", "types"];
/** The framework's own files at app/'s top. */
const ROOT_FILES = ["entry.server.tsx", "root.tsx", "routes.ts"];

describe("the product's areas", () => {
  const table = areasTable(readme);
  const appFiles = present.filter((f) => f.startsWith("app/")).map((f) => f.slice(4));

  it("the README's table has the areas", () => {
    expect([...table.keys()]).toEqual(expect.arrayContaining(["site", "rental", "portal", "payments", "desk", "staff", "content"]));
  });

  it("every file of app/ is in a layer's folder, or is one of the framework's root files", () => {
    const stray = appFiles.filter((f) => {
      const [top, ...rest] = f.split("/");
      if (rest.length === 0) return !ROOT_FILES.includes(top!);
      return !AREA_LAYERS.includes(top!) && !OTHER_FOLDERS.includes(top!);
    });
    expect(stray).toEqual([]);
  });

  it("every file of domain, services, components and routes is in a folder the README's table names for that layer", () => {
    const outside = appFiles.filter((f) => {
      const [layer, folder, ...rest] = f.split("/");
      if (!AREA_LAYERS.includes(layer!)) return false;
      if (rest.length === 0) return layer !== "platform";
      return !(table.get(folder!) ?? []).includes(layer!);
    });
    expect(outside).toEqual([]);
  });

  it("every layer the table names for a folder has that folder", () => {
    const missing = [...table].flatMap(([folder, layers]) => layers.filter((layer) => !appFiles.some((f) => f.startsWith(`${layer}/${folder}/`))).map((layer) => `app/${layer}/${folder}/`));
    expect(missing).toEqual([]);
  });

  it("the integration and browser tests are in area folders too", () => {
    const testFolders = new Set([...table.keys(), "db", "storage-software", "support"]);
    const outside = present
      .filter((f) => /^tests\/(integration|e2e)\//.test(f))
      .filter((f) => {
        const parts = f.split("/");
        if (parts.length === 3) return !/^(global-setup\.ts)$/.test(parts[2]!);
        return !testFolders.has(parts[2]!);
      });
    expect(outside).toEqual([]);
  });

  it("no file name repeats its folder's area", () => {
    const inAreas = [...appFiles.filter((f) => AREA_LAYERS.includes(f.split("/")[0]!) && f.split("/").length > 2), ...present.filter((f) => /^tests\/(integration|e2e)\/[^/]+\//.test(f))];
    expect(inAreas.filter(repeatsArea)).toEqual([]);
  });

  it("the checks bite", () => {
    expect(repeatsArea("services/desk/desk-leads.server.ts")).toBe(true);
    expect(repeatsArea("routes/portal/portal.layout.tsx")).toBe(true);
    expect(repeatsArea("domain/site/sitemap.ts")).toBe(false);
    expect(areasTable("x\n### Areas\n\n| folder | what | layers |\n|---|---|---|\n| `desk/` | the desk | domain, services |\n\n## Next\n")).toEqual(new Map([["desk", ["domain", "services"]]]));
  });
});
