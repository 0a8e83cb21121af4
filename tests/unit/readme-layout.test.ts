/**
 * The README's Layout section names every top-level folder of the repository (issue 21), so a
 * newcomer finds where anything lives in one step. The folders are the tracked ones (`git ls-files`),
 * so build output and data directories do not count.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../..");

/** The text of one `## ` section of a markdown document, without its heading. */
export function section(md: string, heading: string): string {
  const start = md.indexOf(`\n## ${heading}\n`);
  if (start < 0) return "";
  const rest = md.slice(start + heading.length + 5);
  const next = rest.search(/^## /m);
  return next < 0 ? rest : rest.slice(0, next);
}

/** Top-level folders the section does not name as `folder/` (in code, or as the start of a path like `app/routes/`). */
export function unnamedFolders(layout: string, folders: string[]): string[] {
  return folders.filter((d) => !new RegExp(`\`${d.replace(/\./g, "\\.")}/`).test(layout));
}

describe("the README's Layout section", () => {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const layout = section(readme, "Layout");
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
  const folders = [...new Set(tracked.filter((f) => f.includes("/")).map((f) => f.split("/")[0]!))].sort();
  const appFolders = [...new Set(tracked.filter((f) => /^app\/[^/]+\//.test(f)).map((f) => `app/${f.split("/")[1]}`))].sort();

  it("names every tracked top-level folder", () => {
    expect(folders).toEqual(expect.arrayContaining(["app", "docs", "tests"]));
    expect(unnamedFolders(layout, folders)).toEqual([]);
  });

  it("names every folder of app/", () => {
    expect(appFolders.length).toBeGreaterThan(5);
    expect(unnamedFolders(layout, appFolders)).toEqual([]);
  });

  it("names every tracked top-level file", () => {
    const files = tracked.filter((f) => !f.includes("/"));
    expect(files.filter((f) => !layout.includes(`\`${f}\``))).toEqual([]);
  });

  it("the check bites: a folder left out is reported", () => {
    expect(unnamedFolders("- `app/` the site\n- `app/routes/` pages", ["app", "bench", "app/routes", "app/db"])).toEqual(["bench", "app/db"]);
    expect(section("# T\n## Layout\nx\n## Layers\ny", "Layout")).toBe("x\n");
  });
});
