/**
 * @module judges/analysis
 * Deterministic static measurements of JS/TS and Python source for the heuristic judges:
 * per-function size, complexity, nesting and parameters; duplication (identifiers renamed
 * still match); naming; error handling; lint-like findings; dead code; magic numbers. Every
 * finding keeps its file and line. Lines aimed at a judge are blanked first. A stub is a
 * function whose first statement (docstrings and directives aside) throws or raises, or returns
 * a constant: whatever its documentation says, it does nothing with its input. Pure.
 */
import { findInjectionLines, stripInjectionLines } from "./injection.ts";
import { findFunctions, lineAt, maskSource, type FunctionSpan } from "./source-text.ts";
import type { SourceFile } from "./task.ts";

/** What a finding is about; docs/judges.md lists what each rule looks for. */
export type FindingRule =
  | "empty-catch"
  | "swallowed-error"
  | "bare-except"
  | "error-detail-leak"
  | "process-exit"
  | "stub-function"
  | "stub-handler"
  | "trivial-wrapper"
  | "import-side-effect"
  | "test-code-in-source"
  | "unused-parameter"
  | "dead-code"
  | "commented-out-code"
  | "magic-number"
  | "praise-comment"
  | "judge-directed-text"
  | "eval"
  | "var"
  | "loose-equality"
  | "deprecated-api"
  | "debug-print"
  | "todo"
  | "any-type"
  | "unguarded-for-in"
  | "sql-concatenation"
  | "hardcoded-secret"
  | "mutable-default"
  | "wildcard-import"
  | "lint-suppression"
  | "missing-docstring"
  | "missing-type-hints"
  | "complex-function"
  | "long-function"
  | "deep-nesting"
  | "many-parameters"
  | "cryptic-name"
  | "duplicate-block"
  | "long-line"
  | "nested-callback"
  | "unchecked-input";

/** One observation, where it was made. */
export interface Finding {
  rule: FindingRule;
  file: string;
  line: number;
  detail: string;
}

/** Every figure the heuristic judges use; ratios are 0–1. */
export interface CodeMetrics {
  files: number;
  codeLines: number;
  largestFileShare: number;
  commentRatio: number;
  longLineRatio: number;
  /** Control-flow blocks nested inside one function, at most. */
  maxNesting: number;
  functions: number;
  /** Share of the code lines in the largest function (nested functions not counted). */
  largestFunctionShare: number;
  /** Mean body lines of the functions that are not trivial wrappers. */
  meanFunctionLines: number;
  maxComplexity: number;
  /** Functions the module offers (exported in JS/TS, public top-level `def` in Python). */
  publicFunctions: number;
  stubFunctions: number;
  /**
   * Entry points: exported functions (a factory that builds request handlers counts through
   * them instead) and request handlers. `doNothing` when there is at least one and every one
   * is a stub (a handler stub answers from the URL alone, reading nothing else).
   */
  entryPoints: number;
  stubEntryPoints: number;
  doNothing: boolean;
  shortNameRatio: number;
  /** Share of code lines inside a block that occurs twice or more (identifiers normalized). */
  duplicateRatio: number;
  emptyCatches: number;
  tryBlocks: number;
  /** `throw` / `raise` statements and explicit rejections (400 answers, safeParse, …). */
  rejections: number;
  validationHints: number;
  findings: Finding[];
}

const CODE_EXT = /\.(?:[cm]?[jt]sx?|py)$/i;
/** Short names every reader knows (loop indices, error, coordinates, common abbreviations). */
const SHORT_OK = new Set(
  "i j k n x y z e id db fs ok io os re el fn cb _ to at of in is on ms t s v m a b c f q w ex op".split(
    " ",
  ),
);
const TEST_FILE =
  /(?:^|\/)(?:test_[^/]*\.py|[^/]*_test\.py|conftest\.py|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?)$|(?:^|\/)(?:tests?|__tests__)\//i;
const PRAISE =
  /\b(?:clean|elegant|robust|production[- ]ready|well[- ](?:tested|written|designed|structured|documented)|best[- ]practices?|high[- ]quality|excellent|perfect(?:ly)?|flawless|beautiful|optimal|idiomatic|maintainable|bulletproof|industry[- ]standard|enterprise[- ]grade|world[- ]class|top[- ]notch|state[- ]of[- ]the[- ]art|impeccable|exemplary|masterful)\b/i;
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

/** Whether a path is source code the analysis reads. */
export const isSourcePath = (path: string): boolean =>
  CODE_EXT.test(path) && !/(?:^|\/)(?:node_modules|dist|build|\.venv|__pycache__)\//.test(path);

const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;

/** Offsets of `re` in `code` with their 1-based lines. */
function* hits(code: string, re: RegExp): Generator<{ line: number; text: string; index: number }> {
  for (const m of code.matchAll(re))
    yield { line: lineAt(code, m.index), text: m[0], index: m.index };
}

/** Cyclomatic complexity above which a function is flagged (ESLint's default). */
export const COMPLEXITY_LIMIT = 20;

/** Decision points: each adds one path (cyclomatic complexity = 1 + decisions). */
const DECISIONS_JS = /\b(?:if|for|while|case|catch)\b|&&|\|\||\?\?|\?(?![.?:])/g;
const DECISIONS_PY = /\b(?:if|elif|for|while|except|and|or|case)\b/g;

interface FunctionFacts extends FunctionSpan {
  complexity: number;
  nesting: number;
  body: string;
}

/** Complexity and control nesting of each function, nested functions counted on their own. */
function describeFunctions(code: string, python: boolean, spans: FunctionSpan[]): FunctionFacts[] {
  const owner = new Int32Array(code.length).fill(-1);
  spans.forEach((f, i) => owner.fill(i, f.start, f.end));
  const complexity = spans.map(() => 1);
  for (const m of code.matchAll(python ? DECISIONS_PY : DECISIONS_JS)) {
    const o = owner[m.index]!;
    if (o >= 0) complexity[o]! += 1;
  }
  return spans.map((f, i) => {
    const body = code.slice(f.start, f.end);
    let nesting = 0;
    if (python) {
      const stack: number[] = [];
      const lines = body.split("\n").filter((l) => l.trim());
      const base = lines.length
        ? Math.min(...lines.map((l) => l.length - l.trimStart().length))
        : 0;
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
    } else {
      const stack: boolean[] = [];
      for (let p = 0; p < body.length; p++) {
        const ch = body[p];
        if (ch === "{") {
          const before = body.slice(Math.max(0, p - 200), p).trimEnd();
          let control = /(?:^|[^\w$])(?:else|try|finally|do)$/.test(before);
          if (!control && before.endsWith(")")) {
            let depth = 0;
            let q = before.length - 1;
            for (; q >= 0; q--) {
              if (before[q] === ")") depth += 1;
              else if (before[q] === "(" && --depth === 0) break;
            }
            control = /(?:^|[^\w$])(?:if|for|while|switch|catch)\s*$/.test(before.slice(0, q));
          }
          stack.push(control);
          nesting = Math.max(nesting, stack.filter(Boolean).length);
        } else if (ch === "}") stack.pop();
      }
    }
    let own = 0;
    let p = f.start;
    for (const l of body.split("\n")) {
      const first = l.search(/[^\s{}();,[\]]/);
      if (first >= 0 && owner[p + first] === i) own += 1;
      p += l.length + 1;
    }
    return { ...f, lines: own, complexity: complexity[i]!, nesting, body };
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

/** Names a constant responder may use besides its own: keywords and pure built-ins. */
const JS_KEYWORDS = new Set(
  "const let var if else return typeof instanceof new await async of in true false null undefined void this JSON String Number".split(
    " ",
  ),
);

/** Whether a JS function takes a request first and a response second: a request handler. */
const isHandler = (fn: { params: string[] }): boolean =>
  /^(?:req|request)$/.test(fn.params[0] ?? "") &&
  /^(?:res|response|reply)$/.test(fn.params[1] ?? "");

/**
 * A request handler stub (JS): a `(req, res)` function that reads nothing of the request but
 * its URL, method or headers and touches nothing outside itself (no helper, store or database),
 * so its answer depends on the route alone — a constant responder.
 */
function isHandlerStub(fn: FunctionFacts): boolean {
  const req = fn.params[0]!;
  const body = fn.body;
  const reqUse = new RegExp(`(?<![\\w$.])${req}(?![\\w$])(\\??\\.[\\w$]+)?`, "g");
  for (const m of body.matchAll(reqUse))
    if (!/^\??\.(?:url|method|headers)$/.test(m[1] ?? "")) return false;
  const locals = new Set([
    ...fn.params,
    ...[...body.matchAll(/\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!),
  ]);
  for (const m of body.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g)) {
    const key = /^\s*:/.test(body.slice(m.index + m[0].length));
    if (!key && !locals.has(m[0]) && !JS_KEYWORDS.has(m[0])) return false;
  }
  return true;
}

/** A trivial wrapper: the whole body forwards to another call. */
const isWrapper = (body: string, python: boolean) =>
  (python ? /^\s*return\s+[\w.]+\([^()]*\)\s*$/ : /^\s*return\s+[\w$.]+\([^()]*\);?\s*$/).test(
    body,
  );

/** Measures the given files (non-source files are ignored). */
export function measureCode(files: readonly SourceFile[]): CodeMetrics {
  const sources = files.filter((f) => isSourcePath(f.path));
  const findings: Finding[] = [];
  const add = (rule: FindingRule, file: string, line: number, detail: string) =>
    findings.push({ rule, file, line, detail });
  let codeLines = 0;
  let commentLines = 0;
  let longLines = 0;
  let largest = 0;
  let tryBlocks = 0;
  let rejections = 0;
  let validationHints = 0;
  let emptyCatches = 0;
  const names: { name: string; file: string; line: number }[] = [];
  const windows = new Map<string, { file: string; line: number; lines: number[] }[]>();
  let normLineTotal = 0;
  const allFunctions: FunctionFacts[] = [];
  const publicNames: string[] = [];
  const corpus: string[] = [];
  const wrappers = new Set<FunctionFacts>();
  const fileOf = new Map<FunctionFacts, string>();
  let entryPoints = 0;
  let stubEntryPoints = 0;

  for (const f of sources) {
    const original = f.content;
    const injected = findInjectionLines(original).length;
    const text = stripInjectionLines(original);
    if (injected > 0)
      add("judge-directed-text", f.path, 1, `${injected} line(s) addressed to a judge`);
    const src = maskSource(f.path, text);
    const { code, python } = src;
    corpus.push(code);
    const test = TEST_FILE.test(f.path);
    const codeByLine = code.split("\n");
    let fileCode = 0;
    const norm: { key: string; line: number }[] = [];
    codeByLine.forEach((raw, idx) => {
      const n = idx + 1;
      const line = raw.trim();
      const comment = src.comments.get(n);
      if (comment !== undefined && comment.trim() !== "") {
        if (PRAISE.test(comment))
          add("praise-comment", f.path, n, "self-assessment, not explanation");
        else commentLines += 1;
        if (
          !python &&
          /^\s*(?:[\w$.]+\s*\(.*\)\s*;|(?:const|let|var|if|for|return)\b.*[;{]\s*$)/.test(comment)
        )
          add("commented-out-code", f.path, n, "code left in a comment");
        if (
          python &&
          /^\s*(?:[\w.]+\s*\(.*\)|(?:if|for|return|import|def)\b.*)\s*$/.test(comment) &&
          /[()=:]/.test(comment) &&
          !/\s{2,}\w+\s\w+\s\w+/.test(comment) &&
          /^\s*\S+[(=]/.test(comment)
        )
          add("commented-out-code", f.path, n, "code left in a comment");
        if (/\b(?:TODO|FIXME|XXX|HACK)\b/.test(comment))
          add("todo", f.path, n, "unfinished-work marker");
        if (
          /eslint-disable|@ts-ignore|@ts-nocheck|#\s*noqa|type:\s*ignore|pylint:\s*disable/.test(
            comment,
          )
        )
          add("lint-suppression", f.path, n, "a checker silenced");
      }
      if (line === "" || /^["'`]{1,3}$/.test(line)) return;
      fileCode += 1;
      if (text.split("\n")[idx]!.length > 120) {
        longLines += 1;
        add("long-line", f.path, n, "over 120 characters");
      }
      const key = line
        .replace(/(["'`])\s*\1/g, "S")
        .replace(/\b\d[\d_.]*\b/g, "N")
        .replace(/[A-Za-z_$][\w$]*/g, (w) =>
          /^(?:if|else|for|while|return|const|let|var|function|def|try|catch|except|raise|throw|await|async|new|class|import|from)$/.test(
            w,
          )
            ? w
            : "I",
        )
        .replace(/\s+/g, " ");
      if (key.replace(/[\s{}()[\];,]/g, "").length >= 4) norm.push({ key, line: n });
    });
    for (let i = 0; i + 5 <= norm.length; i++) {
      const slice = norm.slice(i, i + 5);
      if (new Set(slice.map((s) => s.key)).size < 3) continue;
      const key = slice.map((s) => s.key).join("\n");
      const list = windows.get(key) ?? [];
      list.push({ file: f.path, line: slice[0]!.line, lines: slice.map((s) => s.line) });
      windows.set(key, list);
    }
    normLineTotal += norm.length;
    codeLines += fileCode;
    largest = Math.max(largest, fileCode);

    // ─── Functions ───
    const spans = findFunctions(src);
    const facts = describeFunctions(code, python, spans);
    const exportList = [
      ...code.matchAll(
        /export\s*\{([^}]*)\}|module\.exports\s*=\s*\{([^}]*)\}|exports\.([A-Za-z_$][\w$]*)\s*=/g,
      ),
    ]
      .flatMap((m) => (m[1] ?? m[2] ?? m[3] ?? "").split(","))
      .map((s) => s.trim().split(/\s/)[0]!);
    for (const fn of facts) {
      if (
        exportList.includes(fn.name) ||
        (!python &&
          /export\s+default\s+/.test(code.slice(Math.max(0, fn.start - 300), fn.start)) &&
          fn.name === "(anonymous)")
      )
        fn.exported = true;
      if (test) continue;
      allFunctions.push(fn);
      fileOf.set(fn, f.path);
      if (isWrapper(fn.body, python)) wrappers.add(fn);
      if (fn.exported) publicNames.push(fn.name);
      if (fn.exported && isStub(fn.body, python))
        add("stub-function", f.path, fn.line, `${fn.name} does nothing with its input`);
      if (!python && isHandler(fn)) {
        entryPoints += 1;
        if (isHandlerStub(fn)) {
          stubEntryPoints += 1;
          add("stub-handler", f.path, fn.line, "a request handler that answers from the URL alone");
        }
      } else if (fn.exported) {
        // A factory counts through the handlers it builds, not as an entry point of its own.
        const factory =
          !python && facts.some((h) => h.start >= fn.start && h.end <= fn.end && isHandler(h));
        if (!factory) {
          entryPoints += 1;
          if (isStub(fn.body, python)) stubEntryPoints += 1;
        }
      }
      if (wrappers.has(fn))
        add("trivial-wrapper", f.path, fn.line, `${fn.name} only forwards a call`);
      if (fn.complexity > 10)
        add("complex-function", f.path, fn.line, `${fn.name}: complexity ${fn.complexity}`);
      if (fn.lines > 50) add("long-function", f.path, fn.line, `${fn.name}: ${fn.lines} lines`);
      if (fn.nesting > 3)
        add("deep-nesting", f.path, fn.line, `${fn.name}: ${fn.nesting} nested blocks`);
      if (fn.params.length > 5)
        add("many-parameters", f.path, fn.line, `${fn.name}: ${fn.params.length} parameters`);
      for (const p of fn.params) {
        names.push({ name: p, file: f.path, line: fn.line });
        if (p.startsWith("_")) continue;
        if (
          !new RegExp(`(?<![\\w$.])${p.replace(/\$/g, "\\$")}(?![\\w$])`).test(
            text.slice(fn.start, fn.end),
          )
        )
          add("unused-parameter", f.path, fn.line, `${fn.name}(${p}) never reads ${p}`);
      }
      if (fn.name !== "(anonymous)" && fn.name !== "(arrow)")
        names.push({ name: fn.name, file: f.path, line: fn.line });
      if (python && fn.exported) {
        const firstLine = text
          .slice(fn.start)
          .split("\n")
          .find((l) => l.trim());
        if (!/^\s*[rubf]*("""|''')/i.test(firstLine ?? ""))
          add("missing-docstring", f.path, fn.line, `${fn.name} has no docstring`);
        const header = code.slice(code.lastIndexOf("def", fn.start), fn.start);
        if (
          !header.includes("->") &&
          !/:\s*\w/.test(header.slice(header.indexOf("("), header.lastIndexOf(")")))
        )
          add("missing-type-hints", f.path, fn.line, `${fn.name} has no type hints`);
      }
    }

    // ─── Names declared ───
    const declared = python
      ? /^[ \t]*([A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)|\bfor\s+([A-Za-z_]\w*)\s+in\b|\bas\s+([A-Za-z_]\w*)/gm
      : /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)|\bfor\s*\(\s*(?:const|let|var)\s+([A-Za-z_$][\w$]*)|\bcatch\s*\(\s*([A-Za-z_$][\w$]*)/g;
    for (const m of code.matchAll(declared)) {
      const name = m[1] ?? m[2] ?? m[3];
      if (name) names.push({ name, file: f.path, line: lineAt(code, m.index) });
    }

    // ─── Error handling ───
    const emptyCatch = python
      ? /^[ \t]*except\b[^:\n]*:\s*\n[ \t]*(?:pass|\.\.\.)\s*$/gm
      : /\bcatch\s*(?:\([^)]*\))?\s*\{\s*\}/g;
    for (const h of hits(code, emptyCatch)) {
      emptyCatches += 1;
      add("empty-catch", f.path, h.line, python ? "except … pass" : "empty catch block");
    }
    if (python)
      for (const h of hits(code, /^[ \t]*except\s*:/gm))
        add("bare-except", f.path, h.line, "bare except catches everything");
    else {
      for (const h of hits(
        code,
        /\.(?:on|once)\(\s*["'`]\s*["'`]\s*,\s*(?:\([^)]*\)|[\w$]+)\s*=>\s*\{\s*\}/g,
      ))
        add("swallowed-error", f.path, h.line, "event handler that ignores the error");
      for (const h of hits(
        code,
        /\.catch\(\s*(?:\([^)]*\)|[\w$]+)?\s*=>\s*(?:\{\s*\}|null|undefined)\s*\)/g,
      ))
        add("swallowed-error", f.path, h.line, "promise rejection ignored");
      for (const h of hits(
        code,
        /\bcatch\s*(?:\([^)]*\))?\s*\{\s*return\s*(?:null|undefined|false)?\s*;?\s*\}/g,
      ))
        add("swallowed-error", f.path, h.line, "error turned into null without a trace");
    }
    for (const h of hits(
      code,
      python ? /\b(?:traceback\.format_exc\(\)|exc_info)\b/g : /\b[\w$]+\.stack\b/g,
    ))
      add("error-detail-leak", f.path, h.line, "a stack trace is passed on");
    tryBlocks += python ? count(code, /^\s*try\s*:/gm) : count(code, /\btry\s*\{/g);
    rejections +=
      count(code, python ? /\braise\s+\w/g : /\bthrow\s+\w/g) +
      count(code, /\b(?:400|422)\b/g) +
      count(code, /\b(?:safeParse|parse_obj|model_validate)\b/g);
    validationHints += count(
      code,
      /\b(?:zod|z\.object|joi|yup|ajv|pydantic|safeParse|isinstance)\b/g,
    );

    // Parsed input read two levels deep without a check (`body.password.length`).
    for (const m of code.matchAll(
      /\b([A-Za-z_$][\w$]*)\s*=\s*(?:[^;\n]*\?\s*)?(?:JSON\.parse|json\.loads)\(/g,
    ))
      for (const h of hits(
        code,
        new RegExp(`(?<![\\w$.])${m[1]}\\.[A-Za-z_$][\\w$]*\\.[A-Za-z_$]`, "g"),
      ))
        add("unchecked-input", f.path, h.line, `${h.text}… read from parsed input without a check`);

    // ─── Lint-like findings ───
    const lint = (rule: FindingRule, re: RegExp, detail: string) => {
      for (const h of hits(code, re)) add(rule, f.path, h.line, detail);
    };
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
    if (python) {
      lint(
        "mutable-default",
        /\bdef\s+\w+\s*\([^)]*=\s*(?:\[\s*\]|\{\s*\}|list\(\)|dict\(\))/g,
        "mutable default argument",
      );
      lint("wildcard-import", /^\s*from\s+\S+\s+import\s+\*/gm, "wildcard import");
      lint("loose-equality", /[=!]=\s*None\b/g, "compare None with 'is'");
    } else {
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
          add("unguarded-for-in", f.path, h.line, "for…in also walks inherited keys");
      }
    }
    if (!test && python)
      lint(
        "test-code-in-source",
        /^\s*(?:import\s+pytest|from\s+(?:pytest|unittest)\b|def\s+pytest_\w+)/gm,
        "test machinery inside the solution",
      );
    if (!python)
      for (const m of text.matchAll(
        /(?:from\s+|require\(\s*)["'](node:test|vitest|jest|mocha|@jest\/globals)["']/g,
      ))
        if (!test) add("test-code-in-source", f.path, lineAt(text, m.index), `imports ${m[1]}`);
    if (test && python)
      add(
        "test-code-in-source",
        f.path,
        1,
        "a test or pytest configuration file shipped with the solution",
      );

    // Module-level statements that do work at import time (calls, loops, try blocks).
    const owner = new Set<number>();
    for (const fn of spans)
      for (let l = lineAt(code, fn.start); l <= lineAt(code, fn.end); l++) owner.add(l);
    let depth = 0;
    codeByLine.forEach((raw, idx) => {
      const n = idx + 1;
      const startDepth = depth;
      if (!python)
        for (const ch of raw)
          depth +=
            ch === "{" || ch === "(" || ch === "["
              ? 1
              : ch === "}" || ch === ")" || ch === "]"
                ? -1
                : 0;
      if (owner.has(n) || test) return;
      const topLevel = python ? /^\S/.test(raw) : startDepth === 0 && /^\S/.test(raw);
      if (!topLevel) return;
      const line = raw.trim();
      if (
        python
          ? /^(?:[\w.]+\s*\(|for\b|while\b|try\s*:|with\b|if\b(?!\s+__name__))/.test(line)
          : /^(?:(?:await\s+)?[\w$.]+\s*\((?!.*=>\s*\{?\s*$)|for\b|while\b|try\b|if\b)/.test(line)
      )
        add("import-side-effect", f.path, n, "work done when the module is loaded");
    });

    // Unreachable statements right after return/throw/raise/exit in the same block.
    const lines = codeByLine;
    for (let i = 0; i < lines.length - 1; i++) {
      const cur = lines[i]!;
      if (!/^\s*(?:return|throw|raise|break|continue)\b/.test(cur)) continue;
      if (!python && !/;\s*$/.test(cur)) continue;
      let j = i + 1;
      while (j < lines.length && lines[j]!.trim() === "") j++;
      const next = lines[j];
      if (!next) continue;
      const indent = (s: string) => s.length - s.trimStart().length;
      if (
        indent(next) === indent(cur) &&
        !/^\s*(?:[})\]]|case\b|default\b|else\b|elif\b|except\b|finally\b|catch\b)/.test(next)
      )
        add("dead-code", f.path, j + 1, "unreachable after the previous statement");
    }

    // Magic numbers: literals outside named constants and the common ones.
    codeByLine.forEach((raw, idx) => {
      if (/^\s*(?:export\s+)?(?:const\s+)?[A-Z][A-Z0-9_]*\s*(?::[^=]+)?=/.test(raw)) return;
      for (const m of raw.matchAll(/(?<![\w$.])-?\d[\d_]*(?:\.\d+)?(?![\w$])/g)) {
        const v = m[0].replace(/_/g, "").replace(/^-/, "");
        if (ALLOWED_NUMBERS.has(v)) continue;
        if (/\[\s*$/.test(raw.slice(0, m.index))) continue;
        add("magic-number", f.path, idx + 1, `${m[0]} unnamed`);
      }
    });
  }

  // Private functions nobody calls are dead code.
  const joined = corpus.join("\n");
  for (const fn of allFunctions) {
    if (fn.exported || !/^[A-Za-z_$][\w$]*$/.test(fn.name)) continue;
    const uses =
      joined.match(new RegExp(`(?<![\\w$])${fn.name.replace(/\$/g, "\\$")}(?![\\w$])`, "g"))
        ?.length ?? 0;
    if (uses <= 1 && !publicNames.includes(fn.name)) {
      add("dead-code", fileOf.get(fn) ?? "", fn.line, `${fn.name} is never called`);
    }
  }

  const seenDup = new Set<string>();
  for (const list of windows.values()) {
    if (list.length < 2) continue;
    for (const w of list) for (const l of w.lines) seenDup.add(`${w.file}:${l}`);
    add(
      "duplicate-block",
      list[1]!.file,
      list[1]!.line,
      `repeats ${list[0]!.file}:${list[0]!.line}`,
    );
  }
  const dupLines = seenDup.size;

  const cryptic = names.filter(
    (n) =>
      (n.name.length <= 2 && !SHORT_OK.has(n.name)) ||
      /^(?:tmp|temp|foo|bar|baz|stuff|thing|data\d+|var\d+|val\d+|[a-z]\d+)$/i.test(n.name),
  );
  const seenNames = new Set<string>();
  for (const n of cryptic)
    if (!seenNames.has(n.name)) {
      seenNames.add(n.name);
      add("cryptic-name", n.file, n.line, `'${n.name}'`);
    }
  const real = allFunctions.filter((fn) => !wrappers.has(fn));
  return {
    files: sources.length,
    codeLines,
    largestFileShare: codeLines === 0 ? 0 : largest / codeLines,
    commentRatio: commentLines / Math.max(1, commentLines + codeLines),
    longLineRatio: longLines / Math.max(1, codeLines),
    maxNesting: Math.max(0, ...allFunctions.map((f) => f.nesting)),
    functions: allFunctions.length,
    largestFunctionShare:
      codeLines === 0 ? 0 : Math.max(0, ...allFunctions.map((f) => f.lines)) / codeLines,
    meanFunctionLines: real.length
      ? real.reduce((s, f) => s + f.lines, 0) / real.length
      : codeLines,
    maxComplexity: Math.max(0, ...allFunctions.map((f) => f.complexity)),
    publicFunctions: allFunctions.filter((f) => f.exported).length,
    stubFunctions: findings.filter((f) => f.rule === "stub-function").length,
    entryPoints,
    stubEntryPoints,
    doNothing: entryPoints > 0 && stubEntryPoints === entryPoints,
    shortNameRatio: names.length === 0 ? 0 : cryptic.length / names.length,
    duplicateRatio: normLineTotal === 0 ? 0 : dupLines / normLineTotal,
    emptyCatches,
    tryBlocks,
    rejections,
    validationHints,
    findings,
  };
}
