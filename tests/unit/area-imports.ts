/** Which area a file of app/ belongs to, and the imports from one area into another (decision 545). */
import { importGraph } from "./import-graph";

const LAYERS = ["domain", "platform", "services", "components", "routes"];
/** Folders that say why they are shared: any area may import them. */
const SHARED_FOLDERS = ["shared", "web", "ui", "jobs"];

/** The area of an app-relative file, or null for a shared folder or a file outside the areas. */
export function areaOf(file: string): string | null {
  const [layer, folder, ...rest] = file.split("/");
  if (!LAYERS.includes(layer!) || rest.length === 0 || SHARED_FOLDERS.includes(folder!)) return null;
  return folder!;
}

/** Every import of a module of one area by a file of another: "importer -> target". */
export function crossAreaImports(graph = importGraph()): Array<{ from: string; to: string; area: string }> {
  return [...graph].flatMap(([from, targets]) =>
    targets.filter((to) => areaOf(from) !== null && areaOf(to) !== null && areaOf(from) !== areaOf(to)).map((to) => ({ from, to, area: areaOf(to)! })),
  );
}
