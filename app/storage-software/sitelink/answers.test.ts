import { describe, expect, it } from "vitest";
import { ANSWER_RULES, describeAnswerRule, readAnswer, tenantIdFromLogin, type RuledOperation } from "./answers";
import type { SoapAnswer } from "./dataset";

const rt = (code: number | null, extra: Record<string, string> = {}, msg = ""): SoapAnswer => ({
  tables: { RT: [{ ...(code === null ? {} : { Ret_Code: String(code) }), Ret_Msg: msg, ...extra }] },
  retCode: code,
  retMsg: msg,
});

describe("readAnswer: one rule per operation", () => {
  it("TenantNewDetailed_v3: Ret_Code 1 with the id in RT.TenantID (never Ret_Code as the id)", () => {
    expect(readAnswer("TenantNewDetailed_v3", rt(1, { TenantID: "1111172", AccessCode: "3506685952" }))).toEqual({ kind: "ok", id: "1111172" });
    // 1 without the id column: not the tenant "1"; it is looked for.
    expect(readAnswer("TenantNewDetailed_v3", rt(1)).kind).toBe("unclear");
    expect(readAnswer("TenantNewDetailed_v3", rt(-2, {}, "duplicate gate code"))).toMatchObject({ kind: "refused", code: -2 });
    expect(readAnswer("TenantNewDetailed_v3", rt(-1)).kind).toBe("unclear");
  });

  it("MoveIn and ReservationNew: the id in Ret_Code; 0 and -1 may have saved", () => {
    expect(readAnswer("MoveInWithDiscount_v7", rt(592852))).toEqual({ kind: "ok", id: "592852" });
    expect(readAnswer("MoveInWithDiscount_v7", rt(-2)).kind).toBe("refused");
    expect(readAnswer("MoveInWithDiscount_v7", rt(-1)).kind).toBe("unclear");
    expect(readAnswer("MoveInWithDiscount_v7", rt(0)).kind).toBe("unclear");
    expect(readAnswer("ReservationNewWithSource_v5", rt(850665, {}, "4242"))).toEqual({ kind: "ok", id: "850665" });
  });

  it("ReservationUpdate_v4: 0 is success (LSETUP), a positive code too", () => {
    expect(readAnswer("ReservationUpdate_v4", rt(0))).toEqual({ kind: "ok", id: null });
    expect(readAnswer("ReservationUpdate_v4", rt(312)).kind).toBe("ok");
    expect(readAnswer("ReservationUpdate_v4", rt(-95)).kind).toBe("refused");
  });

  it.each(["ScheduleMoveOut", "TenantUpdate_v3", "PaymentSimpleWithSource", "PaymentSimpleCheckWithSource"] as const)(
    "%s: success code in no source; a positive id is success, 0 is read back (never a refusal)",
    (op) => {
      expect(readAnswer(op, rt(9001))).toEqual({ kind: "ok", id: "9001" });
      expect(readAnswer(op, rt(0)).kind).toBe("unclear");
      expect(readAnswer(op, rt(null)).kind).toBe("unclear");
      expect(readAnswer(op, rt(-1)).kind).toBe("unclear");
      expect(readAnswer(op, rt(-100)).kind).toBe("refused");
    },
  );

  it("every rule names its evidence source in answers.ts", async () => {
    const { readFileSync } = await import("node:fs");
    const text = readFileSync(new URL("./answers.ts", import.meta.url), "utf8");
    for (const op of Object.keys(ANSWER_RULES) as RuledOperation[]) {
      const line = text.split("\n").findIndex((l) => l.trimStart().startsWith(`${op}:`));
      expect(line, op).toBeGreaterThan(0);
      expect(text.split("\n")[line - 1], `${op} has a comment above it`).toMatch(/^\s*\/\//);
    }
  });
});

describe("tenantIdFromLogin", () => {
  it("takes the RT row with an active ledger, not the first one", () => {
    const answer: SoapAnswer = {
      tables: {
        RT: [
          { Ret_Code: "5001", Ret_Msg: "Success", bHasActiveLedger: "false", sWebPassword: "x" },
          { Ret_Code: "5007", Ret_Msg: "Success", bHasActiveLedger: "true", sWebPassword: "x" },
        ],
      },
      retCode: 5001,
      retMsg: "Success",
    };
    expect(tenantIdFromLogin(answer)).toBe("5007");
  });

  it("one record without a ledger is still the tenant; a failed login is null", () => {
    expect(tenantIdFromLogin(rt(5001, { bHasActiveLedger: "false" }))).toBe("5001");
    expect(tenantIdFromLogin(rt(-1, {}, "Invalid login"))).toBeNull();
  });
});

describe("describeAnswerRule: the rule in words (sitelink:verify's report)", () => {
  it("says what success is and that -1 is read back, for every operation with a rule", () => {
    for (const op of Object.keys(ANSWER_RULES) as RuledOperation[]) expect(describeAnswerRule(op), op).toMatch(/^success.*-1: read back/);
    expect(describeAnswerRule("TenantNewDetailed_v3")).toContain("Ret_Code 1 with the id in RT.TenantID");
    expect(describeAnswerRule("ReservationUpdate_v4")).toContain("Ret_Code >= 0 (0 included)");
  });
});
