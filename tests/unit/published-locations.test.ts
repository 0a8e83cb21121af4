import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APP, appSources } from "./app-sources";

/**
 * A location added from the console stays off the public site until its draft is published (issue 40,
 * decision 620). The public site finds locations through the read models of app/db/queries/ and the
 * rental's context: each of those that reads the locations table must apply `publishedLocation`
 * (app/db/queries/published-locations.ts), the one home of the rule. Pinned by reading the sources.
 */
const QUERIES = path.join(APP, "db/queries");
/** Read models the public site never uses, with why. */
const NOT_PUBLIC: Record<string, string> = {
  "location-software.server.ts": "the console home's occupancy (staff only)",
  "published-locations.ts": "the rule itself",
};

const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
const readsLocations = (text: string) => /\.from\(locations\)|query\.locations\.|innerJoin\(locations\b/.test(code(text));
const appliesRule = (text: string) => /\bpublishedLocation\b|\.isPublished\b/.test(code(text));

function offenders(files: Array<{ name: string; text: string }>): string[] {
  return files.filter((f) => !(f.name in NOT_PUBLIC) && readsLocations(f.text) && !appliesRule(f.text)).map((f) => f.name);
}

describe("the public site shows published locations only (decision 620)", () => {
  const files = appSources(QUERIES).map((file) => ({ name: path.relative(QUERIES, file), text: readFileSync(file, "utf8") }));

  it("every read model of app/db/queries that reads locations applies publishedLocation", () => {
    expect(files.filter((f) => readsLocations(f.text)).length).toBeGreaterThan(3);
    expect(offenders(files)).toEqual([]);
  });

  it("the rental's context refuses an unpublished location's unit types", () => {
    const text = readFileSync(path.join(APP, "services/rental/context.server.ts"), "utf8");
    expect(code(text)).toMatch(/!loc\.isPublished\)\s*return null/);
  });

  it("the check bites: a read of locations without the rule is named", () => {
    expect(offenders([{ name: "x.server.ts", text: "db.select().from(locations).where(eq(locations.accountId, 1))" }])).toEqual(["x.server.ts"]);
    expect(offenders([{ name: "y.server.ts", text: "db.select().from(locations).where(and(publishedLocation))" }])).toEqual([]);
  });
});
