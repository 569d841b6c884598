/**
 * @module judges/analysis/measure
 * `measureCode`: runs every check over each source file in turn, then the checks across files
 * (private functions nobody calls, duplicate blocks, cryptic names), and turns the totals into
 * `CodeMetrics`. Findings keep their file and line and come in a fixed order: file by file,
 * each file's checks in the order below, then the cross-file findings. Pure.
 */
import { findInjectionLines } from "../injection.ts";
import type { SourceFile } from "../task.ts";
import { checkErrorHandling, checkUncheckedInput } from "./error-handling.ts";
import { findDuplicates, indexWindows, type WindowIndex } from "./duplication.ts";
import type { CodeMetrics, Finding } from "./findings.ts";
import { measureFunctions } from "./function-checks.ts";
import type { FunctionFacts } from "./functions.ts";
import { measureLines } from "./lines.ts";
import { checkLintRules, checkTestCode } from "./lint-rules.ts";
import { checkImportSideEffects, checkMagicNumbers, checkUnreachable } from "./module-checks.ts";
import { collectDeclaredNames, findCrypticNames, type NamedAt } from "./naming.ts";
import { buildSourceUnit, type Note } from "./source-unit.ts";

const CODE_EXT = /\.(?:[cm]?[jt]sx?|py)$/i;

/** Whether a path is source code the analysis reads. */
export const isSourcePath = (path: string): boolean =>
  CODE_EXT.test(path) && !/(?:^|\/)(?:node_modules|dist|build|\.venv|__pycache__)\//.test(path);

/** The running totals over the files measured so far. */
interface Totals {
  findings: Finding[];
  codeLines: number;
  commentLines: number;
  longLines: number;
  largestFile: number;
  normalizedLines: number;
  windows: WindowIndex;
  names: NamedAt[];
  functions: FunctionFacts[];
  wrappers: Set<FunctionFacts>;
  fileOf: Map<FunctionFacts, string>;
  publicNames: string[];
  /** Every file's masked code, to find calls across files. */
  corpus: string[];
  entryPoints: number;
  stubEntryPoints: number;
  emptyCatches: number;
  tryBlocks: number;
  rejections: number;
  validationHints: number;
}

function emptyTotals(): Totals {
  return {
    findings: [],
    codeLines: 0,
    commentLines: 0,
    longLines: 0,
    largestFile: 0,
    normalizedLines: 0,
    windows: new Map(),
    names: [],
    functions: [],
    wrappers: new Set(),
    fileOf: new Map(),
    publicNames: [],
    corpus: [],
    entryPoints: 0,
    stubEntryPoints: 0,
    emptyCatches: 0,
    tryBlocks: 0,
    rejections: 0,
    validationHints: 0,
  };
}

/** Runs every per-file check over one file and adds it to the totals. */
function measureFile(file: SourceFile, t: Totals): void {
  const note: Note = (rule, line, detail) =>
    t.findings.push({ rule, file: file.path, line, detail });
  const injected = findInjectionLines(file.content).length;
  if (injected > 0) note("judge-directed-text", 1, `${injected} line(s) addressed to a judge`);
  const unit = buildSourceUnit(file);
  t.corpus.push(unit.code);

  const lines = measureLines(unit, note);
  indexWindows(t.windows, file.path, lines.normalized);
  t.normalizedLines += lines.normalized.length;
  t.codeLines += lines.codeLines;
  t.commentLines += lines.commentLines;
  t.longLines += lines.longLines;
  t.largestFile = Math.max(t.largestFile, lines.codeLines);

  const fns = measureFunctions(unit, note);
  for (const fn of fns.functions) t.fileOf.set(fn, file.path);
  t.functions.push(...fns.functions);
  for (const fn of fns.wrappers) t.wrappers.add(fn);
  t.publicNames.push(...fns.publicNames);
  t.entryPoints += fns.entryPoints;
  t.stubEntryPoints += fns.stubEntryPoints;
  t.names.push(...fns.names, ...collectDeclaredNames(unit));

  const errors = checkErrorHandling(unit, note);
  t.emptyCatches += errors.emptyCatches;
  t.tryBlocks += errors.tryBlocks;
  t.rejections += errors.rejections;
  t.validationHints += errors.validationHints;
  checkUncheckedInput(unit, note);
  checkLintRules(unit, note);
  checkTestCode(unit, note);
  checkImportSideEffects(unit, note);
  checkUnreachable(unit, note);
  checkMagicNumbers(unit, note);
}

/** Private functions nobody calls (the name occurs once in all the code): dead code. */
function findUncalledFunctions(t: Totals): Finding[] {
  const joined = t.corpus.join("\n");
  const findings: Finding[] = [];
  for (const fn of t.functions) {
    if (fn.exported || !/^[A-Za-z_$][\w$]*$/.test(fn.name)) continue;
    const uses =
      joined.match(new RegExp(`(?<![\\w$])${fn.name.replace(/\$/g, "\\$")}(?![\\w$])`, "g"))
        ?.length ?? 0;
    if (uses <= 1 && !t.publicNames.includes(fn.name))
      findings.push({
        rule: "dead-code",
        file: t.fileOf.get(fn) ?? "",
        line: fn.line,
        detail: `${fn.name} is never called`,
      });
  }
  return findings;
}

/** The metrics of the totals, with the share of duplicated lines and of cryptic names. */
function buildMetrics(
  t: Totals,
  files: number,
  duplicateLines: number,
  crypticNames: number,
): CodeMetrics {
  const { codeLines, functions } = t;
  // Trivial wrappers and expression-bodied arrows (callbacks, one-expression helpers) are not
  // units of design: counted in the mean, they would only make it easier to dodge.
  const real = functions.filter((fn) => !t.wrappers.has(fn) && !fn.expression);
  return {
    files,
    codeLines,
    largestFileShare: codeLines === 0 ? 0 : t.largestFile / codeLines,
    commentRatio: t.commentLines / Math.max(1, t.commentLines + codeLines),
    longLineRatio: t.longLines / Math.max(1, codeLines),
    maxNesting: Math.max(0, ...functions.map((f) => f.nesting)),
    functions: functions.length,
    largestFunctionShare:
      codeLines === 0 ? 0 : Math.max(0, ...functions.map((f) => f.lines)) / codeLines,
    meanFunctionLines: real.length
      ? real.reduce((s, f) => s + f.lines, 0) / real.length
      : codeLines,
    maxComplexity: Math.max(0, ...functions.map((f) => f.complexity)),
    publicFunctions: functions.filter((f) => f.exported).length,
    stubFunctions: t.findings.filter((f) => f.rule === "stub-function").length,
    entryPoints: t.entryPoints,
    stubEntryPoints: t.stubEntryPoints,
    doNothing: t.entryPoints > 0 && t.stubEntryPoints === t.entryPoints,
    shortNameRatio: t.names.length === 0 ? 0 : crypticNames / t.names.length,
    duplicateRatio: t.normalizedLines === 0 ? 0 : duplicateLines / t.normalizedLines,
    emptyCatches: t.emptyCatches,
    tryBlocks: t.tryBlocks,
    rejections: t.rejections,
    validationHints: t.validationHints,
    findings: t.findings,
  };
}

/** Measures the given files (non-source files are ignored). */
export function measureCode(files: readonly SourceFile[]): CodeMetrics {
  const sources = files.filter((f) => isSourcePath(f.path));
  const t = emptyTotals();
  for (const f of sources) measureFile(f, t);
  t.findings.push(...findUncalledFunctions(t));
  const duplicates = findDuplicates(t.windows);
  t.findings.push(...duplicates.findings);
  const cryptic = findCrypticNames(t.names);
  t.findings.push(...cryptic.findings);
  return buildMetrics(t, sources.length, duplicates.lines, cryptic.cryptic.length);
}
