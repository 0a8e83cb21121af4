/**
 * Neither storage-software adapter imports the other, and the module both share imports neither
 * (decision 220). Lint says the same (eslint-plugin-boundaries); this reads the sources, so it also
 * holds for a file the lint config might miss.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "../../app/storage-software");
const filesOf = (dir: string): string[] =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return filesOf(rel);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
/** The storage-software folder each import of a file resolves into (local, sitelink, shared, or "" for the port). */
const targets = (file: string): string[] =>
  [...fs.readFileSync(path.join(root, file), "utf8").matchAll(/(?:import|export)[^;]*?from\s+"([^"]+)"|import\s+"([^"]+)"/gms)]
    .map((m) => m[1] ?? m[2]!)
    .map((spec) =>
      spec.startsWith("~/storage-software/") ? spec.slice("~/storage-software/".length) : spec.startsWith(".") ? path.relative(root, path.resolve(path.join(root, path.dirname(file)), spec)) : null,
    )
    .filter((rel): rel is string => rel !== null && !rel.startsWith(".."))
    .map((rel) => (rel.includes(path.sep) ? rel.split(path.sep)[0]! : ""));

const importsInto = (dir: string, forbidden: string[]) =>
  filesOf(dir).flatMap((f) => targets(f).filter((t) => forbidden.includes(t)).map((t) => `${f} -> ${t}/`));

describe("the storage-software adapters' imports", () => {
  it("find files to check in each folder", () => {
    for (const dir of ["local", "sitelink", "shared"]) expect(filesOf(dir).length).toBeGreaterThan(0);
  });

  it("local never imports sitelink", () => {
    expect(importsInto("local", ["sitelink"])).toEqual([]);
  });

  it("sitelink never imports local", () => {
    expect(importsInto("sitelink", ["local"])).toEqual([]);
  });

  it("shared imports neither adapter", () => {
    expect(importsInto("shared", ["local", "sitelink"])).toEqual([]);
  });

  it("both adapters use the shared module", () => {
    expect(importsInto("local", ["shared"]).length).toBeGreaterThan(0);
    expect(importsInto("sitelink", ["shared"]).length).toBeGreaterThan(0);
  });
});
