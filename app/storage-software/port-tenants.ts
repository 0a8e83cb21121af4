/** Tenants part of the StorageSoftware port (issue 5): sign-in, ledgers, payments, autopay, move-out. See ./port.ts. */
import type { CardDetails } from "~/services/payment-gateway.server";

// ---------------------------------------------------------------- tenants and billing (issue 5)

export interface Payment {
  id: string;
  amount: number;
  status: "approved" | "declined";
  cardBrand: string;
  cardLast4: string;
  authReference: string | null;
  declineReason: string | null;
  createdAt: Date;
}

export type { CardDetails };


// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Tenants {}
