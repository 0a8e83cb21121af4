/**
 * The expectations sitelink:verify checks (adapter-reads.ts) stay true to the adapter: every column
 * listed is read somewhere in the adapter's code, every operation is in the contract, and the
 * simulator (which answers from the contract's `results`) answers every table and column listed.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ADAPTER_READS } from "./adapter-reads";
import contractJson from "./operations.json";
import type { OperationContract } from "./contract";

const contract = contractJson as unknown as OperationContract;
const dir = path.dirname(new URL(import.meta.url).pathname);
const adapterSource = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "adapter-reads.ts")
  .map((f) => fs.readFileSync(path.join(dir, f), "utf8"))
  .join("\n");

describe("what sitelink:verify expects of each answer", () => {
  it("names operations of the contract, and the adapter calls each", () => {
    for (const op of Object.keys(ADAPTER_READS)) {
      expect(contract.operations[op], op).toBeDefined();
      if (op !== "PaymentTypesRetrieve") expect(adapterSource, op).toContain(`"${op}"`);
    }
  });

  it("lists only columns the adapter reads, and tables the simulator answers with those columns", () => {
    const wrong: string[] = [];
    for (const [op, reads] of Object.entries(ADAPTER_READS)) {
      for (const [table, t] of Object.entries(reads.tables)) {
        if (table !== "RT" && !adapterSource.includes(`"${table}"`)) wrong.push(`${op}.${table} is not read by the adapter`);
        const answered = contract.operations[op]!.results?.[table];
        if (!answered) wrong.push(`the simulator does not answer ${op} with ${table}`);
        for (const column of [...t.columns, ...(t.optional ?? [])]) {
          if (!new RegExp(`\\b${column}\\b`).test(adapterSource)) wrong.push(`${op}.${table}.${column} is not read by the adapter`);
          if (answered && !(column in answered)) wrong.push(`the simulator does not answer ${op}.${table}.${column}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
