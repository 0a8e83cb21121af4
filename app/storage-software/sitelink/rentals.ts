/**
 * Rentals at a SiteLink location (study §3.3): SiteLink's quote, the move-in with its journal and
 * reconciliation (./move-in.ts), the move-in record the confirmation reads (our lease record, written
 * when SiteLink said yes), and the email check. Holds are ./holds.ts; reservations ./reservations.ts.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "~/db/client.server";
import { units, unitTypes } from "~/db/schema";
import { monthlyRateFor } from "~/domain/site/rates";
import { getPaymentGateway } from "~/platform/payments/gateway.server";
import type { LocationRef, MoveInQuote, Rentals } from "../port";
import { StorageValidationError, UnitUnavailableError } from "../errors";
import { sharedRentals } from "../shared/rentals";
import type { SiteLinkCall } from "./client";
import { rowsOf } from "./dataset";
import { okRead } from "./errors";
import { createJournal } from "./journal";
import { decimalToCents, inSiteWording, withPromotion } from "./quote";
import { isWithinPromotionDates, promotionOn, type PlanReading } from "~/domain/rental/promotion";
import { readDiscountPlans } from "./discount-plans";
import { promotionColumnsOf } from "../shared/promotion";
import { createSiteLinkMoveIn, siteLinkQuote, type MoveInGateway } from "./move-in";
import { autopayWantedAtMoveIn, tenantsWeCreated } from "./move-in-attempts";
import { searchTenantsByEmail } from "./tenant-records";
import { channelTypeAt, settleAfterMsFor, type SiteLinkSettings } from "./settings";

interface SiteLinkRentalsDeps {
  db: Database;
  location: LocationRef;
  call: SiteLinkCall;
  settings: SiteLinkSettings;
  /** Our payment gateway; the app's when not given (option B charges with it). */
  gateway?: MoveInGateway;
  /** How long an unanswered move-in stays "confirming" before a missing ledger means it did nothing. */
  settleAfterMs?: number;
  /** The clock (the adapter's). */
  now?: () => Date;
}

type SiteLinkRentals = Pick<Rentals, "quoteMoveIn" | "moveIn" | "confirmMoveIn" | "getMoveIn" | "isEmailRegistered">;

export function siteLinkRentals(deps: SiteLinkRentalsDeps): SiteLinkRentals {
  const { db, location, call, settings } = deps;
  const local = sharedRentals(db, location);
  const rentalSettings = async () => ({
    charges: settings.cardChargedBy,
    cardTypeIds: settings.cardTypeIds,
    payMethodIds: settings.payMethodIds,
    billingFrequency: settings.billingFrequency,
    channelType: await channelTypeAt(db, location.id),
    testMode: settings.testMode,
    settleAfterMs: deps.settleAfterMs ?? settleAfterMsFor(settings),
  });
  const moveIns = async () =>
    createSiteLinkMoveIn({
      db,
      location,
      call,
      journal: createJournal(db, location.id),
      settings: await rentalSettings(),
      gateway: deps.gateway ?? getPaymentGateway(location),
    });

  return {
    async quoteMoveIn(input): Promise<MoveInQuote> {
      if (!/^\d{1,9}$/.test(input.unitTypeId)) throw new UnitUnavailableError("No such unit type at this location");
      const [type] = await db
        .select({
          id: unitTypes.id,
          standardRate: unitTypes.standardRate,
          webRate: unitTypes.webRate,
        })
        .from(unitTypes)
        .where(and(eq(unitTypes.id, Number(input.unitTypeId)), eq(unitTypes.locationId, location.id)));
      if (!type) throw new UnitUnavailableError("No such unit type at this location");
      // SiteLink quotes a unit, not a type: a free unit of the type (the one a rental would hold first).
      const [unit] = await db
        .select({ externalId: units.externalId })
        .from(units)
        .where(and(eq(units.unitTypeId, type.id), eq(units.locationId, location.id), sql`${units.externalId} is not null`))
        .orderBy(sql`(${units.status} = 'available') desc`, asc(units.name))
        .limit(1);
      if (!unit?.externalId) throw new UnitUnavailableError("No unit of this type at this location");
      const rs = await rentalSettings();
      const plans = input.insurancePlanId ? await listPlans() : [];
      const plan = input.insurancePlanId ? plans.find((p) => p.id === input.insurancePlanId) : null;
      if (input.insurancePlanId && !plan)
        throw new StorageValidationError("Choose one of the protection plans.", { insurance: ["Choose one of the protection plans."] });
      const premium = plan?.premium ?? 0;
      // The unit type's promotion on the move-in date: one of the site's discount plans, which SiteLink
      // applies (decision 601), as SiteLink lists it now (decision 673: a plan changed since the promotion
      // was published is worded as it is; one removed or no longer worded for certain is not sent).
      const columns = await promotionColumnsOf(db, location.id, type.id);
      let discountPlan: PlanReading | null = null;
      if (columns.promotionKind === "plan" && columns.promotionPlanId !== null && isWithinPromotionDates(columns, input.moveInDate)) {
        const listed = (await readDiscountPlans({ db, locationId: location.id, call, now: (deps.now ?? (() => new Date()))() }, input.moveInDate)).find((p) => p.id === columns.promotionPlanId);
        discountPlan = listed ? { name: listed.name, listed: true, terms: listed.terms, notOffered: listed.notOffered } : null;
      }
      const promotion = promotionOn(columns, input.moveInDate, "sitelink", discountPlan);
      // ChannelType 1 is the location's web-rates flag (channelTypeAt): the rate SiteLink charges is the one the pages show.
      const monthlyRate = monthlyRateFor(type, rs.channelType === 1);
      const quote = await siteLinkQuote(call, rs, {
        siteLinkUnitId: unit.externalId,
        moveInDate: input.moveInDate,
        insuranceCoverageId: input.insurancePlanId,
        insurancePlanId: input.insurancePlanId,
        insurancePremium: premium,
        standardRate: type.standardRate,
        monthlyRate,
        concessionPlanId: promotion?.planId ?? null,
      });
      // The review step, the lease and the receipt word rent and protection as local move-ins do (decision 202).
      const worded = inSiteWording(quote, plan?.coverage ?? null);
      return promotion ? withPromotion(worded, promotion, monthlyRate) : worded;
    },

    async moveIn(input) {
      return (await moveIns()).moveIn(input);
    },

    async confirmMoveIn(input) {
      return (await moveIns()).confirmMoveIn(input);
    },

    // The confirmation reads our lease record of the move-in (SiteLink has nowhere for the signed lease).
    async getMoveIn(leaseId) {
      const record = await local.getMoveIn(leaseId);
      if (!record || record.autopayEnabled) return record;
      return { ...record, autopayNotSetUp: await autopayWantedAtMoveIn(db, location.id, leaseId) };
    },

    async isEmailRegistered(email) {
      if (await local.isEmailRegistered(email)) return true;
      const ours = await tenantsWeCreated(db, location.id);
      return (await searchTenantsByEmail(call, email)).some((r) => !ours.has(r.TenantID ?? ""));
    },
  };

  async function listPlans() {
    const answer = okRead(await call("InsuranceCoverageRetrieve_V2", {}), "InsuranceCoverageRetrieve_V2");
    return rowsOf(answer, "Table").map((r) => ({
      id: String(r.InsurCoverageID ?? ""),
      premium: decimalToCents(r.dcPremium),
      coverage: decimalToCents(r.dcCoverage),
    }));
  }
}
