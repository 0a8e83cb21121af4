import { z } from "zod";

/**
 * The staff password rule (issue 36, docs/decisions/460-staff-passwords.md): 12 to 128 characters,
 * not a common password (checked by the action with `commonPasswordError`, server side only), and not
 * built on the staff member's own name, e-mail address or the company's name. Staff can export every
 * tenant's data and refund money (ASVS 2.1.1, 2.1.2); the tenants keep the spec's 6 to 20
 * (app/domain/shared/tenant-form.ts).
 */
export const STAFF_PASSWORD_MIN = 12;
export const STAFF_PASSWORD_MAX = 128;
export const STAFF_PASSWORD_HINT = `${STAFF_PASSWORD_MIN} to ${STAFF_PASSWORD_MAX} characters, not a common password, and not your name or e-mail address. Three or four unrelated words are easy to remember.`;

/** The length rule with its messages, on a string field (the form's schema: the browser checks it too). */
export const staffPasswordField = (what = "password") =>
  z
    .string({ error: `Choose a ${what}.` })
    .min(1, `Choose a ${what}.`)
    .min(STAFF_PASSWORD_MIN, `Your ${what} must be at least ${STAFF_PASSWORD_MIN} characters.`)
    .max(STAFF_PASSWORD_MAX, `Your ${what} can be at most ${STAFF_PASSWORD_MAX} characters.`);

export const PERSONAL_PASSWORD_MESSAGE = "Your password must not contain your name, your e-mail address or the company's name: those are the first things an attacker tries.";

/** Letters and digits only, lowercase: "Jo-Ann.Smith" and "joann smith" read the same. */
const folded = (s: string) => s.normalize("NFKD").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/**
 * The words a staff member's password must not contain: their whole name and e-mail local part (three
 * characters or more), each word of their name and of the company's name and each part of the local
 * part (four or more, so that "Ann" does not refuse "channel"), and the e-mail's domain name without
 * its ending (gatehousestorage in gatehousestorage.example).
 */
function personalWords(person: { name?: string | null; email?: string | null; companyName?: string | null }): string[] {
  const words = new Set<string>();
  const add = (w: string | undefined, min = 4) => {
    const f = folded(w ?? "");
    if (f.length >= min) words.add(f);
  };
  for (const part of (person.name ?? "").split(/\s+/)) add(part);
  add(person.name ?? "", 3);
  for (const part of (person.companyName ?? "").split(/\s+/)) add(part);
  const email = (person.email ?? "").trim().toLowerCase();
  const at = email.lastIndexOf("@");
  if (at > 0) {
    const local = email.slice(0, at);
    add(local, 3);
    for (const part of local.split(/[.\-_+]+/)) add(part);
    const domain = email.slice(at + 1).split(".");
    if (domain.length > 1) add(domain.slice(0, -1).join(""));
  }
  return [...words];
}

/** The message for the password field when it contains one of `personalWords`, else null. */
export function personalPasswordError(password: string | null | undefined, person: { name?: string | null; email?: string | null; companyName?: string | null }): string | null {
  if (!password) return null;
  const p = folded(password);
  return personalWords(person).some((w) => p.includes(w)) ? PERSONAL_PASSWORD_MESSAGE : null;
}

/** The length and personal-data rules at once (the service's own check; the common list is the caller's). */
export function staffPasswordProblem(password: string, person: { name?: string | null; email?: string | null; companyName?: string | null }): string | null {
  const length = z.object({ password: staffPasswordField() }).safeParse({ password });
  if (!length.success) return length.error.issues[0]!.message;
  return personalPasswordError(password, person);
}
