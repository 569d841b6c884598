/**
 * @module judges/analysis/functions
 * What the analysis knows of one function: its own code lines, cyclomatic complexity and
 * control nesting (nested functions counted on their own), and whether it is a stub or a trivial
 * wrapper (request handlers: handlers.ts). A stub is a function whose first
 * statement (docstrings and directives aside) throws or raises, or returns a constant: whatever
 * its documentation says, it does nothing with its input. Reads masked code only. Pure.
 */
import type { FunctionSpan } from "../source-text.ts";

/** Cyclomatic complexity above which a function is flagged (ESLint's default). */
export const COMPLEXITY_LIMIT = 20;

/** Decision points: each adds one path (cyclomatic complexity = 1 + decisions). */
const DECISIONS_JS = /\b(?:if|for|while|case|catch)\b|&&|\|\||\?\?|\?(?![.?:])/g;
const DECISIONS_PY = /\b(?:if|elif|for|while|except|and|or|case)\b/g;

/** A function span with its measured figures and its masked body. */
export interface FunctionFacts extends FunctionSpan {
  complexity: number;
  nesting: number;
  body: string;
}

/** Deepest stack of Python control blocks (by indentation) in a body. */
function pythonNesting(body: string): number {
  let nesting = 0;
  const stack: number[] = [];
  const lines = body.split("\n").filter((l) => l.trim());
  const base = lines.length ? Math.min(...lines.map((l) => l.length - l.trimStart().length)) : 0;
  for (const l of lines) {
    const indent = l.length - l.trimStart().length;
    while (stack.length && stack[stack.length - 1]! >= indent) stack.pop();
    if (
      /^\s*(?:if|elif|else|for|while|try|except|finally|with|match|case)\b.*:\s*$/.test(l) &&
      indent >= base
    ) {
      stack.push(indent);
      nesting = Math.max(nesting, stack.length);
    }
  }
  return nesting;
}

/** Whether the `{` preceded by `before` opens a control block (if, for, try, else …). */
function opensControlBlock(before: string): boolean {
  if (/(?:^|[^\w$])(?:else|try|finally|do)$/.test(before)) return true;
  if (!before.endsWith(")")) return false;
  let depth = 0;
  let q = before.length - 1;
  for (; q >= 0; q--) {
    if (before[q] === ")") depth += 1;
    else if (before[q] === "(" && --depth === 0) break;
  }
  return /(?:^|[^\w$])(?:if|for|while|switch|catch)\s*$/.test(before.slice(0, q));
}

/** Deepest stack of JS control blocks (by braces) in a body. */
function jsNesting(body: string): number {
  let nesting = 0;
  const stack: boolean[] = [];
  for (let p = 0; p < body.length; p++) {
    const ch = body[p];
    if (ch === "{") {
      stack.push(opensControlBlock(body.slice(Math.max(0, p - 200), p).trimEnd()));
      nesting = Math.max(nesting, stack.filter(Boolean).length);
    } else if (ch === "}") stack.pop();
  }
  return nesting;
}

/** Lines of span `i` whose first code character belongs to it and not to a nested function. */
function ownLines(body: string, start: number, owner: Int32Array, i: number): number {
  let own = 0;
  let p = start;
  for (const l of body.split("\n")) {
    const first = l.search(/[^\s{}();,[\]]/);
    if (first >= 0 && owner[p + first] === i) own += 1;
    p += l.length + 1;
  }
  return own;
}

/** Complexity and control nesting of each function, nested functions counted on their own. */
export function describeFunctions(
  code: string,
  python: boolean,
  spans: FunctionSpan[],
): FunctionFacts[] {
  const owner = new Int32Array(code.length).fill(-1);
  spans.forEach((f, i) => owner.fill(i, f.start, f.end));
  const complexity = spans.map(() => 1);
  for (const m of code.matchAll(python ? DECISIONS_PY : DECISIONS_JS)) {
    const o = owner[m.index]!;
    if (o >= 0) complexity[o]! += 1;
  }
  return spans.map((f, i) => {
    const body = code.slice(f.start, f.end);
    const nesting = python ? pythonNesting(body) : jsNesting(body);
    const lines = ownLines(body, f.start, owner, i);
    return { ...f, lines, complexity: complexity[i]!, nesting, body };
  });
}

/**
 * Whether a masked expression is a constant: string, number and keyword literals, and object or
 * array literals made only of them (masked template literals may hide `${…}`, so they are not).
 */
function isConstant(expr: string, python: boolean): boolean {
  const rest = expr
    // An f-string's masked text may hide `{…}`: it is not a constant.
    .replace(python ? /(?<![\w$])[rb]*f[rb]*(?=["'])/gi : /(?!)/g, "F")
    .replace(python ? /[rbu]*(?:"""\s*"""|'''\s*'''|"\s*"|'\s*')/gi : /"\s*"|'\s*'/g, " ")
    .replace(/(?<![\w$.])-?\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?(?![\w$])/gi, " ")
    .replace(python ? /\b(?:None|True|False)\b/g : /\b(?:null|undefined|true|false)\b/g, " ")
    .replace(python ? /(?!)/g : /[A-Za-z_$][\w$]*\s*:/g, " ")
    .replace(/[{}[\](),:;\s]/g, "");
  return rest === "";
}

/**
 * A stub: a body whose first statement (after a docstring or directive) throws or raises
 * unconditionally, exits, or returns a constant; or a body that is empty, `pass` or `...`.
 * Docstrings and comments are masked before this runs, so documentation changes nothing.
 */
export function isStub(body: string, python: boolean): boolean {
  const lead = python
    ? /^(?:\s*[rbuf]*(?:"""[^"]*"""|'''[^']*'''|"[^"\n]*"|'[^'\n]*'))+/i
    : /^(?:\s*(?:"[^"\n]*"|'[^'\n]*')\s*;?)+/;
  const b = body.replace(lead, "").trim();
  if (b === "") return true;
  if (python) {
    if (/^raise\b/.test(b) || /^(?:os\._exit|sys\.exit|exit|quit)\(/.test(b)) return true;
    if (/^(?:pass|\.\.\.)(?:\s+(?:pass|\.\.\.))*$/.test(b)) return true;
    const ret = /^return\b([\s\S]*)$/.exec(b);
    return ret !== null && isConstant(ret[1]!, true);
  }
  if (/^throw\b/.test(b) || /^process\.exit\(/.test(b)) return true;
  const ret = /^return\b([^;]*);?$/.exec(b);
  return ret !== null && isConstant(ret[1]!, false);
}

/** `isStub` of a function: an expression-bodied arrow is read as returning its expression. */
export const isStubFunction = (fn: FunctionFacts, python: boolean): boolean =>
  isStub(fn.expression ? `return ${fn.body}` : fn.body, python);

/** A trivial wrapper: the whole body forwards to another call. */
export const isWrapper = (body: string, python: boolean) =>
  (python ? /^\s*return\s+[\w.]+\([^()]*\)\s*$/ : /^\s*return\s+[\w$.]+\([^()]*\);?\s*$/).test(
    body,
  );
