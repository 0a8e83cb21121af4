/**
 * The expectations sitelink:verify checks (adapter-reads.ts) stay true to the adapter: every column
 * listed is read somewhere in the adapter's code, every column the adapter's code reads of an answer
 * is listed, every operation is in the contract, and the simulator (which answers from the contract's
 * `results`) answers every table and column listed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ADAPTER_READS } from "./adapter-reads";
import contractJson from "./operations.json";
import type { OperationContract } from "./contract";

const contract = contractJson as unknown as OperationContract;
const dir = path.dirname(new URL(import.meta.url).pathname);
const adapterFiles = fs.readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "adapter-reads.ts" && f !== "verify.ts");
const adapterSource = adapterFiles.map((f) => fs.readFileSync(path.join(dir, f), "utf8")).join("\n");
/** PaymentTypesRetrieve is read only by sitelink:verify (the operator copies its ids into --card-type). */
const verifySource = fs.readFileSync(path.join(dir, "verify.ts"), "utf8");
const sourceFor = (op: string) => (op === "PaymentTypesRetrieve" ? verifySource : adapterSource);

/**
 * Property names in the adapter that look like SiteLink columns but are not a column of an answer:
 * the answer's own tables and envelope, TypeScript and Node names, and a second spelling the adapter
 * falls back to (the contract and every source say sProvidor).
 */
/**
 * A column read in the adapter's code: `.Name` or `?.Name` in SiteLink's spelling, Hungarian lower-case
 * prefixes (sFName, dcRent, bRented, iFloor, dPaidThru, lngLastTimePolled) or capitalised (TenantID,
 * Ret_Code, Receipt); not a call.
 */
const COLUMN_READ = /(?:\?\.|\.)((?:s|dc|b|i|d|dt|lng)[A-Z][A-Za-z0-9_]*|[A-Z][A-Za-z0-9_]*)\b(?!\s*\()/g;
const NOT_COLUMNS = new Set(["RT", "NewDataSet", "Envelope", "Body", "Fault", "Object", "ProcessEnv", "sProvider"]);

describe("what sitelink:verify expects of each answer", () => {
  it("names operations of the contract, and the adapter calls each", () => {
    for (const op of Object.keys(ADAPTER_READS)) {
      expect(contract.operations[op], op).toBeDefined();
      expect(sourceFor(op), op).toContain(`"${op}"`);
    }
  });

  it("lists only columns the adapter reads, and tables the simulator answers with those columns", () => {
    const wrong: string[] = [];
    for (const [op, reads] of Object.entries(ADAPTER_READS)) {
      for (const [table, t] of Object.entries(reads.tables)) {
        if (table !== "RT" && !sourceFor(op).includes(`"${table}"`)) wrong.push(`${op}.${table} is not read by the adapter`);
        const answered = contract.operations[op]!.results?.[table];
        if (!answered) wrong.push(`the simulator does not answer ${op} with ${table}`);
        for (const column of [...t.columns, ...(t.optional ?? [])]) {
          if (!new RegExp(`\\b${column}\\b`).test(sourceFor(op))) wrong.push(`${op}.${table}.${column} is not read by the adapter`);
          if (answered && !(column in answered)) wrong.push(`the simulator does not answer ${op}.${table}.${column}`);
        }
        // Sent back as read by name (tenant-contact.ts updateParams): the simulator must answer each.
        for (const column of t.keptAsRead ?? []) if (answered && !(column in answered)) wrong.push(`the simulator does not answer ${op}.${table}.${column}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("what the adapter reads of SiteLink's answers", () => {
  it("every column its code reads (row.Column, row?.Column) is listed for sitelink:verify", () => {
    const listed = new Set(Object.values(ADAPTER_READS).flatMap((o) => Object.values(o.tables).flatMap((t) => [...t.columns, ...(t.optional ?? []), ...(t.keptAsRead ?? [])])));
    const unlisted: string[] = [];
    for (const f of adapterFiles) {
      const source = fs.readFileSync(path.join(dir, f), "utf8");
      // ALL_CAPS names are constants and environment variables.
      for (const m of source.matchAll(COLUMN_READ)) {
        const name = m[1]!;
        if (listed.has(name) || NOT_COLUMNS.has(name) || /^[A-Z0-9_]+$/.test(name)) continue;
        unlisted.push(`${f}: ${name}`);
      }
    }
    expect([...new Set(unlisted)], "add each to ADAPTER_READS under the operation whose answer it is read from").toEqual([]);
  });

  it("the reverse check sees a read missing from the list", () => {
    const probe = "const x = row.dcSomethingNew ?? rows(a, \"Table\")[0]?.sAnotherColumn;";
    const found = [...probe.matchAll(COLUMN_READ)].map((m) => m[1]);
    expect(found).toEqual(["dcSomethingNew", "sAnotherColumn"]);
  });
});
