import { sql, type SQL } from "drizzle-orm";

/**
 * A payment's refunds as its ledger shows them (decisions 280, 509): one reversing payment line per
 * refund, its posting key `refund:{payment id}` (the first, or only, refund) or
 * `refund:{payment id}:{cents refunded before it}` (a later partial one). Written against the
 * `payments` table of the enclosing query (aliased by hand: inside a selected expression Drizzle
 * writes columns without their table).
 */
const refundLineOf = sql`r.lease_id = "payments"."lease_id" and (r.posting_key = 'refund:' || "payments"."id" or r.posting_key like 'refund:' || "payments"."id" || ':%')`;

/** Each refund of the payment, oldest first: its day (the line's date) and cents. */
export const refundsOfPayment = sql<unknown>`(select coalesce(json_agg(json_build_object('day', r.entry_date::text, 'amount', -r.amount) order by r.id), '[]'::json)
  from ledger_entries r where ${refundLineOf})`;

/** Whether one of the payment's refunds was made on a day `within` says (a condition over the refund's day). */
export const refundedWithin = (within: (day: SQL<string>) => SQL | undefined): SQL | undefined => {
  const condition = within(sql<string>`r.entry_date::text`);
  return condition ? sql`exists (select 1 from ledger_entries r where ${refundLineOf} and ${condition})` : undefined;
};

export interface RefundOfPayment {
  day: string;
  amount: number;
}

/** The refunds as the driver gives them (parsed JSON, or its text). */
export function readRefunds(value: unknown): RefundOfPayment[] {
  const list = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(list) ? list.map((r: { day: string; amount: number | string }) => ({ day: String(r.day), amount: Number(r.amount) })) : [];
}
