/**
 * Which top-level parameters each endpoint takes, read from the `stripe` package's own types
 * (node_modules/stripe/esm/resources/*.d.ts, e.g. `PaymentIntentCreateParams`): Stripe answers an
 * unknown parameter with 400 `parameter_unknown`, and so does the fake. Parsed once per interface
 * (syntax only, no type checking).
 */
import { readFileSync } from "node:fs";
import ts from "typescript";

const RESOURCES = new URL("../node_modules/stripe/esm/resources/", import.meta.url);
const PAGINATION = ["ending_before", "limit", "starting_after"];
const cache = new Map<string, ReadonlySet<string>>();
const files = new Map<string, ts.SourceFile>();

function findInterface(node: ts.Node, name: string): ts.InterfaceDeclaration | undefined {
  if (ts.isInterfaceDeclaration(node) && node.name.text === name) return node;
  let found: ts.InterfaceDeclaration | undefined;
  node.forEachChild((child) => {
    found ??= findInterface(child, name);
  });
  return found;
}

/** The parameter names of `iface` in resources/`file` (with PaginationParams' when it extends them). */
export function allowedParams(file: string, iface: string): ReadonlySet<string> {
  const key = `${file}#${iface}`;
  const known = cache.get(key);
  if (known) return known;
  let source = files.get(file);
  if (!source) {
    source = ts.createSourceFile(file, readFileSync(new URL(file, RESOURCES), "utf8"), ts.ScriptTarget.Latest, false);
    files.set(file, source);
  }
  const decl = findInterface(source, iface);
  if (!decl) throw new Error(`stripe-fake: no interface ${iface} in stripe/esm/resources/${file}`);
  const names = new Set<string>();
  for (const m of decl.members) if (m.name && (ts.isIdentifier(m.name) || ts.isStringLiteral(m.name))) names.add(m.name.text);
  const extendsPagination = decl.heritageClauses?.some((h) => h.types.some((t) => t.expression.getText(source) === "PaginationParams"));
  if (extendsPagination) for (const p of PAGINATION) names.add(p);
  cache.set(key, names);
  return names;
}
