/**
 * @module judges/analysis/source-unit
 * One source file as every check reads it: the text with lines aimed at a judge blanked, its
 * masked code (strings, regex literals and comments as spaces, offsets and lines kept), its
 * comments by line and its functions; and `Note`, how a check reports a finding of that file.
 * Pure.
 */
import { stripInjectionLines } from "../injection.ts";
import { findFunctions, lineAt, maskSource, type FunctionSpan } from "../source-text.ts";
import type { SourceFile } from "../task.ts";
import type { FindingRule } from "./findings.ts";

const TEST_FILE =
  /(?:^|\/)(?:test_[^/]*\.py|[^/]*_test\.py|conftest\.py|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?)$|(?:^|\/)(?:tests?|__tests__)\//i;

/** A source file prepared for the checks. */
export interface SourceUnit {
  path: string;
  /** The file's text with the lines addressed to a judge blanked. */
  text: string;
  /** `text` masked: string and regex contents and comments replaced by spaces. */
  code: string;
  /** `code` split into lines (index = line − 1). */
  codeLines: string[];
  /** Comment text by 1-based line (docstrings count as comments in Python). */
  comments: Map<number, string>;
  python: boolean;
  /** A test file or test configuration shipped with the solution. */
  test: boolean;
  spans: FunctionSpan[];
}

/** Reports a finding of the file being checked, at a 1-based line. */
export type Note = (rule: FindingRule, line: number, detail: string) => void;

/** Prepares one file: blanks the injected lines, masks the text, finds the functions. */
export function buildSourceUnit(file: SourceFile): SourceUnit {
  const text = stripInjectionLines(file.content);
  const src = maskSource(file.path, text);
  return {
    path: file.path,
    text,
    code: src.code,
    codeLines: src.code.split("\n"),
    comments: src.comments,
    python: src.python,
    test: TEST_FILE.test(file.path),
    spans: findFunctions(src),
  };
}

/** How many times `re` (global) matches `text`. */
export const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;

/** Offsets of `re` in `code` with their 1-based lines. */
export function* hits(
  code: string,
  re: RegExp,
): Generator<{ line: number; text: string; index: number }> {
  for (const m of code.matchAll(re))
    yield { line: lineAt(code, m.index), text: m[0], index: m.index };
}
