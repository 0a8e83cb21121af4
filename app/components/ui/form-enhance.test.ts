import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskPhoneAsTyped } from "~/domain/shared/phone";

// The form script (decision 130) is plain browser JavaScript inlined into the page; outside a browser
// it only exposes its phone mask, so the mask can be checked against the domain rule it copies.
const source = readFileSync(new URL("./form-enhance.js", import.meta.url), "utf8");
const sandbox: { __gatehouseMaskPhone?: (value: string) => string } = {};
runInNewContext(source, sandbox);
const maskPhone = sandbox.__gatehouseMaskPhone!;

describe("form-enhance.js", () => {
  it("masks a phone number exactly as maskPhoneAsTyped does", () => {
    for (const typed of ["", "9", "910", "9105", "910555", "9105550", "9105550134", "19105550134", "(910) 555-0134", "910.555.0134 ext 5", "+1 910 555 0134"]) {
      expect(maskPhone(typed), typed).toBe(maskPhoneAsTyped(typed));
    }
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9 ()+.\-a-z]{0,20}$/), (typed) => maskPhone(typed) === maskPhoneAsTyped(typed)),
      { numRuns: 500 },
    );
  });

  it("is small: under 2 kB gzipped, inline on every form page", async () => {
    const { gzipSync } = await import("node:zlib");
    expect(gzipSync(source).length).toBeLessThan(2_000);
  });
});
