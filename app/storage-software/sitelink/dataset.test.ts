import { describe, expect, it } from "vitest";
import { DataSetError, parseAnswer, rowsOf } from "./dataset";
import * as fx from "./fixtures/answers";

describe("parseAnswer", () => {
  it("reads rows as strings, keeps '95' and '117.6500' as sent, omits null columns, decodes entities", () => {
    const a = parseAnswer(fx.priceListTwoRows, "UnitTypePriceList_v2");
    const rows = rowsOf(a, "Table");
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({ UnitTypeID: "277", sTypeName: "Drive-Up", dcWidth: "10.0000", dcLength: "20.0000", dcStdRate: "117.6500", dcWebRate: "95", bClimate: "false" });
    expect(rows[1]!.sTypeName).toBe("Climate & Co");
    expect("dcWebRate" in rows[1]!).toBe(false);
    expect(a.retCode).toBeNull();
  });

  it("a single row is still a list", () => {
    const rows = rowsOf(parseAnswer(fx.priceListOneRow, "UnitTypePriceList_v2"), "Table");
    expect(rows).toEqual([{ UnitTypeID: "277", sTypeName: "Drive-Up", dcStdRate: "117.6500" }]);
  });

  it("an empty diffgram is no rows", () => {
    const a = parseAnswer(fx.emptyDiffgram, "InsuranceCoverageRetrieve_V3");
    expect(a.tables).toEqual({});
    expect(rowsOf(a, "Table")).toEqual([]);
  });

  it("reads the RT status table", () => {
    const a = parseAnswer(fx.rtError, "SiteInformation");
    expect(a.retCode).toBe(-1);
    expect(a.retMsg).toMatch(/Invalid corporate code/);
    const ok = parseAnswer(fx.moveInOk, "MoveInWithDiscount_v7");
    expect(ok.retCode).toBe(592852);
    expect(ok.tables.RT![0]!.iLeaseNum).toBe("1");
  });

  it("reads several tables of one answer (units and the poll marker)", () => {
    const a = parseAnswer(fx.unitsWithTable1, "UnitsInformation_v3");
    expect(rowsOf(a, "Table")[0]!.UnitID).toBe("5001");
    expect(rowsOf(a, "Table1")[0]!.lngLastTimePolled).toBe("638682912000000000");
  });

  it("a SOAP Fault throws with its code", () => {
    try {
      parseAnswer(fx.soapFault, "SiteInformation");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DataSetError);
      expect((error as DataSetError).kind).toBe("fault");
      expect((error as DataSetError).faultCode).toBe("soap:Client");
      expect((error as Error).message).toMatch(/unable to read request/);
    }
  });

  it.each([
    ["HTML", fx.iisError],
    ["truncated XML", fx.priceListTwoRows.slice(0, 400)],
    ["an answer for another operation", fx.moveInOk],
    ["an empty body", ""],
    ["plain text", "Service Unavailable"],
  ])("%s throws a malformed DataSetError", (_what, xml) => {
    expect(() => parseAnswer(xml, "UnitTypePriceList_v2")).toThrow(DataSetError);
    try {
      parseAnswer(xml, "UnitTypePriceList_v2");
    } catch (error) {
      expect((error as DataSetError).kind).toBe("malformed");
    }
  });
});
