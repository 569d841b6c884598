/**
 * @module contracts/text
 * Free text that must say something (a name, a title, a reason): what the document states is
 * what the route checks, in any regex engine. Pure: zod only.
 */
import { z } from "zod";

/**
 * A character that `String.prototype.trim` keeps: anything but ECMAScript's white space and line
 * terminators, listed one by one (`\S` would not do: Python's `re`, which Schemathesis and other
 * clients read the document's `pattern` with, also counts U+001C–U+001F as space).
 */
export const NOT_BLANK =
  /[^\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;

/**
 * Text of 1–`max` characters as sent, at least one of them not white space; the value is kept
 * trimmed. Its document says both (`maxLength`, `pattern`), so a title of one form feed, which
 * a bare `minLength: 1` allows, is refused by the document as by the route.
 * @example nonBlankText(200).parse("  Deep merge ") // "Deep merge"
 */
export const nonBlankText = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(NOT_BLANK, "must hold a character other than white space")
    .trim();
