/** The source files of app/ (no tests) that the "one place" guard tests read. */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

export const APP = path.resolve(import.meta.dirname, "../../app");

/** Every .ts/.tsx file below `dir` (default app/), tests left out unless asked for; absolute paths. */
export function appSources(dir: string = APP, options: { tests?: boolean } = {}): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return appSources(p, options);
    return /\.(ts|tsx)$/.test(name) && (options.tests || !/\.test\.tsx?$/.test(name)) ? [p] : [];
  });
}
