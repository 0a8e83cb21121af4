/**
 * Rules for free text typed into forms (docs/decisions/061-control-characters-in-form-text.md). Shared by every form
 * schema, so the browser (Conform) and the server refuse the same characters with the same message.
 */

/** C0 controls except tab, line feed and carriage return; DEL; C1 controls. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
/** Any C0/C1 control, tab and line breaks included: single-line fields refuse them all. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const LINE_CONTROL_CHARS = /[\u0000-\u001F\u007F-\u009F]/;
/**
 * Bidirectional embedding, override and isolate characters (U+202A–U+202E, U+2066–U+2069), the
 * implicit marks (U+200E, U+200F, U+061C), zero-width and line/paragraph separators, and the BOM:
 * invisible in a name, and able to make one name read as another.
 */
const INVISIBLE_FORMAT_CHARS = /[\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/;

export const CONTROL_MESSAGE = "Remove the invisible control characters from this field.";
export const NAME_CHARS_MESSAGE = "Use letters, spaces and punctuation only (no control or text-direction characters).";

/** True when a single-line text value has no control or invisible formatting characters. */
export function isCleanLine(value: string): boolean {
  return !LINE_CONTROL_CHARS.test(value) && !INVISIBLE_FORMAT_CHARS.test(value);
}

/** True when multi-line text (a message) has no control characters other than tab and line breaks. */
export function isCleanText(value: string): boolean {
  return !CONTROL_CHARS.test(value) && !/[\u202A-\u202E\u2066-\u2069]/.test(value);
}
