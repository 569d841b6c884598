/**
 * @module cli/terminal-text
 * Text from the API made safe for a terminal. Names, labels, causes and problem details are
 * chosen by other people (an operator names a baseline, an agent's operator names the agent),
 * so they may hold escape sequences that clear the screen, move the cursor, retitle the window
 * or hide text, and newlines that forge extra rows. Pure.
 * Invariant: a field passed through `cleanField` prints as one line with no control character;
 * `stripTerminalControls` keeps the newlines of a rendering and removes everything else that a
 * terminal would act on, as a second guard at the output.
 */
/* eslint-disable no-control-regex -- finding control characters is what this module is for */

// ESC-introduced sequences: CSI (ESC [ … final), OSC/DCS/SOS/PM/APC strings (up to BEL or
// ESC \, or the end when unterminated), and the two-character escapes (ESC + one byte).
const ESCAPE_SEQUENCE =
  /\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~]?)/g;
// The 8-bit forms: a C1 CSI (0x9b) or string introducer (0x90, 0x98, 0x9d-0x9f) with its body.
const C1_SEQUENCE = /\x9b[0-?]*[ -/]*[@-~]?|[\x90\x98\x9d-\x9f][^\x07\x9c]*[\x07\x9c]?/g;
// Bidirectional overrides and isolates reorder what follows them on screen ("Trojan Source").
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
// Every other C0 and C1 control, and DEL.
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;
const CONTROL_BUT_NEWLINE = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g;
// Controls that separate words: kept as a space, so "a\nb" reads "a b" rather than "ab".
const SPACING = /[\t\n\v\f\r]+/g;

function stripSequences(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, "").replace(C1_SEQUENCE, "").replace(BIDI_CONTROLS, "");
}

/**
 * One field of an answer as one printable line: escape sequences and control characters
 * removed, line breaks and tabs turned into a space.
 * @example cleanField("evil\x1b[2J\nname") // "evil name"
 */
export function cleanField(text: string): string {
  return stripSequences(text).replace(SPACING, " ").replace(CONTROL, "");
}

/** A whole rendering made inert: escape sequences and controls removed, newlines kept. */
export function stripTerminalControls(text: string): string {
  return stripSequences(text).replace(CONTROL_BUT_NEWLINE, (c) => (c === "\t" ? "  " : ""));
}
