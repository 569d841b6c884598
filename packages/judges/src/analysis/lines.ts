/**
 * @module judges/analysis/lines
 * One file read line by line: code lines, comment lines, long lines, and the comment findings
 * (praise, commented-out code, TODO markers, silenced checkers); and each code line normalized
 * for the duplication check (identifiers, numbers and strings replaced, keywords kept). A
 * praising comment is reported, not counted as a comment. Pure.
 */
import type { Note, SourceUnit } from "./source-unit.ts";

/** A code line normalized for duplication, with its 1-based line. */
export interface NormalizedLine {
  key: string;
  line: number;
}

/** What one file's lines add to the totals. */
export interface LineTally {
  codeLines: number;
  commentLines: number;
  longLines: number;
  /** The normalized code lines long enough to compare. */
  normalized: NormalizedLine[];
}

const PRAISE =
  /\b(?:clean|elegant|robust|production[- ]ready|well[- ](?:tested|written|designed|structured|documented)|best[- ]practices?|high[- ]quality|excellent|perfect(?:ly)?|flawless|beautiful|optimal|idiomatic|maintainable|bulletproof|industry[- ]standard|enterprise[- ]grade|world[- ]class|top[- ]notch|state[- ]of[- ]the[- ]art|impeccable|exemplary|masterful)\b/i;

const KEPT_KEYWORDS =
  /^(?:if|else|for|while|return|const|let|var|function|def|try|catch|except|raise|throw|await|async|new|class|import|from)$/;

/** Whether a comment reads as code left behind. */
function isCommentedOutCode(comment: string, python: boolean): boolean {
  if (!python)
    return /^\s*(?:[\w$.]+\s*\(.*\)\s*;|(?:const|let|var|if|for|return)\b.*[;{]\s*$)/.test(comment);
  return (
    /^\s*(?:[\w.]+\s*\(.*\)|(?:if|for|return|import|def)\b.*)\s*$/.test(comment) &&
    /[()=:]/.test(comment) &&
    !/\s{2,}\w+\s\w+\s\w+/.test(comment) &&
    /^\s*\S+[(=]/.test(comment)
  );
}

/** The findings of one comment; whether it counts as a comment line (praise does not). */
function checkComment(comment: string, line: number, python: boolean, note: Note): boolean {
  const praise = PRAISE.test(comment);
  if (praise) note("praise-comment", line, "self-assessment, not explanation");
  if (isCommentedOutCode(comment, python))
    note("commented-out-code", line, "code left in a comment");
  if (/\b(?:TODO|FIXME|XXX|HACK)\b/.test(comment)) note("todo", line, "unfinished-work marker");
  if (
    /eslint-disable|@ts-ignore|@ts-nocheck|#\s*noqa|type:\s*ignore|pylint:\s*disable/.test(comment)
  )
    note("lint-suppression", line, "a checker silenced");
  return !praise;
}

/** A code line with identifiers, numbers and empty strings replaced, keywords kept. */
function normalizeLine(line: string): string {
  return line
    .replace(/(["'`])\s*\1/g, "S")
    .replace(/\b\d[\d_.]*\b/g, "N")
    .replace(/[A-Za-z_$][\w$]*/g, (w) => (KEPT_KEYWORDS.test(w) ? w : "I"))
    .replace(/\s+/g, " ");
}

/** Reads one file line by line. */
export function measureLines(unit: SourceUnit, note: Note): LineTally {
  const tally: LineTally = { codeLines: 0, commentLines: 0, longLines: 0, normalized: [] };
  const textLines = unit.text.split("\n");
  unit.codeLines.forEach((raw, idx) => {
    const n = idx + 1;
    const line = raw.trim();
    const comment = unit.comments.get(n);
    if (comment !== undefined && comment.trim() !== "")
      if (checkComment(comment, n, unit.python, note)) tally.commentLines += 1;
    if (line === "" || /^["'`]{1,3}$/.test(line)) return;
    tally.codeLines += 1;
    if (textLines[idx]!.length > 120) {
      tally.longLines += 1;
      note("long-line", n, "over 120 characters");
    }
    const key = normalizeLine(line);
    if (key.replace(/[\s{}()[\];,]/g, "").length >= 4) tally.normalized.push({ key, line: n });
  });
  return tally;
}
