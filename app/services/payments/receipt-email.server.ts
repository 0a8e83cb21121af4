import { formatCents } from "~/domain/shared/money";
import { formatDate } from "~/domain/shared/calendar";
import type { Payment, Receipt } from "~/storage-software/port";
import type { OutgoingEmail } from "../mail/outbox.server";

/** The receipt e-mail of a payment: sent once after the payment, and again from the back office (issue 23). */
export function receiptEmail(input: {
  tenant: { email: string; firstName: string };
  receipt: Pick<Receipt, "unitName" | "description" | "balance" | "paidThroughDate">;
  payment: Pick<Payment, "id" | "amount" | "cardBrand" | "cardLast4" | "authReference">;
  origin: string;
  siteName: string;
}): OutgoingEmail {
  const { tenant, receipt, payment } = input;
  return {
    to: tenant.email,
    subject: `Payment receipt: ${formatCents(payment.amount)}`,
    text: [
      `Hello ${tenant.firstName},`,
      "",
      `Thank you for your payment of ${formatCents(payment.amount)} for unit ${receipt.unitName}.`,
      `${receipt.description}`,
      `Card: ${payment.cardBrand} ending ${payment.cardLast4}. Authorisation: ${payment.authReference ?? ""}.`,
      `Balance now: ${formatCents(Math.max(0, receipt.balance))}. Paid through: ${formatDate(receipt.paidThroughDate)}.`,
      "",
      `Receipt: ${input.origin}/customer-portal/receipts/${payment.id}`,
      "",
      input.siteName,
    ].join("\n"),
  };
}

