/**
 * @module judges/analysis/module-checks
 * Findings read line by line over a whole file: work done at import time, statements that can
 * never run (after return/throw/raise/exit in the same block) and magic numbers (literals
 * outside named constants and the common ones). Reads masked code. Pure.
 */
import { lineAt } from "../source-text.ts";
import type { Note, SourceUnit } from "./source-unit.ts";

const ALLOWED_NUMBERS = new Set([
  "0",
  "1",
  "2",
  "10",
  "100",
  "1000",
  "0.5",
  ...[200, 201, 202, 204, 301, 302, 304, 400, 401, 403, 404, 405, 409, 413, 422, 429, 500, 503].map(
    String,
  ),
]);

/** The bracket depth change of one JS line. */
function depthChange(raw: string): number {
  let change = 0;
  for (const ch of raw)
    change +=
      ch === "{" || ch === "(" || ch === "[" ? 1 : ch === "}" || ch === ")" || ch === "]" ? -1 : 0;
  return change;
}

/** Whether a top-level statement does work: a call, a loop, a try block, a condition. */
function doesWork(line: string, python: boolean): boolean {
  return python
    ? /^(?:[\w.]+\s*\(|for\b|while\b|try\s*:|with\b|if\b(?!\s+__name__))/.test(line)
    : /^(?:(?:await\s+)?[\w$.]+\s*\((?!.*=>\s*\{?\s*$)|for\b|while\b|try\b|if\b)/.test(line);
}

/** Module-level statements that do work at import time (calls, loops, try blocks). */
export function checkImportSideEffects(unit: SourceUnit, note: Note): void {
  const { code, codeLines, python, spans, test } = unit;
  const owner = new Set<number>();
  for (const fn of spans.filter((f) => !f.expression))
    for (let l = lineAt(code, fn.start); l <= lineAt(code, fn.end); l++) owner.add(l);
  // An expression-bodied arrow owns only the lines it starts (`run().then((x) => x)` at the top
  // level is still work done at import time).
  let offset = 0;
  codeLines.forEach((raw, idx) => {
    const first = offset + raw.search(/\S|$/);
    if (spans.some((f) => f.expression && f.start <= first && first < f.end)) owner.add(idx + 1);
    offset += raw.length + 1;
  });
  let depth = 0;
  codeLines.forEach((raw, idx) => {
    const n = idx + 1;
    const startDepth = depth;
    if (!python) depth += depthChange(raw);
    if (owner.has(n) || test) return;
    const topLevel = python ? /^\S/.test(raw) : startDepth === 0 && /^\S/.test(raw);
    if (topLevel && doesWork(raw.trim(), python))
      note("import-side-effect", n, "work done when the module is loaded");
  });
}

/** Unreachable statements right after return/throw/raise/exit in the same block. */
export function checkUnreachable({ codeLines: lines, python }: SourceUnit, note: Note): void {
  const indent = (s: string) => s.length - s.trimStart().length;
  for (let i = 0; i < lines.length - 1; i++) {
    const cur = lines[i]!;
    if (!/^\s*(?:return|throw|raise|break|continue)\b/.test(cur)) continue;
    if (!python && !/;\s*$/.test(cur)) continue;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === "") j++;
    const next = lines[j];
    if (!next) continue;
    if (
      indent(next) === indent(cur) &&
      !/^\s*(?:[})\]]|case\b|default\b|else\b|elif\b|except\b|finally\b|catch\b)/.test(next)
    )
      note("dead-code", j + 1, "unreachable after the previous statement");
  }
}

/** Magic numbers: literals outside named constants and the common ones. */
export function checkMagicNumbers({ codeLines }: SourceUnit, note: Note): void {
  codeLines.forEach((raw, idx) => {
    if (/^\s*(?:export\s+)?(?:const\s+)?[A-Z][A-Z0-9_]*\s*(?::[^=]+)?=/.test(raw)) return;
    for (const m of raw.matchAll(/(?<![\w$.])-?\d[\d_]*(?:\.\d+)?(?![\w$])/g)) {
      const v = m[0].replace(/_/g, "").replace(/^-/, "");
      if (ALLOWED_NUMBERS.has(v)) continue;
      if (/\[\s*$/.test(raw.slice(0, m.index))) continue;
      note("magic-number", idx + 1, `${m[0]} unnamed`);
    }
  });
}
