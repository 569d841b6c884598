/**
 * @module judges/analysis/function-checks
 * The per-function findings of one file: stubs and stub handlers (handlers.ts), entry points,
 * trivial wrappers, size, complexity, nesting, parameters (too many, unused) and, in Python,
 * missing docstrings and type hints. Functions of test files are marked exported but not measured.
 * Pure.
 */
import { describeFunctions, isStubFunction, isWrapper, type FunctionFacts } from "./functions.ts";
import { findHandlers, isHandler, isHandlerStub, type HandlerMap } from "./handlers.ts";
import type { NamedAt } from "./naming.ts";
import type { Note, SourceUnit } from "./source-unit.ts";

/** What one file's functions add to the totals. */
export interface FunctionTally {
  /** The measured functions (none from a test file). */
  functions: FunctionFacts[];
  wrappers: FunctionFacts[];
  publicNames: string[];
  /** Parameter and function names, in the order they are declared. */
  names: NamedAt[];
  entryPoints: number;
  stubEntryPoints: number;
}

/** Names a module exports by list: `export { a, b }`, `module.exports = { … }`, `exports.x =`. */
function findExportList(code: string): string[] {
  return [
    ...code.matchAll(
      /export\s*\{([^}]*)\}|module\.exports\s*=\s*\{([^}]*)\}|exports\.([A-Za-z_$][\w$]*)\s*=/g,
    ),
  ]
    .flatMap((m) => (m[1] ?? m[2] ?? m[3] ?? "").split(","))
    .map((s) => s.trim().split(/\s/)[0]!);
}

/** Marks the functions exported by list or as an anonymous default export. */
function markExported(facts: FunctionFacts[], { code, python }: SourceUnit): void {
  const exportList = findExportList(code);
  for (const fn of facts)
    if (
      exportList.includes(fn.name) ||
      (!python &&
        /export\s+default\s+/.test(code.slice(Math.max(0, fn.start - 300), fn.start)) &&
        fn.name === "(anonymous)")
    )
      fn.exported = true;
}

/** Whether an exported function hands out an app whose routes hold handlers (`app.fetch`). */
const handsOutApp = (fn: FunctionFacts, found: HandlerMap): boolean =>
  [...found.apps].some((app) =>
    new RegExp(`(?<![\\w$.])${app.replace(/\$/g, "\\$")}(?![\\w$])`).test(fn.body),
  );

/**
 * Whether `fn` is an entry point and a stub one: a request handler, or an exported function (a
 * factory of request handlers counts through them instead, and so does a function handing out
 * a module-level app that holds them). Middleware that passes the request on is neither.
 */
function classifyEntryPoint(
  fn: FunctionFacts,
  facts: FunctionFacts[],
  found: HandlerMap,
  python: boolean,
  note: Note,
): { entry: boolean; stub: boolean } {
  if (found.handlers.has(fn)) {
    const stub = isHandlerStub(fn, facts);
    if (stub)
      note(
        "stub-handler",
        fn.line,
        isHandler(fn)
          ? "a request handler that answers from the URL alone"
          : "a context handler that answers from the request's path alone",
      );
    return { entry: true, stub };
  }
  if (found.middleware.has(fn) || !fn.exported) return { entry: false, stub: false };
  const factory =
    [...found.handlers].some((h) => h.start >= fn.start && h.end <= fn.end) ||
    handsOutApp(fn, found);
  if (factory) return { entry: false, stub: false };
  return { entry: true, stub: isStubFunction(fn, python) };
}

/** Size, complexity, nesting and parameter-count findings of one function. */
function checkShape(fn: FunctionFacts, wrapper: boolean, note: Note): void {
  if (wrapper) note("trivial-wrapper", fn.line, `${fn.name} only forwards a call`);
  if (fn.complexity > 10)
    note("complex-function", fn.line, `${fn.name}: complexity ${fn.complexity}`);
  if (fn.lines > 50) note("long-function", fn.line, `${fn.name}: ${fn.lines} lines`);
  if (fn.nesting > 3) note("deep-nesting", fn.line, `${fn.name}: ${fn.nesting} nested blocks`);
  if (fn.params.length > 5)
    note("many-parameters", fn.line, `${fn.name}: ${fn.params.length} parameters`);
}

/**
 * Records the parameters' names and reports those the body never reads. An expression-bodied
 * arrow's parameters are read where they are declared (`rows.map((r) => r.id)`), so their names
 * are not weighed as declarations.
 */
function checkParameters(fn: FunctionFacts, unit: SourceUnit, note: Note, names: NamedAt[]) {
  for (const p of fn.params) {
    if (!fn.expression) names.push({ name: p, file: unit.path, line: fn.line });
    if (p.startsWith("_")) continue;
    if (
      !new RegExp(`(?<![\\w$.])${p.replace(/\$/g, "\\$")}(?![\\w$])`).test(
        unit.text.slice(fn.start, fn.end),
      )
    )
      note("unused-parameter", fn.line, `${fn.name}(${p}) never reads ${p}`);
  }
}

/** A public Python function without a docstring, or without any type hint. */
function checkPythonDocs(fn: FunctionFacts, { text, code }: SourceUnit, note: Note): void {
  const firstLine = text
    .slice(fn.start)
    .split("\n")
    .find((l) => l.trim());
  if (!/^\s*[rubf]*("""|''')/i.test(firstLine ?? ""))
    note("missing-docstring", fn.line, `${fn.name} has no docstring`);
  const header = code.slice(code.lastIndexOf("def", fn.start), fn.start);
  if (
    !header.includes("->") &&
    !/:\s*\w/.test(header.slice(header.indexOf("("), header.lastIndexOf(")")))
  )
    note("missing-type-hints", fn.line, `${fn.name} has no type hints`);
}

/** Measures one file's functions, reporting their findings in declaration order. */
export function measureFunctions(unit: SourceUnit, note: Note): FunctionTally {
  const { python } = unit;
  const facts = describeFunctions(unit.code, python, unit.spans);
  markExported(facts, unit);
  const tally: FunctionTally = {
    functions: [],
    wrappers: [],
    publicNames: [],
    names: [],
    entryPoints: 0,
    stubEntryPoints: 0,
  };
  if (unit.test) return tally;
  const found: HandlerMap = python
    ? { handlers: new Set(), middleware: new Set(), apps: new Set() }
    : findHandlers(unit.code, facts);
  for (const fn of facts) {
    tally.functions.push(fn);
    // An expression-bodied arrow is a callback or a one-expression helper, not a wrapper.
    const wrapper = !fn.expression && isWrapper(fn.body, python);
    if (wrapper) tally.wrappers.push(fn);
    if (fn.exported) tally.publicNames.push(fn.name);
    if (fn.exported && isStubFunction(fn, python))
      note("stub-function", fn.line, `${fn.name} does nothing with its input`);
    const entry = classifyEntryPoint(fn, facts, found, python, note);
    if (entry.entry) tally.entryPoints += 1;
    if (entry.entry && entry.stub) tally.stubEntryPoints += 1;
    checkShape(fn, wrapper, note);
    checkParameters(fn, unit, note, tally.names);
    // A `const` arrow's name is already a declared name (collectDeclaredNames).
    if (fn.name !== "(anonymous)" && fn.name !== "(arrow)" && !fn.expression)
      tally.names.push({ name: fn.name, file: unit.path, line: fn.line });
    if (python && fn.exported) checkPythonDocs(fn, unit, note);
  }
  return tally;
}
