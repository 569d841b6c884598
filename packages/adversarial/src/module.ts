/**
 * @module adversarial/module
 * Candidates for a library-style interface (functions of one module), the same for Node and
 * Python: wrong types must raise the declared error; empty and boundary values must either
 * work or raise it; hostile keys must not reach a prototype; oversized input must finish within
 * the test's time limit without a crash; concurrent and interleaved calls of a pure function
 * must agree; a pure function must not mutate its arguments. Every test that accepts a refusal
 * (rejects, graceful, no-pollution, no-mutation) also makes the interface's valid example call in
 * the same test and requires it to succeed (with the declared `exampleResult`, when there is
 * one): all or nothing, so code that refuses everything passes none of them. Pure.
 */
import type { FunctionSpec, ModuleInterface, ParamSpec, Runtime } from "@bouts/contracts";
import { slug, uniqueIds, type Candidate } from "./candidate.ts";
import {
  boundaryValues,
  describeValue,
  HOSTILE_OBJECTS,
  INJECTION_STRINGS,
  json,
  wrongTypeValues,
  type TestValue,
} from "./values.ts";

/**
 * The valid call a refusal test pairs with its hostile one: the interface's example arguments,
 * and the result they must give when the interface declares it (else: any result, no error).
 */
export interface ValidCall {
  args: TestValue[];
  result?: TestValue;
}

/** What one module test does. */
export type ModuleOp =
  | { op: "rejects"; fn: string; error: string; args: TestValue[]; valid: ValidCall }
  | { op: "graceful"; fn: string; error: string; args: TestValue[]; valid: ValidCall }
  | { op: "no-pollution"; fn: string; error: string; args: TestValue[]; valid: ValidCall }
  | { op: "consistent"; fn: string; args: TestValue[]; calls: number }
  | { op: "interleaved"; fn: string; args: TestValue[]; other: TestValue[] }
  | { op: "no-mutation"; fn: string; args: TestValue[]; valid: ValidCall };

export type ModuleCandidate = Candidate<ModuleOp>;

/** The valid call every variation starts from (a variadic last parameter is passed twice). */
function baseArgs(f: FunctionSpec): TestValue[] {
  const args = f.params.map((p) => json(p.example));
  if (f.variadic && f.params.length > 0) args.push(json(f.params.at(-1)!.example));
  return args;
}

/** The paired valid call of `f`: its example arguments and, if declared, its example result. */
function validCall(f: FunctionSpec): ValidCall {
  return f.exampleResult === undefined
    ? { args: baseArgs(f) }
    : { args: baseArgs(f), result: json(f.exampleResult) };
}

function withArg(f: FunctionSpec, i: number, v: TestValue): TestValue[] {
  const args = baseArgs(f);
  args[i] = v;
  return args;
}

/** A valid call with other values, for interleaving: every string, number and list changed. */
function otherExample(v: unknown): unknown {
  if (typeof v === "string") return v.length > 0 ? v.slice(0, -1) : "x";
  if (typeof v === "number") return v === 0 ? 1 : Math.max(0, Math.floor(v / 2));
  if (Array.isArray(v)) return v.length > 1 ? v.slice(1) : v;
  if (v && typeof v === "object")
    return {
      ...Object.fromEntries(Object.entries(v).map(([k, x]) => [k, otherExample(x)])),
      zz: 1,
    };
  return v;
}

function paramCandidates(f: FunctionSpec, i: number, p: ParamSpec): ModuleCandidate[] {
  const out: ModuleCandidate[] = [];
  const t = f.name;
  const e = f.invalidInputError;
  const add = (c: Omit<ModuleCandidate, "target" | "priority">) =>
    out.push({ ...c, target: t, priority: 0 });
  for (const v of wrongTypeValues(p.type).slice(0, 3)) {
    add({
      id: `gen-wt-${slug(t)}-${slug(p.name)}-${slug(describeValue(v))}`,
      severity: "medium",
      technique: "wrong-type",
      key: `wrong-type:${t}:${p.name}`,
      title: `${t} raises ${e} when ${p.name} is ${describeValue(v)}`,
      defaultRationale: `declared interface: ${p.name} is ${p.type}; a weak type assumption crashes here`,
      op: { op: "rejects", fn: t, error: e, args: withArg(f, i, v), valid: validCall(f) },
    });
  }
  for (const b of boundaryValues(p)) {
    add({
      id: `gen-eb-${slug(t)}-${slug(p.name)}-${slug(b.label)}`,
      severity: "low",
      technique: "empty-boundary",
      key: `empty-boundary:${t}:${p.name}`,
      title: b.mustReject
        ? `${t} raises ${e} when ${p.name} is ${b.label}`
        : `${t} handles ${p.name} as ${b.label} (a result or ${e})`,
      defaultRationale: `declared interface: the edge of ${p.name}'s domain`,
      op: {
        op: b.mustReject ? "rejects" : "graceful",
        fn: t,
        error: e,
        args: withArg(f, i, b.value),
        valid: validCall(f),
      },
    });
  }
  if (p.type === "string") {
    for (const s of INJECTION_STRINGS.slice(0, 4)) {
      add({
        id: `gen-inj-${slug(t)}-${slug(p.name)}-${slug(s.label)}`,
        severity: "medium",
        technique: "injection",
        key: `injection:${t}:${p.name}`,
        title: `${t} handles ${s.label} in ${p.name} (a result or ${e})`,
        defaultRationale: `declared interface: ${p.name} is free text`,
        op: {
          op: "graceful",
          fn: t,
          error: e,
          args: withArg(f, i, json(s.text)),
          valid: validCall(f),
        },
      });
    }
    add({
      id: `gen-big-${slug(t)}-${slug(p.name)}`,
      severity: "medium",
      technique: "oversized",
      key: `oversized:${t}:${p.name}`,
      title: `${t} handles a 1,000,000-character ${p.name} in time (a result or ${e})`,
      defaultRationale: "declared interface: unbounded text input",
      op: {
        op: p.maxLength !== undefined ? "rejects" : "graceful",
        fn: t,
        error: e,
        args: withArg(f, i, { kind: "repeat-string", char: "9", times: 1_000_000 }),
        valid: validCall(f),
      },
    });
  }
  if (p.type === "object") {
    for (const h of HOSTILE_OBJECTS) {
      add({
        id: `gen-inj-${slug(t)}-${slug(p.name)}-${slug(h.label)}`,
        severity: "critical",
        technique: "injection",
        key: `injection:${t}:${p.name}`,
        title: `${t} keeps ${h.label} in ${p.name} away from every prototype`,
        defaultRationale: "declared interface: object keys come from the caller",
        op: {
          op: "no-pollution",
          fn: t,
          error: e,
          args: withArg(f, i, { kind: "hostile-json", text: h.text }),
          valid: validCall(f),
        },
      });
    }
    for (const v of [
      { kind: "wide-object", keys: 100_000 },
      { kind: "deep-object", depth: 10_000 },
    ] satisfies TestValue[]) {
      add({
        id: `gen-big-${slug(t)}-${slug(p.name)}-${v.kind}`,
        severity: "medium",
        technique: "oversized",
        key: `oversized:${t}:${p.name}`,
        title: `${t} handles ${describeValue(v)} as ${p.name} in time (a result or ${e})`,
        defaultRationale: "declared interface: object size and depth come from the caller",
        op: { op: "graceful", fn: t, error: e, args: withArg(f, i, v), valid: validCall(f) },
      });
    }
  }
  if (p.type === "array") {
    const item = Array.isArray(p.example) && p.example.length > 0 ? p.example[0] : 1;
    add({
      id: `gen-big-${slug(t)}-${slug(p.name)}`,
      severity: "medium",
      technique: "oversized",
      key: `oversized:${t}:${p.name}`,
      title: `${t} handles a 200,000-item ${p.name} in time (a result or ${e})`,
      defaultRationale: "declared interface: list length comes from the caller",
      op: {
        op: "graceful",
        fn: t,
        error: e,
        args: withArg(f, i, { kind: "repeat-array", item, times: 200_000 }),
        valid: validCall(f),
      },
    });
  }
  return out;
}

function functionCandidates(f: FunctionSpec, runtime: Runtime): ModuleCandidate[] {
  const out = f.params.flatMap((p, i) => paramCandidates(f, i, p));
  const t = f.name;
  // A variadic parameter may be given zero times, so it never makes a call "missing arguments".
  const fixed = f.variadic ? f.params.slice(0, -1) : f.params;
  const required = fixed.filter((p) => !p.optional).length;
  // In Python a missing argument is the interpreter's TypeError, not the function's behaviour.
  if (required > 0 && runtime === "node22")
    out.push({
      id: `gen-eb-${slug(t)}-no-arguments`,
      severity: "low",
      technique: "empty-boundary",
      key: `empty-boundary:${t}`,
      target: t,
      priority: 0,
      title: `${t} raises ${f.invalidInputError} when called with no arguments`,
      defaultRationale: "declared interface: required parameters may be missing",
      op: { op: "rejects", fn: t, error: f.invalidInputError, args: [], valid: validCall(f) },
    });
  if (f.pure) {
    out.push(
      {
        id: `gen-cc-${slug(t)}-concurrent`,
        severity: "medium",
        technique: "concurrent",
        key: `concurrent:${t}`,
        target: t,
        priority: 0,
        title: `${t} gives the same result to 64 concurrent calls`,
        defaultRationale: "declared pure: concurrent calls must not share state",
        op: { op: "consistent", fn: t, args: baseArgs(f), calls: 64 },
      },
      {
        id: `gen-cc-${slug(t)}-interleaved`,
        severity: "medium",
        technique: "concurrent",
        key: `concurrent:${t}`,
        target: t,
        priority: 0,
        title: `${t} keeps no state between interleaved calls`,
        defaultRationale: "declared pure: a call must not see the one before it",
        op: {
          op: "interleaved",
          fn: t,
          args: baseArgs(f),
          other: baseArgs(f).map((v) => (v.kind === "json" ? json(otherExample(v.value)) : v)),
        },
      },
    );
    if (f.params.some((p) => p.type === "object" || p.type === "array"))
      out.push({
        id: `gen-mut-${slug(t)}-arguments`,
        severity: "high",
        technique: "mutation",
        key: `mutation:${t}`,
        target: t,
        priority: 0,
        title: `${t} leaves its arguments unchanged`,
        defaultRationale: "declared pure: mutating the caller's data corrupts it",
        op: { op: "no-mutation", fn: t, args: baseArgs(f), valid: validCall(f) },
      });
  }
  return out;
}

/** Every candidate test for a module interface, with unique ids. */
export function buildModuleCandidates(iface: ModuleInterface, runtime: Runtime): ModuleCandidate[] {
  return uniqueIds(iface.functions.flatMap((f) => functionCandidates(f, runtime)));
}
