/**
 * The import graph of app/ (no tests), read from the sources: every `import … from`, `export … from`,
 * side-effect `import "…"` and dynamic `import("…")` whose specifier is `~/…` or relative, resolved
 * to a file. Type-only imports are edges too: a circle of types is still two files that cannot be
 * understood apart (decision 546).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { APP, appSources } from "./app-sources";

const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']|(?:^|[\s;])import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

/** The file a specifier names, or null (a package, a generated route type, a raw asset). */
function resolveImport(from: string, specifier: string): string | null {
  const bare = specifier.split("?")[0]!;
  if (bare.includes("/+types/")) return null;
  let base: string;
  if (bare.startsWith("~/")) base = path.join(APP, bare.slice(2));
  else if (bare.startsWith(".")) base = path.resolve(path.dirname(from), bare);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts"), path.join(base, "index.tsx")]) {
    if (/\.(ts|tsx)$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  return null;
}

/** Strips comments so that an example in a doc comment is not an edge. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** The app-relative files below app/ that `file` (absolute) imports. */
export function importsOf(file: string): string[] {
  const targets = new Set<string>();
  for (const m of code(readFileSync(file, "utf8")).matchAll(SPECIFIER)) {
    const target = resolveImport(file, (m[1] ?? m[2] ?? m[3])!);
    if (target && target.startsWith(APP + path.sep)) targets.add(path.relative(APP, target).split(path.sep).join("/"));
  }
  return [...targets].sort();
}

/** app-relative file → the app-relative files it imports (tests left out: nothing imports them). */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of appSources()) graph.set(path.relative(APP, file).split(path.sep).join("/"), importsOf(file));
  return graph;
}

/** Every circle of files (strongly connected components of more than one file, or a file importing itself). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}
