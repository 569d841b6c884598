/**
 * @module adversarial/write-module
 * Writes module candidates as one node:test file or one pytest file. The helpers at the top
 * of each file are the oracles; every test is one call of one helper. Generated files import
 * the submission's module by its declared path and nothing else of the workspace. Every oracle
 * that accepts a refusal ends with `expectWorks`: the interface's valid example call, in the same
 * test, must succeed (with the declared example result, when there is one), so a function that
 * refuses everything fails every one of them (docs/adversarial-generation.md). Pure.
 */
import type { ModuleInterface } from "@bouts/contracts";
import type { ModuleCandidate, ModuleOp, ValidCall } from "./module.ts";
import { pyString, toJs, toPy, type TestValue } from "./values.ts";

const JS_HELPERS = String.raw`
const J = (s) => JSON.parse(s);
const deep = (n) => { let o = { leaf: 1 }; for (let i = 0; i < n; i++) o = { a: o }; return o; };
const wide = (n) => { const o = {}; for (let i = 0; i < n; i++) o["k" + i] = i; return o; };
const describe = (e) => {
  const name = e?.constructor?.name ?? typeof e;
  return name + ": " + String(e?.message ?? e).slice(0, 200);
};
const preview = (v) => {
  try { return String(JSON.stringify(v)).slice(0, 100); } catch { return typeof v; }
};
function isA(e, expected) {
  if (e === null || typeof e !== "object") return false;
  for (let p = Object.getPrototypeOf(e); p; p = Object.getPrototypeOf(p)) {
    if (p.constructor?.name === expected) return true;
  }
  return false;
}
function fn(name) {
  const f = mod[name] ?? mod.default?.[name];
  if (typeof f !== "function") throw new Error("the module does not export " + name);
  return f;
}
function same(a, b) {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && kb.every((k) => Object.hasOwn(a, k) && same(a[k], b[k]));
}
async function expectWorks(name, valid) {
  let result;
  try { result = await fn(name)(...valid.args()); } catch (e) {
    assert.fail(name + " refused its valid example with " + describe(e) + "; a refusal counts only beside a working call");
  }
  if (valid.result) {
    const expected = valid.result();
    assert.ok(same(result, expected), name + " gave " + preview(result) + " for its valid example instead of " + preview(expected));
  }
}
async function expectRejects(name, args, expected, valid) {
  let thrown = null;
  let result;
  try { result = await fn(name)(...args()); } catch (e) { thrown = { e }; }
  assert.ok(thrown, name + " accepted invalid input and returned " + preview(result) + " instead of throwing " + expected);
  assert.ok(isA(thrown.e, expected), name + " threw " + describe(thrown.e) + " instead of " + expected);
  await expectWorks(name, valid);
}
async function expectGraceful(name, args, expected, valid) {
  try { await fn(name)(...args()); } catch (e) {
    assert.ok(isA(e, expected), name + " failed with " + describe(e) + "; only " + expected + " is a graceful refusal");
  }
  await expectWorks(name, valid);
}
async function expectNoPollution(name, args, expected, valid) {
  let result;
  try { result = await fn(name)(...args()); } catch (e) {
    assert.ok(isA(e, expected), name + " failed with " + describe(e) + "; only " + expected + " is a graceful refusal");
  }
  // Built-in prototypes live in the subject: its probe reports what the call changed.
  assert.deepEqual(pollution(), [], "a built-in prototype was polluted");
  if (result !== null && typeof result === "object") {
    assert.equal(result.polluted, undefined, "the result's prototype chain carries the hostile key");
    const proto = Object.getPrototypeOf(result);
    assert.ok(proto === Object.prototype || proto === null || Array.isArray(result), "the result's prototype was replaced");
  }
  await expectWorks(name, valid);
}
async function expectConsistent(name, args, calls) {
  const first = await fn(name)(...args());
  const all = await Promise.all(Array.from({ length: calls }, async () => fn(name)(...args())));
  for (const r of all) assert.deepStrictEqual(r, first, "concurrent calls disagree");
}
async function expectInterleaved(name, args, other) {
  const first = await fn(name)(...args());
  try { await fn(name)(...other()); } catch {}
  const again = await fn(name)(...args());
  assert.deepStrictEqual(again, first, "the same call gave a different result after another call");
}
async function expectNoMutation(name, args, valid) {
  const given = args();
  const before = structuredClone(given);
  try { await fn(name)(...given); } catch {}
  assert.deepStrictEqual(given, before, name + " changed its arguments");
  await expectWorks(name, valid);
}
`;

function jsArgs(args: TestValue[]): string {
  return `() => [${args.map(toJs).join(", ")}]`;
}

/** The paired valid call as the JS helpers take it: `{ args, result? }`, both thunks. */
function jsValid(v: ValidCall): string {
  const result = v.result === undefined ? "" : `, result: () => ${toJs(v.result)}`;
  return `{ args: ${jsArgs(v.args)}${result} }`;
}

function jsCall(op: ModuleOp): string {
  const n = JSON.stringify(op.fn);
  switch (op.op) {
    case "rejects":
      return `await expectRejects(${n}, ${jsArgs(op.args)}, ${JSON.stringify(op.error)}, ${jsValid(op.valid)});`;
    case "graceful":
      return `await expectGraceful(${n}, ${jsArgs(op.args)}, ${JSON.stringify(op.error)}, ${jsValid(op.valid)});`;
    case "no-pollution":
      return `await expectNoPollution(${n}, ${jsArgs(op.args)}, ${JSON.stringify(op.error)}, ${jsValid(op.valid)});`;
    case "consistent":
      return `await expectConsistent(${n}, ${jsArgs(op.args)}, ${op.calls});`;
    case "interleaved":
      return `await expectInterleaved(${n}, ${jsArgs(op.args)}, ${jsArgs(op.other)});`;
    case "no-mutation":
      return `await expectNoMutation(${n}, ${jsArgs(op.args)}, ${jsValid(op.valid)});`;
  }
}

/** The node:test file for `chosen` (test names are the candidates' titles, prefixed by id). */
export function writeModuleJs(iface: ModuleInterface, chosen: readonly ModuleCandidate[]): string {
  const lines = [
    "// Generated adversarial tests (deterministic generator). Do not edit: rewritten per run.",
    'import { test } from "node:test";',
    'import assert from "node:assert/strict";',
    'import { pollution } from "bouts:subject";',
    `import * as mod from ${JSON.stringify(`../../${iface.module}`)};`,
    JS_HELPERS,
  ];
  for (const c of chosen) {
    lines.push(
      `test(${JSON.stringify(jsTestName(c))}, async () => {`,
      `  ${jsCall(c.op)}`,
      "});",
      "",
    );
  }
  return lines.join("\n");
}

/** The name a node:test candidate runs under. */
export function jsTestName(c: { id: string; title: string }): string {
  return `${c.id}: ${c.title}`;
}

/** The pytest function name of a candidate. */
export function pyTestName(c: { id: string }): string {
  return `test_${c.id.replace(/[^a-z0-9]/g, "_")}`;
}

const PY_HELPERS = `
def J(text):
    return json.loads(text)


def deep(n):
    o = {"leaf": 1}
    for _ in range(n):
        o = {"a": o}
    return o


def wide(n):
    return {f"k{i}": i for i in range(n)}


def _fn(name):
    f = getattr(_mod, name, None)
    assert callable(f), f"the module does not define {name}"
    return f


def _is_a(e, expected):
    return any(c.__name__ == expected for c in type(e).__mro__)


def _describe(e):
    return f"{type(e).__name__}: {str(e)[:200]}"


def _same(a, b):
    if isinstance(b, bool) or b is None:
        return a is b
    if isinstance(b, (int, float)):
        return not isinstance(a, bool) and isinstance(a, (int, float)) and a == b
    if isinstance(b, str):
        return isinstance(a, str) and a == b
    if isinstance(b, list):
        return isinstance(a, (list, tuple)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in b)
    return False


def expect_works(name, valid):
    args, result = valid
    try:
        got = _fn(name)(*args())
    except Exception as e:  # noqa: BLE001 - any refusal of the valid example fails the test
        raise AssertionError(f"{name} refused its valid example with {_describe(e)}; a refusal counts only beside a working call") from None
    if result is not None:
        expected = result()
        assert _same(got, expected), f"{name} gave {str(got)[:100]} for its valid example instead of {str(expected)[:100]}"


def expect_rejects(name, args, expected, valid):
    try:
        result = _fn(name)(*args())
    except Exception as e:  # noqa: BLE001 - the oracle inspects every exception
        assert _is_a(e, expected), f"{name} raised {_describe(e)} instead of {expected}"
        expect_works(name, valid)
        return
    raise AssertionError(f"{name} accepted invalid input and returned {str(result)[:100]} instead of raising {expected}")


def _graceful(name, args, expected):
    try:
        _fn(name)(*args())
    except Exception as e:  # noqa: BLE001
        assert _is_a(e, expected), f"{name} failed with {_describe(e)}; only {expected} is a graceful refusal"


def expect_graceful(name, args, expected, valid):
    _graceful(name, args, expected)
    expect_works(name, valid)


def expect_no_pollution(name, args, expected, valid):
    _graceful(name, args, expected)
    assert pollution() == [], "a built-in was given a hostile attribute"
    expect_works(name, valid)


def expect_consistent(name, args, calls):
    first = _fn(name)(*args())
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: _fn(name)(*args()), range(calls)))
    for r in results:
        assert r == first, "concurrent calls disagree"


def expect_interleaved(name, args, other):
    first = _fn(name)(*args())
    try:
        _fn(name)(*other())
    except Exception:  # noqa: BLE001
        pass
    assert _fn(name)(*args()) == first, "the same call gave a different result after another call"


def expect_no_mutation(name, args, valid):
    given = args()
    before = copy.deepcopy(given)
    try:
        _fn(name)(*given)
    except Exception:  # noqa: BLE001
        pass
    assert given == before, f"{name} changed its arguments"
    expect_works(name, valid)
`;

function pyArgs(args: TestValue[]): string {
  return `lambda: [${args.map(toPy).join(", ")}]`;
}

/** The paired valid call as the Python helpers take it: `(args, result or None)`, thunks. */
function pyValid(v: ValidCall): string {
  const result = v.result === undefined ? "None" : `lambda: ${toPy(v.result)}`;
  return `(${pyArgs(v.args)}, ${result})`;
}

function pyCall(op: ModuleOp): string {
  const n = pyString(op.fn);
  switch (op.op) {
    case "rejects":
      return `expect_rejects(${n}, ${pyArgs(op.args)}, ${pyString(op.error)}, ${pyValid(op.valid)})`;
    case "graceful":
      return `expect_graceful(${n}, ${pyArgs(op.args)}, ${pyString(op.error)}, ${pyValid(op.valid)})`;
    case "no-pollution":
      return `expect_no_pollution(${n}, ${pyArgs(op.args)}, ${pyString(op.error)}, ${pyValid(op.valid)})`;
    case "consistent":
      return `expect_consistent(${n}, ${pyArgs(op.args)}, ${op.calls})`;
    case "interleaved":
      return `expect_interleaved(${n}, ${pyArgs(op.args)}, ${pyArgs(op.other)})`;
    case "no-mutation":
      return `expect_no_mutation(${n}, ${pyArgs(op.args)}, ${pyValid(op.valid)})`;
  }
}

/** The pytest file for `chosen`. */
export function writeModulePy(iface: ModuleInterface, chosen: readonly ModuleCandidate[]): string {
  const moduleName = iface.module.replace(/\.py$/, "").replace(/\//g, ".");
  const lines = [
    "# Generated adversarial tests (deterministic generator). Do not edit: rewritten per run.",
    "import concurrent.futures",
    "import copy",
    "import importlib",
    "import json",
    "from bouts_subject import pollution",
    "",
    `_mod = importlib.import_module(${pyString(moduleName)})`,
    PY_HELPERS,
  ];
  for (const c of chosen) {
    lines.push(
      "",
      `def ${pyTestName(c)}():`,
      `    """${c.title.replace(/\\/g, "").replace(/"/g, "'")}"""`,
      `    ${pyCall(c.op)}`,
      "",
    );
  }
  return lines.join("\n");
}
