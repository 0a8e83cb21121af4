import { describe, expect, it } from "vitest";
import fs from "node:fs";
import { envSchema } from "~/platform/env.server";

/**
 * The README's Configuration table and the one schema of the environment (app/platform/env.server.ts,
 * decision 210) name the same variables: a variable added to the schema needs its row, and a row
 * names a variable the app reads.
 */
function readmeVariables(): string[] {
  const readme = fs.readFileSync("README.md", "utf8");
  const section = readme.split(/^## Configuration$/m)[1]!.split(/^## /m)[0]!;
  const names = new Set<string>();
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const firstCell = line.split("|")[1]!;
    for (const m of firstCell.matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

describe("README Configuration table", () => {
  const schema = Object.keys(envSchema.shape).sort();
  const readme = readmeVariables();

  it("has a row for every variable in the schema", () => {
    expect(schema.filter((name) => !readme.includes(name))).toEqual([]);
  });

  it("names only variables of the schema", () => {
    expect(readme.filter((name) => !schema.includes(name))).toEqual([]);
  });

  it("is read (the table is found and not empty)", () => {
    expect(readme.length).toBeGreaterThan(30);
  });
});
