/**
 * The SiteLink adapter's own imports form a tree (issue 20): no module imports one that imports it
 * back, none imports the port's index (which imports the adapter), and the move-in is imported only
 * by the rentals part and the adapter's index: shared pieces (tenant records, ledger reads, billing
 * parameters, move-in attempts) have modules of their own.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const dir = path.resolve(__dirname, "../../app/storage-software/sitelink");
const files = fs.readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
const source = (f: string) => fs.readFileSync(path.join(dir, f), "utf8");
const localImports = (f: string) =>
  [...source(f).matchAll(/^(?:import|export)[^;]*?from "\.\/([^"]+)"/gms)].map((m) => `${m[1]}.ts`).filter((x) => files.includes(x));

describe("the SiteLink adapter's imports", () => {
  it("have no cycle", () => {
    const cycles: string[] = [];
    const state = new Map<string, 1 | 2>();
    const visit = (f: string, stack: string[]) => {
      state.set(f, 1);
      for (const next of localImports(f)) {
        if (state.get(next) === 1) cycles.push([...stack.slice(stack.indexOf(next)), f, next].join(" -> "));
        else if (!state.has(next)) visit(next, [...stack, f]);
      }
      state.set(f, 2);
    };
    for (const f of files) if (!state.has(f)) visit(f, []);
    expect(cycles).toEqual([]);
  });

  it("never import the port's index back", () => {
    expect(files.filter((f) => /from "\.\.\/index\.server"/.test(source(f)))).toEqual([]);
  });

  it("take the move-in only where it is used as such (rentals, the adapter's index)", () => {
    expect(files.filter((f) => localImports(f).includes("move-in.ts")).sort()).toEqual(["index.ts", "rentals.ts"]);
  });
});
