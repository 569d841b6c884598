/**
 * @module judges/source-text
 * Lexical groundwork for the static analysis: masks strings, regex literals and comments of
 * JS/TS and Python source (same length, newlines kept, so offsets and line numbers still
 * hold) and finds function bodies; `stripComments` blanks the comments alone (the generated
 * tests' code reading). Text only, no parser: good enough to count, never to run. Pure.
 */

/** A source file with its code masked and its comments kept apart. */
export interface MaskedSource {
  path: string;
  python: boolean;
  /** The text with string/regex contents and comments replaced by spaces. */
  code: string;
  /** Comment text by 1-based line (docstrings count as comments in Python). */
  comments: Map<number, string>;
}

/** One function found in a source. */
export interface FunctionSpan {
  name: string;
  /** 1-based line of the declaration. */
  line: number;
  /** Offset where the declaration begins: its keyword, name or parameters. */
  head: number;
  /** Offsets of the body in `code` ([start, end), braces or indented block). */
  start: number;
  end: number;
  params: string[];
  /** Lines of the body that hold code. */
  lines: number;
  exported: boolean;
  /**
   * An expression-bodied arrow (`(c) => c.json(x)`): its span is the expression. Set for the
   * arrows passed as a call's arguments and those bound by `const`/`let`/`var`.
   */
  expression?: boolean;
}

const REGEX_PRECEDER = /[(,=:[!&|?{};+\-*%<>~^]$|(?:^|[^\w$])(?:return|typeof|case|do|else|in|of)$/;

/**
 * Masks a JS/TS source: strings, templates, regex literals and comments become spaces (with
 * `keepLiterals`, only the comments do).
 */
function maskJs(
  text: string,
  keepLiterals = false,
): { code: string; comments: Map<number, string> } {
  const out: string[] = [];
  const comments = new Map<number, string>();
  let line = 1;
  let i = 0;
  const note = (s: string) => comments.set(line, `${comments.get(line) ?? ""}${s}`);
  const blank = (ch: string) => (ch === "\n" ? "\n" : " ");
  while (i < text.length) {
    const ch = text[i]!;
    const next = text[i + 1];
    if (ch === "/" && next === "/") {
      const endAt = text.indexOf("\n", i);
      const stop = endAt < 0 ? text.length : endAt;
      note(text.slice(i + 2, stop));
      out.push(" ".repeat(stop - i));
      i = stop;
      continue;
    }
    if (ch === "/" && next === "*") {
      const endAt = text.indexOf("*/", i + 2);
      const stop = endAt < 0 ? text.length : endAt + 2;
      for (const c of text.slice(i, stop)) {
        if (c === "\n") line += 1;
        else note(c);
        out.push(blank(c));
      }
      i = stop;
      continue;
    }
    const before = (out.length > 40 ? out.slice(-40) : out).join("").trimEnd();
    const isRegex = ch === "/" && REGEX_PRECEDER.test(before || "(");
    if (ch === '"' || ch === "'" || ch === "`" || isRegex) {
      const close = isRegex ? "/" : ch;
      out.push(ch);
      i += 1;
      let inClass = false;
      while (i < text.length) {
        const c = text[i]!;
        if (c === "\\") {
          const esc = text.slice(i, i + 2);
          out.push(keepLiterals ? esc : "  ".slice(0, esc.length));
          if (keepLiterals && esc.endsWith("\n")) line += 1;
          i += 2;
          continue;
        }
        if (isRegex && c === "[") inClass = true;
        else if (isRegex && c === "]") inClass = false;
        if (c === close && !inClass) break;
        if (c === "\n") {
          line += 1;
          if (close !== "`") break;
        }
        out.push(keepLiterals ? c : blank(c));
        i += 1;
      }
      if (i < text.length && text[i] === close) {
        out.push(close);
        i += 1;
      }
      continue;
    }
    if (ch === "\n") line += 1;
    out.push(ch);
    i += 1;
  }
  return { code: out.join(""), comments };
}

/**
 * Masks a Python source: strings (docstrings kept as comments) and `#` comments (with
 * `keepLiterals`, only comments and docstrings).
 */
function maskPython(
  text: string,
  keepLiterals = false,
): { code: string; comments: Map<number, string> } {
  const out: string[] = [];
  const comments = new Map<number, string>();
  let line = 1;
  let i = 0;
  const note = (s: string) => comments.set(line, `${comments.get(line) ?? ""}${s}`);
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "#") {
      const endAt = text.indexOf("\n", i);
      const stop = endAt < 0 ? text.length : endAt;
      note(text.slice(i + 1, stop));
      out.push(" ".repeat(stop - i));
      i = stop;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const triple = text.startsWith(ch.repeat(3), i);
      const close = triple ? ch.repeat(3) : ch;
      const lineStart = text.lastIndexOf("\n", i - 1) + 1;
      const docstring = triple && text.slice(lineStart, i).trim() === "";
      out.push(close);
      i += close.length;
      while (i < text.length && !text.startsWith(close, i)) {
        const c = text[i]!;
        if (c === "\\") {
          const esc = text.slice(i, i + 2);
          if (!keepLiterals) out.push("  ");
          else {
            // Kept as written (a docstring blanked), newlines kept so offsets still hold.
            out.push(docstring ? esc.replace(/[^\n]/g, " ") : esc);
            if (esc.endsWith("\n")) line += 1;
          }
          i += 2;
          continue;
        }
        if (c === "\n") {
          line += 1;
          out.push("\n");
          if (!triple) break;
        } else {
          if (docstring) note(c);
          out.push(keepLiterals && !docstring ? c : " ");
        }
        i += 1;
      }
      if (text.startsWith(close, i)) {
        out.push(close);
        i += close.length;
      }
      continue;
    }
    if (ch === "\n") line += 1;
    out.push(ch);
    i += 1;
  }
  return { code: out.join(""), comments };
}

/** Masks a file's strings and comments, by its extension. */
export function maskSource(path: string, text: string): MaskedSource {
  const python = /\.py$/i.test(path);
  const { code, comments } = python ? maskPython(text) : maskJs(text);
  return { path, python, code, comments };
}

/**
 * The source with its comments (and Python docstrings) replaced by spaces, newlines kept, so
 * offsets and line numbers still hold; strings, templates and regex literals stay as written.
 * What the generated tests' code reading looks at: a comment can say anything, so it must
 * decide nothing. Non-source paths come back unchanged.
 * @example stripComments("a.mjs", "x = 1; // typeof x") // "x = 1;            "
 */
export function stripComments(path: string, text: string): string {
  if (/\.py$/i.test(path)) return maskPython(text, true).code;
  if (/\.(?:[cm]?[jt]sx?)$/i.test(path)) return maskJs(text, true).code;
  return text;
}

/** 1-based line of an offset. */
export function lineAt(code: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < code.length; i++) if (code.charCodeAt(i) === 10) n += 1;
  return n;
}

/** The offset of the bracket closing the one at `open`, or the end of the text. */
export function matchBracket(code: string, open: number): number {
  const o = code[open]!;
  const c = o === "(" ? ")" : o === "[" ? "]" : "}";
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    if (code[i] === o) depth += 1;
    else if (code[i] === c && --depth === 0) return i;
  }
  return code.length;
}

const NOT_METHODS = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "function",
  "with",
  "return",
]);

/**
 * Splits a parameter or argument list at its top-level commas (a default, a type or an argument
 * may hold commas of its own).
 * @example splitTopLevel("c, f(a, b), { x, y }") // ["c", " f(a, b)", " { x, y }"]
 */
export function splitTopLevel(raw: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let angles = 0; // type arguments; a `>` of `=>` closes nothing
  let from = 0;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === "(" || ch === "[" || ch === "{") depth += 1;
    else if (ch === ")" || ch === "]" || ch === "}") depth -= 1;
    else if (ch === "<") angles += 1;
    else if (ch === ">" && angles > 0 && raw[i - 1] !== "=") angles -= 1;
    else if (ch === "," && depth === 0 && angles === 0) {
      parts.push(raw.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(raw.slice(from));
  return parts;
}

/** The named parameters of a list; destructuring patterns name no single parameter. */
const splitParams = (raw: string): string[] =>
  splitTopLevel(raw)
    .map((p) =>
      p
        .trim()
        .replace(/^(?:\.\.\.|\*\*?)/, "")
        .split(/[\s=:]/)[0]!
        .trim(),
    )
    .filter((p) => /^[A-Za-z_$][\w$]*$/.test(p) && p !== "self" && p !== "cls");

const codeLinesIn = (code: string, start: number, end: number) =>
  code
    .slice(start, end)
    .split("\n")
    .filter((l) => /[^\s{}();,[\]]/.test(l)).length;

/** Whether a newline after `before` and before `after` continues an expression (no ASI there). */
const continuesAcrossLine = (before: string, after: string): boolean =>
  /(?:[=(,[{?:+\-*/%&|^!<>~.]|\b(?:return|typeof|instanceof|in|of|new|await|void|yield))\s*$/.test(
    before,
  ) || /^\s*(?:[.?:+\-*/%&|^,)\]}=<>]|instanceof\b|in\b)/.test(after);

/**
 * The end (exclusive) of the expression starting at `start`: the first `,` `;` or unmatched
 * closing bracket outside brackets, or a line break where the statement ends.
 */
function expressionEnd(code: string, start: number): number {
  let depth = 0;
  for (let i = start; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === "(" || ch === "[" || ch === "{") depth += 1;
    else if (ch === ")" || ch === "]" || ch === "}") {
      if (depth === 0) return i;
      depth -= 1;
    } else if (depth === 0 && (ch === "," || ch === ";")) return i;
    else if (depth === 0 && ch === "\n") {
      const lineStart = code.lastIndexOf("\n", i - 1) + 1;
      const nextEnd = code.indexOf("\n", i + 1);
      const after = code.slice(i + 1, nextEnd < 0 ? code.length : nextEnd);
      if (after.trim() === "") continue;
      if (!continuesAcrossLine(code.slice(lineStart, i), after)) return i;
    }
  }
  return code.length;
}

/**
 * Expression-bodied arrows (`(c) => c.json(x)`) passed as a call's arguments or bound by
 * `const`/`let`/`var`; the span is the expression, trailing blanks left out.
 */
function findExpressionArrows(code: string): FunctionSpan[] {
  const found: FunctionSpan[] = [];
  const arrow =
    /(?:(export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*|(?<=[(,]\s*))(?:async\s+)?(\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>\s*(?=[^\s{])/g;
  for (const m of code.matchAll(arrow)) {
    const start = m.index + m[0].length;
    let end = expressionEnd(code, start);
    while (end > start && /\s/.test(code[end - 1]!)) end -= 1;
    if (end <= start) continue;
    found.push({
      name: m[2] ?? "(arrow)",
      line: lineAt(code, m.index),
      head: m.index,
      start,
      end,
      params: splitParams(m[3]!.replace(/^\(|\)$/g, "")),
      lines: codeLinesIn(code, start, end),
      exported: Boolean(m[1]),
      expression: true,
    });
  }
  return found;
}

/**
 * Functions of a JS/TS source: declarations, methods and arrows with a block body, and the
 * expression-bodied arrows of `findExpressionArrows`.
 */
function findJsFunctions(code: string): FunctionSpan[] {
  const found: FunctionSpan[] = [];
  const patterns: RegExp[] = [
    /(export\s+(?:default\s+)?)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)?\s*\(/g,
    /(?:(export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*)?(?:async\s+)?(\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>\s*\{/g,
    /^[ \t]*(?:async\s+)?(?:static\s+)?(?:get\s+|set\s+)?([A-Za-z_$][\w$]*)\s*\(/gm,
  ];
  for (const [k, re] of patterns.entries()) {
    for (const m of code.matchAll(re)) {
      let name: string;
      let params: string;
      let brace: number;
      let exported = false;
      if (k === 0) {
        const open = m.index + m[0].length - 1;
        const close = matchBracket(code, open);
        params = code.slice(open + 1, close);
        brace = code.slice(close + 1).search(/\S/) + close + 1;
        if (code[brace] !== "{") continue;
        name = m[2] ?? "";
        exported = Boolean(m[1]);
        if (!name) {
          const assigned = /([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?$/.exec(
            code.slice(0, m.index),
          );
          name = assigned?.[1] ?? "(anonymous)";
        }
      } else if (k === 1) {
        brace = m.index + m[0].length - 1;
        params = m[3]!.replace(/^\(|\)$/g, "");
        name = m[2] ?? "(arrow)";
        exported = Boolean(m[1]);
      } else {
        name = m[1]!;
        if (NOT_METHODS.has(name)) continue;
        const open = m.index + m[0].length - 1;
        const close = matchBracket(code, open);
        const after = code.slice(close + 1).search(/\S/) + close + 1;
        if (code[after] !== "{") continue;
        params = code.slice(open + 1, close);
        brace = after;
      }
      const end = matchBracket(code, brace);
      if (found.some((f) => f.start === brace + 1)) continue;
      found.push({
        name,
        line: lineAt(code, m.index),
        head: m.index,
        start: brace + 1,
        end,
        params: splitParams(params),
        lines: codeLinesIn(code, brace + 1, end),
        exported,
      });
    }
  }
  found.push(...findExpressionArrows(code));
  return found.sort((a, b) => a.start - b.start);
}

/** Functions of a Python source (`def`, not lambdas); the body is the indented block. */
function findPythonFunctions(code: string): FunctionSpan[] {
  const found: FunctionSpan[] = [];
  for (const m of code.matchAll(/^([ \t]*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/gm)) {
    const indent = m[1]!.length;
    const open = m.index + m[0].length - 1;
    const close = matchBracket(code, open);
    const colon = code.indexOf(":", close);
    const start = code.indexOf("\n", colon) + 1 || code.length;
    let end = start;
    let pos = start;
    while (pos < code.length) {
      const nl = code.indexOf("\n", pos);
      const stop = nl < 0 ? code.length : nl;
      const text = code.slice(pos, stop);
      if (text.trim() !== "") {
        if (text.length - text.trimStart().length <= indent) break;
        end = stop;
      }
      pos = stop + 1;
    }
    found.push({
      name: m[2]!,
      line: lineAt(code, m.index),
      head: m.index,
      start,
      end,
      params: splitParams(code.slice(open + 1, close)),
      lines: codeLinesIn(code, start, end),
      exported: indent === 0 && !m[2]!.startsWith("_"),
    });
  }
  return found;
}

/** Every function of a masked source. */
export function findFunctions(src: MaskedSource): FunctionSpan[] {
  return src.python ? findPythonFunctions(src.code) : findJsFunctions(src.code);
}
