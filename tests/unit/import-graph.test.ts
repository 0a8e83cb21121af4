/**
 * The import graph of app/ (issue 38, decision 546): no circle of files, and nothing imports a layer
 * above its own. The lint says the same (eslint-plugin-boundaries for the layers, import-x/no-cycle
 * for circles of values); this reads the sources, so it also counts type-only imports and holds for a
 * file the lint config might miss.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP, appSources } from "./app-sources";
import { circles, importGraph, importsOf } from "./import-graph";

/** Each folder of app/ and its layer's rank: a file may import its own rank and those below. */
const RANK: Array<[prefix: string, rank: number]> = [
  ["domain/", 0],
  ["platform/", 1],
  ["db/", 2],
  ["storage-software/", 2],
  ["services/", 3],
  ["components/", 4],
  ["routes/", 5],
  ["testing/", 6],
];
const rankOf = (file: string): number => RANK.find(([prefix]) => file.startsWith(prefix))?.[1] ?? 7;

describe("the import graph of app/", () => {
  const graph = importGraph();

  it("reads every source file and finds its imports", () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get("services/payments/stripe-webhooks.server.ts")).toContain("services/payments/waiting-webhooks.server.ts");
  });

  it("finds a circle when there is one", () => {
    const sample = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(circles(sample)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("has no circle of files (type-only imports included)", () => {
    expect(circles(graph)).toEqual([]);
  });

  it("has no import of a layer above the importing file's own (colocated tests included)", () => {
    const files = appSources(APP, { tests: true }).map((f) => path.relative(APP, f).split(path.sep).join("/"));
    const upward = files.flatMap((file) =>
      importsOf(path.join(APP, file))
        .filter((target) => rankOf(target) > rankOf(file))
        .map((target) => `${file} -> ${target}`),
    );
    expect(upward).toEqual([]);
  });
});
