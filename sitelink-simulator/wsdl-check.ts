/**
 * Compares a CallCenterWs WSDL (the real one when sandbox credentials exist, or the simulator's) with
 * the checked-in operation contract: every contract operation must exist with the same parameter
 * names, order and types (decision 107). Used by `npm run sitelink:check`.
 */
import { XMLParser } from "fast-xml-parser";
import type { Contract } from "./contract";

interface WsdlOperation {
  name: string;
  params: Array<{ name: string; type: string }>;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", removeNSPrefix: true, isArray: (name) => name === "element" });

type Node = Record<string, unknown>;
const list = (v: unknown): Node[] => (Array.isArray(v) ? (v as Node[]) : v ? [v as Node] : []);

/** The request elements of a WSDL's schema: element name -> ordered (name, type). */
function wsdlOperations(wsdlText: string): Map<string, WsdlOperation> {
  const doc = parser.parse(wsdlText) as Node;
  const defs = doc.definitions as Node;
  const schemas = list((defs.types as Node | undefined)?.schema);
  const out = new Map<string, WsdlOperation>();
  for (const schema of schemas) {
    for (const el of list(schema.element)) {
      const name = String(el.name ?? "");
      const seq = ((el.complexType as Node | undefined)?.sequence as Node | undefined) ?? undefined;
      if (!seq) continue;
      const params = list(seq.element)
        .filter((p) => p.name)
        .map((p) => ({ name: String(p.name), type: String(p.type ?? "").replace(/^\w+:/, "s:") }));
      out.set(name, { name, params });
    }
  }
  return out;
}

/** Human-readable differences between the contract and a WSDL (empty when they agree). */
export function diffContract(contract: Contract, wsdlText: string): string[] {
  const ops = wsdlOperations(wsdlText);
  const problems: string[] = [];
  for (const [name, op] of Object.entries(contract.operations)) {
    const w = ops.get(name);
    if (!w) {
      problems.push(`${name}: not in the WSDL`);
      continue;
    }
    const ours = op.params.map((p) => `${p.name}:${p.type}`);
    const theirs = w.params.map((p) => `${p.name}:${p.type}`);
    if (ours.join(",") !== theirs.join(",")) {
      problems.push(`${name}:\n    contract: ${ours.join(", ")}\n    WSDL:     ${theirs.join(", ")}`);
    }
  }
  return problems;
}
