/**
 * One way to show time on the console (issue 39, decision 644): its screens format instants and dates
 * only through app/domain/desk/time.ts (`formatDeskTime`, `formatDeskDate`), in the location's zone
 * with the zone named. This guard reads the console's routes and components and fails on the other
 * ways that crept in before: UTC by hand, `toLocale…String`, `toUTCString`, `Intl.DateTimeFormat`.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CONSOLE_DIRS = ["app/routes/desk", "app/routes/staff", "app/routes/audit", "app/routes/console", "app/routes/content", "app/routes/mail", "app/components/console", "app/components/desk", "app/components/staff", "app/components/content"];
const FORBIDDEN: Array<[RegExp, string]> = [
  [/\.toUTCString\(/, "toUTCString"],
  [/\.toLocale(Date|Time)?String\(/, "toLocale…String"],
  [/Intl\.DateTimeFormat/, "Intl.DateTimeFormat"],
  [/\.toISOString\(\)\.slice\(/, "an ISO string cut by hand"],
  [/["'`(\s]UTC["'`)]|\(UTC\)| UTC\b(?![-+])/, "UTC shown"],
  [/\bGMT\b/, "GMT shown"],
];

function files(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []));
}

it("the console's screens show time only through the one formatter", () => {
  const found: string[] = [];
  for (const file of CONSOLE_DIRS.flatMap(files)) {
    const lines = fs.readFileSync(path.join(ROOT, file), "utf8").split("\n");
    lines.forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return;
      for (const [pattern, what] of FORBIDDEN) if (pattern.test(line)) found.push(`${file}:${i + 1} ${what}`);
    });
  }
  expect(found).toEqual([]);
});

it("the guard bites", () => {
  expect(FORBIDDEN.some(([p]) => p.test('{new Date(x).toISOString().slice(0, 16) + " UTC"}'))).toBe(true);
  expect(FORBIDDEN.some(([p]) => p.test("d.toLocaleString('en-US')"))).toBe(true);
});
