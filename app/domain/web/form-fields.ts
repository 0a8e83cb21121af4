/** Names of the hidden fields every public form carries. */
export const CSRF_FIELD_NAME = "csrf";
export const HONEYPOT_FIELD_NAME = "website_url";

/** True when the honeypot field was filled in (a bot). */
export function isHoneypotFilled(formData: FormData): boolean {
  const v = formData.get(HONEYPOT_FIELD_NAME);
  return typeof v === "string" && v.trim() !== "";
}
