/**
 * A small in-memory stand-in for the SiteLink operations the rentals part sends, at the level of the
 * adapter's `SiteLinkCall` (parsed tables + RT). It answers as the study says SiteLink does (codes,
 * table names, atomic MoveIn) and can fail the way the network does: `commit_then_hang` (apply, then
 * no answer) and `drop_before` (no answer, nothing applied). The wire-level tests use the simulator
 * (sitelink-simulator/); this one keeps the orchestration tests fast and independent of it.
 */
import { SoftwareUnreachableError } from "~/storage-software/errors";
import type { Row, SoapAnswer } from "~/storage-software/sitelink/dataset";
import type { SiteLinkCall } from "~/storage-software/sitelink/client";
import type { SiteLinkParams } from "~/storage-software/sitelink/envelope";

type Fault = "commit_then_hang" | "drop_before";

export interface FakeSite {
  call: SiteLinkCall;
  units: Map<string, { name: string; bRented: boolean; bRentable: boolean }>;
  tenants: Map<string, { email: string; note: string; accessCode: string }>;
  ledgers: Array<{
    LedgerID: string;
    TenantID: string;
    UnitID: string;
    sAccessCode: string;
    sUnitName: string;
  }>;
  payments: Array<{
    Receipt: string;
    LedgerID: string;
    amount: string;
    method: number;
  }>;
  log: Array<{ op: string; params: SiteLinkParams }>;
  /** Fault for the next call(s) of an operation. */
  fault(op: string, fault: Fault, times?: number): void;
  /** Cost rows answer: rent and an admin fee (cents as SiteLink decimals). */
  cost: { rent: string; rentTax: string; fee: string; feeTax: string };
  credentialsOk: boolean;
  count(op: string): number;
}

const answer = (tables: Record<string, Row[]>, retCode: number | null = null, retMsg = ""): SoapAnswer => ({ tables, retCode, retMsg });
const rt = (code: number, msg = "", extra: Row = {}) => answer({ RT: [{ Ret_Code: String(code), Ret_Msg: msg, ...extra }] }, code, msg);
const add = (a: string, b: string) => ((Math.round(Number(a) * 100) + Math.round(Number(b) * 100)) / 100).toFixed(4);

export function createFakeSite(unitIds: Array<{ id: string; name: string }>): FakeSite {
  let nextId = 1000;
  const faults = new Map<string, { fault: Fault; times: number }>();
  const site: FakeSite = {
    units: new Map(unitIds.map((u) => [u.id, { name: u.name, bRented: false, bRentable: true }])),
    tenants: new Map(),
    ledgers: [],
    payments: [],
    log: [],
    cost: {
      rent: "45.0000",
      rentTax: "0.0000",
      fee: "20.00",
      feeTax: "1.3500",
    },
    credentialsOk: true,
    fault(op, fault, times = 1) {
      faults.set(op, { fault, times });
    },
    count(op) {
      return site.log.filter((l) => l.op === op).length;
    },
    call: async (op, params) => {
      site.log.push({ op, params });
      if (!site.credentialsOk) throw new SoftwareUnreachableError("SiteLink refused the credentials (RT -1)");
      const f = faults.get(op);
      if (f && f.times > 0) {
        f.times -= 1;
        if (f.fault === "drop_before") throw new SoftwareUnreachableError(`${op}: the connection closed without an answer`);
        const result = run(op, params);
        void result;
        throw new SoftwareUnreachableError(`${op}: timed out after commit`);
      }
      return run(op, params);
    },
  };

  function run(op: string, p: SiteLinkParams): SoapAnswer {
    switch (op) {
      case "UnitsInformationByUnitID": {
        const u = site.units.get(String(p.UnitID));
        if (!u) return answer({ Table: [] }, 0);
        return answer({
          Table: [
            {
              Ret_Code: "1",
              UnitID: String(p.UnitID),
              sUnitName: u.name,
              bRented: String(u.bRented),
              bRentable: String(u.bRentable),
              bWaitingListReserved: "false",
            },
          ],
        });
      }
      case "MoveInCostRetrieveWithDiscount_v4": {
        if (!site.units.has(String(p.iUnitID))) return rt(-25, "Invalid UnitID");
        const d = String(p.dMoveInDate).slice(0, 10);
        return answer({
          Table: [
            {
              ChargeDescription: "Rent",
              ChargeAmount: site.cost.rent,
              TaxAmount: site.cost.rentTax,
              dcDiscount: "0",
              dcTotal: add(site.cost.rent, site.cost.rentTax),
              bMoveInRequired: "true",
              StartDate: `${d}T00:00:00`,
              EndDate: "2026-12-21T00:00:00",
            },
            {
              ChargeDescription: "Administrative Fee",
              ChargeAmount: site.cost.fee,
              TaxAmount: site.cost.feeTax,
              dcDiscount: "0",
              dcTotal: add(site.cost.fee, site.cost.feeTax),
              bMoveInRequired: "true",
              StartDate: `${d}T00:00:00`,
              EndDate: `${d}T00:00:00`,
            },
            {
              ChargeDescription: "Security Deposit",
              ChargeAmount: "0",
              TaxAmount: "0",
              dcDiscount: "0",
              dcTotal: "0",
              bMoveInRequired: "false",
            },
          ],
        });
      }
      case "TenantSearchDetailed": {
        const email = String(p.sEmailAddress ?? "").toLowerCase();
        const rows = [...site.tenants.entries()]
          .filter(([, t]) => email && t.email.includes(email))
          .map(([id, t]) => ({
            TenantID: id,
            sEmail: t.email,
            sTenNote: t.note,
            sAccessCode: t.accessCode,
          }));
        return answer({ Table: rows });
      }
      case "TenantInfoByTenantID": {
        const t = site.tenants.get(String(p.iTenantID));
        return t
          ? answer({
              Table: [
                {
                  TenantID: String(p.iTenantID),
                  sEmail: t.email,
                  sTenNote: t.note,
                  sAccessCode: t.accessCode,
                },
              ],
            })
          : rt(-1, "Invalid TenantID");
      }
      case "TenantNewDetailed_v3": {
        const id = String(++nextId);
        const accessCode = String(400000 + nextId);
        site.tenants.set(id, {
          email: String(p.sEmail),
          note: String(p.sTenNote ?? ""),
          accessCode,
        });
        // As on LSETUP: Ret_Code 1, the id in TenantID (evidence §4.8).
        return rt(1, "", { TenantID: id, AccessCode: accessCode });
      }
      case "TenantUpdateMilitary":
      case "TenantNoteInsert_v2":
        return rt(1);
      case "MoveInWithDiscount_v7": {
        const t = site.tenants.get(String(p.TenantID));
        if (!t) return rt(-95, "Invalid TenantID");
        const u = site.units.get(String(p.UnitID));
        if (!u) return rt(-25, "Invalid UnitID");
        if (u.bRented || !u.bRentable) return rt(-2, "Unit ID is not available");
        const required = add(add(site.cost.rent, site.cost.rentTax), add(site.cost.fee, site.cost.feeTax));
        // iPayMethod as on LSETUP (evidence §4.9): 0 none (-2), 1 card, 2 cash.
        if (Number(p.iPayMethod) === 0) return rt(-2, "Payment amount must be greater than zero");
        if (Number(p.iPayMethod) === 1) {
          const number = String(p.sCreditCardNumber ?? "");
          if (number === "4000000000000002" || number === "4000000000009995") return rt(-100, "Credit Card not being authorized");
          if (!/^\d{13,19}$/.test(number)) return rt(-14, "Credit Card number is invalid");
        }
        if (Number(p.dcPaymentAmount).toFixed(2) !== Number(required).toFixed(2))
          return rt(-11, `Payment amount does not match the required payment of $${Number(required).toFixed(2)}`);
        u.bRented = true;
        const ledgerId = String(++nextId);
        site.ledgers.push({
          LedgerID: ledgerId,
          TenantID: String(p.TenantID),
          UnitID: String(p.UnitID),
          sAccessCode: t.accessCode,
          sUnitName: u.name,
        });
        site.payments.push({
          Receipt: String(++nextId),
          LedgerID: ledgerId,
          amount: String(p.dcPaymentAmount),
          method: Number(p.iPayMethod),
        });
        return rt(Number(ledgerId), "", { iLeaseNum: "1" });
      }
      case "LedgersByTenantID_v3":
        return answer({
          Ledgers: site.ledgers
            .filter((l) => l.TenantID === String(p.sTenantID))
            .map((l) => ({
              ...l,
              dPaidThru: "2026-12-21T00:00:00",
              iLeaseNum: "1",
            })),
        });
      case "PaymentsByLedgerID":
        return answer({
          PmtHistory: site.payments
            .filter((x) => x.LedgerID === String(p.sLedgerID))
            .map((x) => ({
              Receipt: x.Receipt,
              LedgerID: x.LedgerID,
              Payment: x.amount,
            })),
        });
      case "TenantBillingInfoUpdate_v2":
        return rt(Number(p.iLedgerID));
      default:
        throw new Error(`fake SiteLink: ${op} not implemented`);
    }
  }
  return site;
}
