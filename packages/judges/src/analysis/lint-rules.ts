/**
 * @module judges/analysis/lint-rules
 * Lint-like findings of one file, each a pattern over the masked code: eval, process exits,
 * debug output, deprecated APIs, hard-coded secrets, SQL by concatenation, and the rules of
 * each language (mutable defaults and wildcard imports in Python; `var`, loose equality, `any`,
 * nested callbacks and unguarded for…in in JS); and test machinery shipped inside the
 * solution. Pure.
 */
import { lineAt } from "../source-text.ts";
import type { FindingRule } from "./findings.ts";
import { hits, type Note, type SourceUnit } from "./source-unit.ts";

/** Reports every match of a pattern as one rule. */
type Lint = (rule: FindingRule, re: RegExp, detail: string) => void;

/** Rules of both languages (with each language's pattern). */
function lintCommon(python: boolean, lint: Lint): void {
  lint(
    "eval",
    python ? /(?<![\w.])(?:eval|exec)\s*\(/g : /(?<![\w$.])eval\s*\(|\bnew\s+Function\s*\(/g,
    "code built from a string",
  );
  lint(
    "process-exit",
    python ? /\b(?:os\._exit|sys\.exit|exit|quit)\s*\(/g : /\bprocess\.(?:exit|abort)\s*\(/g,
    "ends the process from library code",
  );
  lint(
    "debug-print",
    python ? /^\s*print\s*\(/gm : /\bconsole\.(?:log|debug)\s*\(|\bdebugger\b/g,
    "debug output",
  );
  lint(
    "deprecated-api",
    /\bnew\s+Buffer\s*\(|\burl\.parse\s*\(|\bfs\.exists\s*\(|\bimport\s+imp\b|\.has_key\s*\(|\bescape\s*\(|\bunescape\s*\(/g,
    "deprecated API",
  );
  lint(
    "hardcoded-secret",
    /\b[A-Z_]*(?:SECRET|PASSWORD|PASSWD|API_KEY|TOKEN|PRIVATE_KEY)[A-Z_]*\s*=\s*["'][^"']/g,
    "credential in the source",
  );
  lint(
    "sql-concatenation",
    /\b(?:prepare|execute|exec|query|run)\s*\(\s*(?:["'`][^"'`]*["'`]\s*\+|f["'])/g,
    "SQL text built by concatenation",
  );
}

/** Python's own rules. */
function lintPython(lint: Lint): void {
  lint(
    "mutable-default",
    /\bdef\s+\w+\s*\([^)]*=\s*(?:\[\s*\]|\{\s*\}|list\(\)|dict\(\))/g,
    "mutable default argument",
  );
  lint("wildcard-import", /^\s*from\s+\S+\s+import\s+\*/gm, "wildcard import");
  lint("loose-equality", /[=!]=\s*None\b/g, "compare None with 'is'");
}

/** JS/TS's own rules. */
function lintJs(code: string, lint: Lint, note: Note): void {
  lint("var", /\bvar\s+[A-Za-z_$]/g, "'var' declaration");
  lint("loose-equality", /[^=!<>]==[^=]|!=[^=]/g, "loose equality");
  lint("any-type", /:\s*any\b|\bas\s+any\b|<any>/g, "'any' type");
  lint(
    "nested-callback",
    /function\s*\([^)]*\)\s*\{[^{}]*function\s*\(/g,
    "callback inside a callback",
  );
  for (const h of hits(code, /\bfor\s*\(\s*(?:const|let|var)\s+[\w$]+\s+in\b/g)) {
    const after = code.slice(h.index, h.index + 300);
    if (!/hasOwn|hasOwnProperty|Object\.keys/.test(after))
      note("unguarded-for-in", h.line, "for…in also walks inherited keys");
  }
}

/** The lint-like findings of one file. */
export function checkLintRules({ code, python }: SourceUnit, note: Note): void {
  const lint: Lint = (rule, re, detail) => {
    for (const h of hits(code, re)) note(rule, h.line, detail);
  };
  lintCommon(python, lint);
  if (python) lintPython(lint);
  else lintJs(code, lint, note);
}

/** Test frameworks imported by solution code, or a test file shipped with a Python solution. */
export function checkTestCode({ code, text, python, test }: SourceUnit, note: Note): void {
  if (!test && python)
    for (const h of hits(
      code,
      /^\s*(?:import\s+pytest|from\s+(?:pytest|unittest)\b|def\s+pytest_\w+)/gm,
    ))
      note("test-code-in-source", h.line, "test machinery inside the solution");
  if (!python)
    for (const m of text.matchAll(
      /(?:from\s+|require\(\s*)["'](node:test|vitest|jest|mocha|@jest\/globals)["']/g,
    ))
      if (!test) note("test-code-in-source", lineAt(text, m.index), `imports ${m[1]}`);
  if (test && python)
    note("test-code-in-source", 1, "a test or pytest configuration file shipped with the solution");
}
