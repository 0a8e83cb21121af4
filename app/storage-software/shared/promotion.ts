/** A unit type's stored promotion (issue 40), read by both adapters' quotes. */
import { and, eq } from "drizzle-orm";
import type { Database, Transaction } from "~/db/client.server";
import { unitTypes } from "~/db/schema";
import type { PromotionColumns } from "~/domain/rental/promotion";

const NONE: PromotionColumns = {
  promotionKind: "none",
  promotionAmount: 0,
  promotionPercent: 0,
  promotionMonths: 1,
  promotionPlanId: null,
  promotionStartsOn: null,
  promotionEndsOn: null,
};

/** The promotion columns of a unit type of this location ("none" for an unknown type). */
export async function promotionColumnsOf(db: Database | Transaction, locationId: number, unitTypeId: number): Promise<PromotionColumns> {
  if (!Number.isInteger(unitTypeId)) return NONE;
  const [row] = await db
    .select({
      promotionKind: unitTypes.promotionKind,
      promotionAmount: unitTypes.promotionAmount,
      promotionPercent: unitTypes.promotionPercent,
      promotionMonths: unitTypes.promotionMonths,
      promotionPlanId: unitTypes.promotionPlanId,
      promotionStartsOn: unitTypes.promotionStartsOn,
      promotionEndsOn: unitTypes.promotionEndsOn,
    })
    .from(unitTypes)
    .where(and(eq(unitTypes.id, unitTypeId), eq(unitTypes.locationId, locationId)));
  return row ?? NONE;
}
