/**
 * @module judges/analysis/error-handling
 * How a file handles errors and input: empty catches, bare excepts, swallowed rejections,
 * leaked stack traces, parsed input read deep without a check; and the counts the robustness
 * judgement weighs (try blocks, rejections, validation hints). Reads masked code. Pure.
 */
import { count, hits, type Note, type SourceUnit } from "./source-unit.ts";

/** The error-handling counts of one file. */
export interface ErrorHandlingTally {
  emptyCatches: number;
  tryBlocks: number;
  rejections: number;
  validationHints: number;
}

/** JS errors dropped on the floor: empty error listeners, ignored rejections, catch → null. */
function checkSwallowedErrors(code: string, note: Note): void {
  for (const h of hits(
    code,
    /\.(?:on|once)\(\s*["'`]\s*["'`]\s*,\s*(?:\([^)]*\)|[\w$]+)\s*=>\s*\{\s*\}/g,
  ))
    note("swallowed-error", h.line, "event handler that ignores the error");
  for (const h of hits(
    code,
    /\.catch\(\s*(?:\([^)]*\)|[\w$]+)?\s*=>\s*(?:\{\s*\}|null|undefined)\s*\)/g,
  ))
    note("swallowed-error", h.line, "promise rejection ignored");
  for (const h of hits(
    code,
    /\bcatch\s*(?:\([^)]*\))?\s*\{\s*return\s*(?:null|undefined|false)?\s*;?\s*\}/g,
  ))
    note("swallowed-error", h.line, "error turned into null without a trace");
}

/** The error-handling findings of one file, and its counts. */
export function checkErrorHandling({ code, python }: SourceUnit, note: Note): ErrorHandlingTally {
  const emptyCatch = python
    ? /^[ \t]*except\b[^:\n]*:\s*\n[ \t]*(?:pass|\.\.\.)\s*$/gm
    : /\bcatch\s*(?:\([^)]*\))?\s*\{\s*\}/g;
  let emptyCatches = 0;
  for (const h of hits(code, emptyCatch)) {
    emptyCatches += 1;
    note("empty-catch", h.line, python ? "except … pass" : "empty catch block");
  }
  if (python)
    for (const h of hits(code, /^[ \t]*except\s*:/gm))
      note("bare-except", h.line, "bare except catches everything");
  else checkSwallowedErrors(code, note);
  for (const h of hits(
    code,
    python ? /\b(?:traceback\.format_exc\(\)|exc_info)\b/g : /\b[\w$]+\.stack\b/g,
  ))
    note("error-detail-leak", h.line, "a stack trace is passed on");
  return {
    emptyCatches,
    tryBlocks: python ? count(code, /^\s*try\s*:/gm) : count(code, /\btry\s*\{/g),
    rejections:
      count(code, python ? /\braise\s+\w/g : /\bthrow\s+\w/g) +
      count(code, /\b(?:400|422)\b/g) +
      count(code, /\b(?:safeParse|parse_obj|model_validate)\b/g),
    validationHints: count(
      code,
      /\b(?:zod|z\.object|joi|yup|ajv|pydantic|safeParse|isinstance)\b/g,
    ),
  };
}

/** Parsed input read two levels deep without a check (`body.password.length`). */
export function checkUncheckedInput({ code }: SourceUnit, note: Note): void {
  for (const m of code.matchAll(
    /\b([A-Za-z_$][\w$]*)\s*=\s*(?:[^;\n]*\?\s*)?(?:JSON\.parse|json\.loads)\(/g,
  ))
    for (const h of hits(
      code,
      new RegExp(`(?<![\\w$.])${m[1]}\\.[A-Za-z_$][\\w$]*\\.[A-Za-z_$]`, "g"),
    ))
      note("unchecked-input", h.line, `${h.text}… read from parsed input without a check`);
}
