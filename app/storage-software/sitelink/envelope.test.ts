import { describe, expect, it } from "vitest";
import { XMLParser } from "fast-xml-parser";
import { buildEnvelope, DATETIME_NONE, EnvelopeError, escapeXml } from "./envelope";
import { testContract } from "./fixtures/contract";

const credentials = { corpCode: "CCTST", locationCode: "L001", corpUser: "web", password: "p<&>ss", apiKey: "KEY123" };
const parse = (xml: string) =>
  new XMLParser({ removeNSPrefix: true, parseTagValue: false, ignoreAttributes: false, attributeNamePrefix: "@" }).parse(xml);

const moveIn = {
  TenantID: 12,
  UnitID: "5001",
  dStartDate: "2026-11-24",
  dcPaymentAmount: "139.8",
  bTestMode: true,
};

describe("buildEnvelope", () => {
  it("sends every parameter of the contract, in order, auth first, in the operation's namespace", () => {
    const xml = buildEnvelope(testContract, "MoveInWithDiscount_v7", moveIn, credentials);
    const op = parse(xml).Envelope.Body.MoveInWithDiscount_v7;
    expect(xml).toContain('<soap:Body><MoveInWithDiscount_v7 xmlns="http://tempuri.org/CallCenterWs/CallCenterWs">');
    const names = [...xml.matchAll(/<(\w+)>/g)].map((m) => m[1]);
    expect(names).toEqual(testContract.operations.MoveInWithDiscount_v7!.params.map((p) => p.name));
    expect(op.sCorpCode).toBe("CCTST");
    expect(op.sLocationCode).toBe("L001");
    expect(op.sCorpUserName).toBe("web:::KEY123");
    expect(op.sCorpPassword).toBe("p<&>ss");
    expect(xml).toContain("<sCorpPassword>p&lt;&amp;&gt;ss</sCorpPassword>");
  });

  it("formats dateTime, decimal, boolean and int; optional ones missing get typed defaults, never an empty dateTime", () => {
    const op = parse(buildEnvelope(testContract, "MoveInWithDiscount_v7", moveIn, credentials)).Envelope.Body.MoveInWithDiscount_v7;
    expect(op.TenantID).toBe("12");
    expect(op.UnitID).toBe("5001");
    expect(op.dStartDate).toBe("2026-11-24T00:00:00");
    expect(op.dEndDate).toBe(DATETIME_NONE);
    expect(op.dcPaymentAmount).toBe("139.80");
    expect(op.bTestMode).toBe("true");
    expect(op.sCreditCardNumber).toBe("");
  });

  it.each([
    [{ dcPaymentAmount: 139.81 }, "139.81"],
    [{ dcPaymentAmount: 95 }, "95.00"],
    [{ dcPaymentAmount: "117.6500" }, "117.6500"],
    [{ dcPaymentAmount: "-3.5" }, "-3.50"],
  ])("decimal %j -> %s", (patch, text) => {
    const op = parse(buildEnvelope(testContract, "MoveInWithDiscount_v7", { ...moveIn, ...patch }, credentials)).Envelope.Body.MoveInWithDiscount_v7;
    expect(op.dcPaymentAmount).toBe(text);
  });

  it("keeps a full dateTime as given (site wall clock, no offset)", () => {
    const op = parse(buildEnvelope(testContract, "MoveInWithDiscount_v7", { ...moveIn, dEndDate: "2026-12-31T23:59:59" }, credentials)).Envelope.Body.MoveInWithDiscount_v7;
    expect(op.dEndDate).toBe("2026-12-31T23:59:59");
  });

  it.each([
    ["an unknown key (a misspelling SiteLink would answer with a silent -1)", { ...moveIn, iTenantID: 1 }, /unknown parameter iTenantID/],
    ["a missing required parameter", { ...moveIn, UnitID: undefined }, /missing parameter UnitID/],
    ["an auth parameter", { ...moveIn, sCorpPassword: "x" }, /auth parameter/],
    ["a bare date-time with an offset", { ...moveIn, dStartDate: "2026-11-24T00:00:00Z" }, /dateTime/],
    ["an empty dateTime", { ...moveIn, dStartDate: "" }, /dateTime/],
    ["a non-integer int", { ...moveIn, TenantID: 1.5 }, /integer expected/],
    ["a decimal with 3 decimals as a number", { ...moveIn, dcPaymentAmount: 1.005 }, /more than 2 decimals/],
    ["a boolean as a word", { ...moveIn, bTestMode: "yes" }, /boolean expected/],
  ])("throws on %s", (_what, params, message) => {
    expect(() => buildEnvelope(testContract, "MoveInWithDiscount_v7", params, credentials)).toThrow(EnvelopeError);
    expect(() => buildEnvelope(testContract, "MoveInWithDiscount_v7", params, credentials)).toThrow(message);
  });

  it("throws on an operation that is not in the contract", () => {
    expect(() => buildEnvelope(testContract, "MoveIn", {}, credentials)).toThrow(/Unknown SiteLink operation MoveIn/);
    expect(() => buildEnvelope(testContract, "toString", {}, credentials)).toThrow(/Unknown SiteLink operation/);
  });

  it("sends the user name alone without an API key", () => {
    const op = parse(buildEnvelope(testContract, "SiteInformation", {}, { ...credentials, apiKey: null })).Envelope.Body.SiteInformation;
    expect(op.sCorpUserName).toBe("web");
  });

  it("escapes markup and drops characters XML cannot carry", () => {
    expect(escapeXml(`<a href="x">&'\u0001`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&apos;");
    const op = parse(buildEnvelope(testContract, "MoveInWithDiscount_v7", { ...moveIn, sBillingName: "O'Brien & <Sons>" }, credentials)).Envelope.Body.MoveInWithDiscount_v7;
    expect(op.sBillingName).toBe("O'Brien & <Sons>");
  });
});

describe("the checked-in operation contract (operations.json)", async () => {
  const { default: contract } = await import("./operations.json");
  const real = contract as unknown as import("./contract").OperationContract;
  const sample = { "s:string": "x", "s:int": 1, "s:decimal": "1.00", "s:boolean": false, "s:dateTime": "2026-11-24" } as const;

  it("every operation starts with the four auth parameters and uses only known types", () => {
    for (const [name, spec] of Object.entries(real.operations)) {
      expect(spec.params.slice(0, 4).map((p) => p.name), name).toEqual(real.authParams);
      for (const p of spec.params) expect(Object.keys(sample), `${name}.${p.name}`).toContain(p.type);
      expect(["read", "write"], name).toContain(spec.kind);
    }
  });

  it("every operation can be built with its required parameters (and only those)", () => {
    for (const [name, spec] of Object.entries(real.operations)) {
      const params = Object.fromEntries(spec.params.slice(4).filter((p) => !p.optional).map((p) => [p.name, sample[p.type]]));
      const xml = buildEnvelope(real, name, params, credentials);
      expect(xml.match(new RegExp(`<${name} xmlns=`, "g")), name).toHaveLength(1);
    }
  });
});
