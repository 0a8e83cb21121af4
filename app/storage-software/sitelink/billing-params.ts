/**
 * SiteLink billing parameters shared by the move-in (autopay under option A) and the portal's autopay:
 * the card expiry as SiteLink takes it and TenantBillingInfoUpdate_v2's parameters.
 */

/** Last day of the expiry month at 23:59:59 (MC-H). */
export function expiryParam(month: number, year: number): string {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${String(month).padStart(2, "0")}-${String(last).padStart(2, "0")}T23:59:59`;
}

/**
 * TenantBillingInfoUpdate_v2's parameters: the ledger's autopay card (iAutoBillType 1 on, 0 off), with
 * the site's card type id for the brand; no ACH.
 */
export function billingInfoParams(
  settings: { cardTypeIds: Partial<Record<string, number>> },
  ledgerId: string,
  card: { brand: string; number: string; expMonth: number; expYear: number; name: string; street: string; zip: string; autoBillType: number },
) {
  return {
    iLedgerID: Number(ledgerId),
    iCreditCardTypeID: settings.cardTypeIds[card.brand] ?? 0,
    sCreditCardNum: card.number,
    dCredtiCardExpir: expiryParam(card.expMonth, card.expYear),
    sCreditCardHolderName: card.name,
    sCreditCardStreet: card.street,
    sCreditCardZip: card.zip,
    iAutoBillType: card.autoBillType,
    sACH_CheckWriterAcctNum: "",
    sACH_ABA_RoutingNum: "",
    sACH_Check_SavingsCode: "",
    iDaysAfterDue: 0,
  };
}
