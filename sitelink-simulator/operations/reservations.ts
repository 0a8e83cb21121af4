/**
 * Reservations (the waiting list): a reservation flags its unit bWaitingListReserved, but the unit
 * is still listed as available (S3 §7.112) and can still be moved in. iStatus / iWaitingStatus:
 * 0 open, 1 converted to a move-in, 2 cancelled (decision 106). A lapsed dExpires clears the flag.
 */
import { bool, dateTime, idFromString, int, rt, str } from "../helpers";
import type { OpContext, OpHandler } from "../simulator";
import type { ReservationRecord, SiteRecord } from "../state";
import { decimalToCents, money4 } from "../values";
import type { Row } from "../wire";

function site(ctx: OpContext): SiteRecord {
  if (!ctx.site) throw new Error("site required");
  return ctx.site;
}

function wall(v: ReturnType<typeof dateTime>): string | null {
  return v && v.date > "0001-01-01" ? `${v.date}T${v.time}` : null;
}

const ReservationNewWithSource_v5: OpHandler = (ctx) => {
  const s = site(ctx);
  const p = ctx.params;
  const tenant = s.tenants.find((t) => t.TenantID === idFromString(p.sTenantID));
  if (!tenant) return [rt(-95, "Invalid TenantID")];
  const unit = s.units.find((u) => u.UnitID === idFromString(p.sUnitID) && !u.deleted);
  if (!unit) return [rt(-25, "Invalid UnitID")];
  const concessionId = ctx.present.has("ConcessionID") ? int(p.ConcessionID) : -999;
  if (concessionId !== -999 && concessionId !== 0 && !s.concessions.some((c) => c.ConcessionID === concessionId)) return [rt(-3, "Invalid ConcessionID")];
  const quoted = decimalToCents(str(p.dcQuotedRate));
  const needed = wall(dateTime(p.dNeeded));
  const expires = wall(dateTime(p.dExpires));
  if (quoted === null || !needed || !expires) return [rt(-2, "Error saving reservation")];
  s.seq.waiting += 1;
  ctx.sim.state.globalWaitingNum += 1;
  const r: ReservationRecord = {
    WaitingID: s.seq.waiting,
    iGlobalWaitingNum: ctx.sim.state.globalWaitingNum,
    TenantID: tenant.TenantID,
    UnitID: unit.UnitID,
    dNeeded: needed,
    dExpires: expires,
    dFollowup: wall(dateTime(p.dFollowUp)),
    dFollowupLast: null,
    bFollowup: false,
    iWaitingStatus: 0,
    dConverted: null,
    quotedRate: quoted,
    ConcessionID: concessionId,
    QTRentalTypeID: int(p.QTRentalTypeID),
    QTCancellationTypeID: 0,
    sCancellationReason: "",
    iInquiryType: int(p.iInquiryType),
    sComment: str(p.sComment),
    iSource: int(p.iSource),
    sSource: str(p.sSource),
    sTrackingCode: str(p.sTrackingCode),
    created: ctx.nowLocal,
    updated: ctx.nowLocal,
  };
  s.reservations.push(r);
  ctx.sim.sweep(s, ctx.nowLocal);
  return [rt(r.WaitingID, String(r.iGlobalWaitingNum))];
};

function reservationRow(ctx: OpContext, s: SiteRecord, r: ReservationRecord): Row {
  const t = s.tenants.find((x) => x.TenantID === r.TenantID);
  const u = s.units.find((x) => x.UnitID === r.UnitID);
  return {
    WaitingID: r.WaitingID,
    iGlobalWaitingNum: r.iGlobalWaitingNum,
    SiteID: s.SiteID,
    TenantID: r.TenantID,
    UnitID: r.UnitID,
    sUnitName: u?.sUnitName ?? null,
    sFName: (t?.fields.sFName as string) ?? null,
    sLName: (t?.fields.sLName as string) ?? null,
    sEmail: (t?.fields.sEmail as string) || null,
    sPhone: (t?.fields.sPhone as string) || null,
    dNeeded: ctx.sim.dt(s, r.dNeeded),
    dExpires: ctx.sim.dt(s, r.dExpires),
    dFollowup: ctx.sim.dt(s, r.dFollowup),
    dFollowupLast: ctx.sim.dt(s, r.dFollowupLast),
    bFollowup: r.bFollowup,
    iWaitingStatus: r.iWaitingStatus,
    dConverted_ToMoveIn: ctx.sim.dt(s, r.dConverted),
    dcRate_Quoted: money4(r.quotedRate),
    ConcessionID: r.ConcessionID,
    QTRentalTypeID: r.QTRentalTypeID,
    QTCancellationTypeID: r.QTCancellationTypeID,
    sCancellationReason: r.sCancellationReason || null,
    iInquiryType: r.iInquiryType,
    sComment: r.sComment || null,
    iSource: r.iSource,
    sSource: r.sSource || null,
    sTrackingCode: r.sTrackingCode || null,
    dCreated: ctx.sim.dt(s, r.created),
    dUpdated: ctx.sim.dt(s, r.updated),
  };
}

/** WaitingID > 0: that reservation; else iGlobalWaitingNum > 0: that one; else every reservation of the site. */
const ReservationList_v3: OpHandler = (ctx) => {
  const s = site(ctx);
  const waitingId = int(ctx.params.WaitingID);
  const global = int(ctx.params.iGlobalWaitingNum);
  const rows = s.reservations.filter((r) => (waitingId > 0 ? r.WaitingID === waitingId : global > 0 ? r.iGlobalWaitingNum === global : true));
  return [{ name: "Table", rows: rows.map((r) => reservationRow(ctx, s, r)) }];
};

/** Overwrites every field with what was sent (copy current values back, study §3.3). */
const ReservationUpdate_v4: OpHandler = (ctx) => {
  const s = site(ctx);
  const p = ctx.params;
  const r = s.reservations.find((x) => x.WaitingID === int(p.WaitingID));
  if (!r) return [rt(-1, "Invalid WaitingID")];
  if (idFromString(p.sTenantID) !== r.TenantID) return [rt(-95, "Invalid TenantID")];
  const unit = s.units.find((u) => u.UnitID === idFromString(p.sUnitID) && !u.deleted);
  if (!unit) return [rt(-25, "Invalid UnitID")];
  const status = int(p.iStatus);
  if (![0, 1, 2].includes(status)) return [rt(-1, "Invalid status")];
  const quoted = decimalToCents(str(p.dcQuotedRate));
  const needed = wall(dateTime(p.dNeeded));
  const expires = wall(dateTime(p.dExpires));
  if (quoted === null || !needed || !expires) return [rt(-2, "Error saving reservation")];
  Object.assign(r, {
    UnitID: unit.UnitID,
    dNeeded: needed,
    dExpires: expires,
    sComment: str(p.sComment),
    iWaitingStatus: status,
    bFollowup: bool(p.bFollowup),
    dFollowup: wall(dateTime(p.dFollowup)),
    dFollowupLast: wall(dateTime(p.dFollowupLast)),
    iInquiryType: int(p.iInquiryType),
    quotedRate: quoted,
    QTRentalTypeID: int(p.QTRentalTypeID),
    QTCancellationTypeID: int(p.QTCancellationTypeID),
    sCancellationReason: str(p.sCancellationReason),
    ConcessionID: ctx.present.has("ConcessionID") ? int(p.ConcessionID) : 0,
    updated: ctx.nowLocal,
  });
  ctx.sim.sweep(s, ctx.nowLocal);
  // LSETUP (LK yaml §4, evidence §4.7): Ret_Code "0" on success.
  return [rt(0, "")];
};

export const reservationOperations: Record<string, OpHandler> = {
  ReservationNewWithSource_v5,
  ReservationList_v3,
  ReservationUpdate_v4,
};
