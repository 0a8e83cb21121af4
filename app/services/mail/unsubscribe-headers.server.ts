/**
 * The headers of one-click unsubscription (RFC 2369 `List-Unsubscribe`, RFC 8058
 * `List-Unsubscribe-Post`; decision 612): a mail client shows "Unsubscribe" and, when the user
 * chooses it, POSTs `List-Unsubscribe=One-Click` to the link, without cookies and without a page. The
 * link itself identifies the address and the list (a signed token), so the POST needs no CSRF token.
 */
export function oneClickUnsubscribeHeaders(url: string): Record<string, string> {
  return { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
}

/** Whether a POSTed form is RFC 8058's one-click request (`List-Unsubscribe=One-Click`). */
export function isOneClickUnsubscribe(form: FormData): boolean {
  return form.get("List-Unsubscribe") === "One-Click";
}
