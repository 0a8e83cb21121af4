/** Ten-digit US phone number from any common way of typing it, or null. A leading country code 1 is dropped. */
export function phoneDigits(value: string): string | null {
  const digits = value.replace(/\D/g, "");
  const ten = digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits;
  return ten.length === 10 ? ten : null;
}

export type UsPhoneProblem = "digits" | "area_code" | "exchange";

/**
 * Why a typed number cannot be a US (NANP) number, or null when it can: ten digits (a leading 1 is
 * dropped), the area code and the exchange (digits 4–6) starting with 2–9.
 */
export function usPhoneProblem(value: string): UsPhoneProblem | null {
  const d = phoneDigits(value);
  if (!d) return "digits";
  if (!/^[2-9]/.test(d)) return "area_code";
  if (!/^[2-9]/.test(d.slice(3))) return "exchange";
  return null;
}

/** "(###) ###-####", the mask of spec §5. Returns the input unchanged when it is not ten digits. */
export function formatPhone(value: string): string {
  const d = phoneDigits(value);
  return d ? `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}` : value;
}

/** A tel: / sms: URL in E.164 form, e.g. "tel:+19105550134". */
export function phoneHref(value: string, scheme: "tel" | "sms" = "tel"): string {
  const d = phoneDigits(value);
  return d ? `${scheme}:+1${d}` : `${scheme}:${value.replace(/[^\d+]/g, "")}`;
}

/** Formats partial input as the visitor types: "910" → "(910", "9105550" → "(910) 555-0". */
export function maskPhoneAsTyped(value: string): string {
  const d = value.replace(/\D/g, "").replace(/^1(?=\d{10})/, "").slice(0, 10);
  if (d.length === 0) return "";
  if (d.length < 4) return `(${d}`;
  if (d.length < 7) return `(${d.slice(0, 3)}) ${d.slice(3)}`;
  return `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`;
}
