/**
 * @module judges/analysis
 * Deterministic static measurements of source text for the offline judge: size, nesting,
 * naming, comments, duplication and risky or dated patterns. Works on text (JS/TS and
 * Python), so it runs anywhere. Lines that try to instruct a judge are blanked first, so such
 * text cannot move the result. Pure.
 */
import { stripInjectionLines } from "./injection.ts";
import type { SourceFile } from "./task.ts";

/** Every figure the offline judge uses; ratios are 0–1. */
export interface CodeMetrics {
  files: number;
  codeLines: number;
  largestFileShare: number;
  commentRatio: number;
  longLineRatio: number;
  maxNesting: number;
  meanFunctionLines: number;
  shortNameRatio: number;
  duplicateRatio: number;
  emptyCatches: number;
  anyTypes: number;
  looseEquality: number;
  varDeclarations: number;
  evalCalls: number;
  deprecatedCalls: number;
  todoMarkers: number;
  consoleCalls: number;
  tryBlocks: number;
  validationHints: number;
  nestedCallbacks: number;
}

/** A count per 100 code lines. */
export const per100 = (m: CodeMetrics, count: number): number =>
  (count * 100) / Math.max(1, m.codeLines);

const CODE_EXT = /\.(?:[cm]?[jt]sx?|py)$/i;
const SHORT_OK = new Set([
  "i",
  "j",
  "k",
  "n",
  "x",
  "y",
  "z",
  "id",
  "db",
  "fs",
  "ok",
  "io",
  "os",
  "re",
  "e",
  "el",
  "fn",
  "cb",
  "_",
  "a",
  "b",
  "to",
  "at",
  "of",
  "in",
  "is",
  "on",
  "ms",
  "t",
  "s",
]);
const KEYWORDS = new Set(
  "if else for while do return const let var function class new try catch finally throw await async import export from default switch case break continue typeof instanceof in of void delete this super extends yield static get set def elif pass lambda with as not and or None True False self raise except is global nonlocal assert print null undefined true false".split(
    " ",
  ),
);

/** Whether a path is source code the analysis reads. */
export const isSourcePath = (path: string): boolean =>
  CODE_EXT.test(path) && !/(?:^|\/)(?:node_modules|dist|build|\.venv|__pycache__)\//.test(path);

/** Measures the given files (non-source files are ignored). */
export function measureCode(files: readonly SourceFile[]): CodeMetrics {
  const sources = files.filter((f) => isSourcePath(f.path));
  let codeLines = 0;
  let commentLines = 0;
  let longLines = 0;
  let maxNesting = 0;
  let functions = 0;
  let largest = 0;
  const idents: string[] = [];
  const windows = new Map<string, number>();
  const counts = {
    emptyCatches: 0,
    anyTypes: 0,
    looseEquality: 0,
    varDeclarations: 0,
    evalCalls: 0,
    deprecatedCalls: 0,
    todoMarkers: 0,
    consoleCalls: 0,
    tryBlocks: 0,
    validationHints: 0,
    nestedCallbacks: 0,
  };
  const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;

  for (const f of sources) {
    const text = stripInjectionLines(f.content);
    const python = /\.py$/i.test(f.path);
    const lines = text.split("\n");
    let fileCode = 0;
    let depth = 0;
    const norm: string[] = [];
    for (const raw of lines) {
      const line = raw.trim();
      if (line === "") continue;
      const isComment = python ? line.startsWith("#") : /^(?:\/\/|\/\*|\*)/.test(line);
      if (isComment) {
        commentLines += 1;
        continue;
      }
      fileCode += 1;
      if (raw.length > 120) longLines += 1;
      if (python) {
        const indent = raw.length - raw.trimStart().length;
        maxNesting = Math.max(maxNesting, Math.floor(indent / 4));
      } else {
        for (const ch of line) {
          if (ch === "{") maxNesting = Math.max(maxNesting, ++depth);
          else if (ch === "}") depth = Math.max(0, depth - 1);
        }
      }
      if (line.length > 3 && !/^[{}()[\];,]+$/.test(line)) norm.push(line.replace(/\s+/g, " "));
      for (const m of line
        .replace(/(["'`])(?:\\.|(?!\1).)*\1/g, "")
        .matchAll(/\b[A-Za-z_][A-Za-z0-9_]*\b/g))
        if (!KEYWORDS.has(m[0])) idents.push(m[0]);
    }
    for (let i = 0; i + 4 <= norm.length; i++) {
      const key = norm.slice(i, i + 4).join("\n");
      windows.set(key, (windows.get(key) ?? 0) + 1);
    }
    codeLines += fileCode;
    largest = Math.max(largest, fileCode);
    functions += python
      ? count(text, /^\s*(?:async\s+)?def\s/gm)
      : count(text, /\bfunction\b|=>\s*\{|^\s*(?:async\s+)?[A-Za-z_$][\w$]*\s*\([^)]*\)\s*\{/gm);
    counts.emptyCatches += python
      ? count(text, /except[^:\n]*:\s*\n\s*pass\b/g) + count(text, /^\s*except\s*:/gm)
      : count(text, /catch\s*(?:\([^)]*\))?\s*\{\s*\}/g);
    counts.anyTypes += python ? 0 : count(text, /:\s*any\b|\bas\s+any\b|<any>/g);
    counts.looseEquality += python ? 0 : count(text, /[^=!<>]==[^=]|!=[^=]/g);
    counts.varDeclarations += python ? 0 : count(text, /\bvar\s+[A-Za-z_$]/g);
    counts.evalCalls += count(text, /\beval\s*\(|\bnew\s+Function\s*\(|\bexec\s*\(/g);
    counts.deprecatedCalls += count(
      text,
      /\bnew\s+Buffer\s*\(|\burl\.parse\s*\(|\bfs\.exists\s*\(|\bimp\b\s*import|\.has_key\s*\(/g,
    );
    counts.todoMarkers += count(text, /\b(?:TODO|FIXME|XXX|HACK)\b/g);
    counts.consoleCalls += python
      ? count(text, /^\s*print\s*\(/gm)
      : count(text, /\bconsole\.(?:log|debug)\s*\(/g);
    counts.tryBlocks += python ? count(text, /^\s*try\s*:/gm) : count(text, /\btry\s*\{/g);
    counts.validationHints += count(
      text,
      /\b(?:zod|z\.object|joi|yup|ajv|pydantic|safeParse|isinstance|Number\.isFinite|Number\.isInteger|typeof\s+\w+\s*[!=]==)/g,
    );
    counts.nestedCallbacks += python
      ? 0
      : count(text, /function\s*\([^)]*\)\s*\{[^{}]*function\s*\(/g);
  }
  const dupWindows = [...windows.values()].filter((n) => n > 1).reduce((s, n) => s + n, 0);
  const windowTotal = [...windows.values()].reduce((s, n) => s + n, 0);
  return {
    files: sources.length,
    codeLines,
    largestFileShare: codeLines === 0 ? 0 : largest / codeLines,
    commentRatio: commentLines / Math.max(1, commentLines + codeLines),
    longLineRatio: longLines / Math.max(1, codeLines),
    maxNesting,
    meanFunctionLines: codeLines / Math.max(1, functions),
    shortNameRatio:
      idents.length === 0
        ? 0
        : idents.filter((n) => n.length <= 2 && !SHORT_OK.has(n)).length / idents.length,
    duplicateRatio: windowTotal === 0 ? 0 : dupWindows / windowTotal,
    ...counts,
  };
}
