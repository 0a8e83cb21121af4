/** The simulator's wire format, over real HTTP: envelopes, SOAPAction, DataSet shape, WSDL, auth, -1. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSiteLinkSimulator, type RunningSimulator } from "./server";
import { buildEnvelope, soapCall } from "./test-client";

const NOW = new Date("2026-03-10T15:00:00Z");
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSiteLinkSimulator({ port: 0, clock: () => NOW });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => sim.control.reset());

describe("SOAP request parsing", () => {
  it("accepts a quoted and an unquoted SOAPAction", async () => {
    const quoted = await soapCall(sim.url, "SiteInformation");
    const bare = await soapCall(sim.url, "SiteInformation", {}, { soapAction: "http://tempuri.org/CallCenterWs/CallCenterWs/SiteInformation" });
    for (const r of [quoted, bare]) {
      expect(r.status).toBe(200);
      expect(r.tables.Table?.[0]?.sLocationCode).toBe("L001");
      expect(r.tables.Table?.[0]?.SiteID).toBe("41001");
    }
  });

  it("accepts a default-namespace body and a cal:-prefixed body alike", async () => {
    const plain = await soapCall(sim.url, "SiteInformation", {}, { location: "L002" });
    const prefixed = await soapCall(sim.url, "SiteInformation", {}, { location: "L002", style: "prefixed" });
    expect(prefixed.tables.Table).toEqual(plain.tables.Table);
    expect(prefixed.tables.Table?.[0]?.sSiteName).toBe("Gatehouse Self Storage Jacksonville");
  });

  it("answers a missing or unknown SOAPAction with an HTTP 500 soap:Client Fault, like ASMX", async () => {
    const none = await soapCall(sim.url, "SiteInformation", {}, { soapAction: null });
    expect(none.status).toBe(500);
    expect(none.fault).toMatch(/did not recognize the value of HTTP Header SOAPAction/);
    const unknown = await soapCall(sim.url, "SiteInformation", {}, { soapAction: '"http://tempuri.org/CallCenterWs/CallCenterWs/NoSuchOp"' });
    expect(unknown.status).toBe(500);
    expect(unknown.text).toContain("<faultcode>soap:Client</faultcode>");
  });

  it("faults on malformed XML and on a value .NET cannot convert (an empty dateTime)", async () => {
    const res = await fetch(sim.url, {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8", soapaction: '"http://tempuri.org/CallCenterWs/CallCenterWs/SiteInformation"' },
      body: "<soap:Envelope><soap:Body>",
    });
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("Server was unable to read request");
    const empty = await soapCall(sim.url, "ScheduleMoveOut", { iLedgerID: 1, dScheduledOut: "" });
    expect(empty.status).toBe(500);
    expect(empty.fault).toMatch(/not a valid AllXsd value/);
  });

  it("binds a misspelled parameter as missing: HTTP 200 with RT -1, nothing else", async () => {
    const ok = await soapCall(sim.url, "LedgersByTenantID_v3", { sTenantID: "5001" });
    expect(ok.status).toBe(200);
    expect(ok.rt).toBeNull();
    expect(ok.tables.Ledgers?.length).toBeGreaterThan(0);
    const wrong = await soapCall(sim.url, "LedgersByTenantID_v3", { iTenantID: "5001" }, { omit: ["sTenantID"] });
    expect(wrong.status).toBe(200);
    expect(wrong.rt).toMatchObject({ Ret_Code: -1, Ret_Msg: "Error retrieving ledger data from the server" });
    // Case matters too.
    const lower = await soapCall(sim.url, "LedgersByTenantID_v3", { stenantid: "5001" }, { omit: ["sTenantID"] });
    expect(lower.rt?.Ret_Code).toBe(-1);
  });

  it("ignores unknown extra elements", async () => {
    const r = await soapCall(sim.url, "SiteInformation", { sSomethingElse: "x" });
    expect(r.status).toBe(200);
    expect(r.tables.Table?.[0]?.sLocationCode).toBe("L001");
  });
});

describe("DataSet responses", () => {
  it("carry an inline xs:schema and a diffgram with diffgr:id / msdata:rowOrder rows", async () => {
    const r = await soapCall(sim.url, "UnitTypePriceList_v2");
    expect(r.text).toContain('<xs:schema id="NewDataSet" xmlns="" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:msdata="urn:schemas-microsoft-com:xml-msdata">');
    expect(r.text).toContain('<xs:element name="dcStdRate" type="xs:decimal" minOccurs="0" />');
    expect(r.text).toContain('<diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1"><NewDataSet xmlns="">');
    expect(r.text).toContain('<Table diffgr:id="Table1" msdata:rowOrder="0">');
    expect(r.text).toContain('<Table diffgr:id="Table2" msdata:rowOrder="1">');
    expect(r.text).toMatch(/<UnitTypePriceList_v2Response xmlns="http:\/\/tempuri.org\/CallCenterWs\/CallCenterWs"><UnitTypePriceList_v2Result>/);
  });

  it('writes whole-dollar rates like "95" and other money like "117.6500"', async () => {
    const code = "L001";
    sim.control.createUnitType(code, { typeName: "Drive-Up", width: 12, length: 12, stdRate: 9500, webRate: 11765, statuses: ["available"] });
    const r = await soapCall(sim.url, "UnitTypePriceList_v2");
    const row = r.tables.Table!.find((t) => t.dcWidth === "12")!;
    expect(row.dcStdRate).toBe("95");
    expect(row.dcWebRate).toBe("117.6500");
    expect(row.dcAdminFee).toBe("0.0000");
    const ins = await soapCall(sim.url, "InsuranceCoverageRetrieve_V2");
    expect(ins.tables.Table!.map((t) => t.dcPremium)).toEqual(["8.9500", "11.9500", "21.9500", "36.9500"]);
  });

  it("answers an empty result set with an empty diffgram", async () => {
    const r = await soapCall(sim.url, "InsuranceCoverageRetrieve_V3");
    expect(r.status).toBe(200);
    expect(r.text).toContain('xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1" />');
    expect(r.tables).toEqual({});
  });

  it("writes dateTime cells as the site's wall clock with its offset (EDT on 10 March 2026)", async () => {
    const r = await soapCall(sim.url, "UnitsInformationByUnitID", { UnitID: 1001 });
    expect(r.tables.Table?.[0]?.dUpdated).toBe("2026-03-10T11:00:00-04:00");
  });
});

describe("credentials and locations", () => {
  it("answers bad credentials with HTTP 200 and RT -1 (decision 107) and logs nothing secret", async () => {
    const r = await soapCall(sim.url, "SiteInformation", {}, { auth: { sCorpPassword: "wrong" } });
    expect(r.status).toBe(200);
    expect(r.rt).toMatchObject({ Ret_Code: -1, Ret_Msg: "Invalid corporate code, user name or password." });
    expect(r.tables.Table).toBeUndefined();
    const key = await soapCall(sim.url, "SiteInformation", {}, { auth: { sCorpUserName: "gatehouse_web:::WRONG" } });
    expect(key.rt?.Ret_Code).toBe(-1);
    const [call] = sim.control.calls();
    expect(call!.params.sCorpPassword).toBe("[redacted]");
    expect(call!.params.sCorpUserName).toBe("gatehouse_web:::[redacted]");
  });

  it("can answer bad credentials with a SOAP Fault instead", async () => {
    const other = await startSiteLinkSimulator({ port: 0, clock: () => NOW, authFailure: "fault" });
    try {
      const r = await soapCall(other.url, "SiteInformation", {}, { auth: { sCorpCode: "NOPE" } });
      expect(r.status).toBe(500);
      expect(r.fault).toMatch(/Invalid corporate code/);
    } finally {
      await other.close();
    }
  });

  it("refuses an unknown location code with RT -1", async () => {
    const r = await soapCall(sim.url, "SiteInformation", {}, { location: "L999" });
    expect(r.rt).toMatchObject({ Ret_Code: -1, Ret_Msg: "Invalid location code: L999" });
  });
});

describe("every operation of the contract", () => {
  it("is answered over HTTP 200 (a call with only the auth parameters gets its table or RT -1, never a crash)", async () => {
    const { loadContract } = await import("./contract");
    for (const name of Object.keys(loadContract().operations)) {
      const r = await soapCall(sim.url, name, {}, { fill: false });
      expect({ name, status: r.status, fault: r.fault }).toEqual({ name, status: 200, fault: null });
    }
    expect(sim.control.calls().every((c) => c.processed)).toBe(true);
  });
});

describe("WSDL", () => {
  it("is served at ?WSDL from the operation contract", async () => {
    const res = await fetch(`${sim.url}?WSDL`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('targetNamespace="http://tempuri.org/CallCenterWs/CallCenterWs"');
    expect(text).toContain('<soap:operation soapAction="http://tempuri.org/CallCenterWs/CallCenterWs/MoveInWithDiscount_v7" style="document" />');
    expect(text).toMatch(/<s:element name="MoveInWithDiscount_v7"><s:complexType><s:sequence><s:element minOccurs="0" maxOccurs="1" name="sCorpCode" type="s:string" \/>.*<s:element minOccurs="1" maxOccurs="1" name="TenantID" type="s:int" \/>/);
    expect(text).toContain('<s:element ref="s:schema" /><s:any />');
    expect(text).toContain(`<soap:address location="${sim.url}" />`);
  });

  it("keeps the contract's parameter order in envelopes built from it", () => {
    const xml = buildEnvelope("ScheduleMoveOut", { iLedgerID: 7001, dScheduledOut: "2026-04-01T00:00:00" });
    expect(xml.indexOf("<sCorpPassword>")).toBeLessThan(xml.indexOf("<iLedgerID>"));
    expect(xml.indexOf("<iLedgerID>")).toBeLessThan(xml.indexOf("<dScheduledOut>"));
  });
});

describe("sitelink:check (contract against a WSDL)", () => {
  it("finds no difference with the simulator's WSDL and reports a renamed or reordered parameter", async () => {
    const { diffContract } = await import("./wsdl-check");
    const { loadContract } = await import("./contract");
    const text = await (await fetch(`${sim.url}?WSDL`)).text();
    const contract = loadContract();
    expect(diffContract(contract, text)).toEqual([]);
    const changed = structuredClone(contract);
    changed.operations.ChargesAllByLedgerID!.params[4]!.name = "iLedgerID";
    changed.operations.NotAnOperation = { ...changed.operations.SiteInformation! };
    const problems = diffContract(changed, text);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^ChargesAllByLedgerID:\n {4}contract: .*iLedgerID:s:string\n {4}WSDL: {5}.*ledgerId:s:string$/);
    expect(problems[1]).toBe("NotAnOperation: not in the WSDL");
  });
});
