/**
 * @module adversarial/values
 * Test values described once and written out in JavaScript or Python, so both runtimes get
 * the same catalogue: JSON values (always rebuilt with a JSON parser, so a `__proto__` key is
 * an own key and not a prototype), special numbers, and large values built at run time
 * instead of being spelled out in the file. Pure.
 */
import type { ParamSpec, ValueType } from "@bouts/contracts";

/** A value a generated test passes. */
export type TestValue =
  | { kind: "json"; value: unknown }
  | { kind: "undefined" }
  | { kind: "nan" }
  | { kind: "infinity"; negative: boolean }
  | { kind: "big-integer" }
  | { kind: "fraction" }
  | { kind: "repeat-string"; char: string; times: number }
  | { kind: "repeat-array"; item: unknown; times: number }
  | { kind: "wide-object"; keys: number }
  | { kind: "deep-object"; depth: number }
  | { kind: "hostile-json"; text: string };

/** JSON value shorthand. */
export const json = (value: unknown): TestValue => ({ kind: "json", value });

/** A string literal, the same text in JavaScript and Python (JSON escapes are valid in both). */
const stringLiteral = (s: string): string => JSON.stringify(s);

/** A Python string literal for any text (JSON string escapes are valid Python escapes). */
export function pyString(s: string): string {
  return stringLiteral(s);
}

/** What a value's expression spells differently in each language; the rest is shared. */
interface ValueSyntax {
  undefined: string;
  nan: string;
  infinity: string;
  negativeInfinity: string;
  bigInteger: string;
  repeatString(literal: string, times: number): string;
  repeatArray(item: string, times: number): string;
}

const JS_SYNTAX: ValueSyntax = {
  undefined: "undefined",
  nan: "NaN",
  infinity: "Infinity",
  negativeInfinity: "-Infinity",
  bigInteger: "Number.MAX_SAFE_INTEGER",
  repeatString: (literal, times) => `${literal}.repeat(${times})`,
  repeatArray: (item, times) => `Array.from({ length: ${times} }, () => ${item})`,
};

const PY_SYNTAX: ValueSyntax = {
  undefined: "None",
  nan: 'float("nan")',
  infinity: 'float("inf")',
  negativeInfinity: 'float("-inf")',
  bigInteger: "2**63",
  repeatString: (literal, times) => `${literal} * ${times}`,
  repeatArray: (item, times) => `[${item} for _ in range(${times})]`,
};

/** A value as an expression in the language `syntax` spells (helpers `J`, `deep`, `wide`). */
function writeValue(v: TestValue, syntax: ValueSyntax): string {
  const parsed = (text: string) => `J(${stringLiteral(text)})`;
  switch (v.kind) {
    case "json":
      return parsed(JSON.stringify(v.value));
    case "undefined":
      return syntax.undefined;
    case "nan":
      return syntax.nan;
    case "infinity":
      return v.negative ? syntax.negativeInfinity : syntax.infinity;
    case "big-integer":
      return syntax.bigInteger;
    case "fraction":
      return "0.5";
    case "repeat-string":
      return syntax.repeatString(stringLiteral(v.char), v.times);
    case "repeat-array":
      return syntax.repeatArray(parsed(JSON.stringify(v.item)), v.times);
    case "wide-object":
      return `wide(${v.keys})`;
    case "deep-object":
      return `deep(${v.depth})`;
    case "hostile-json":
      return parsed(v.text);
  }
}

/** Writes a value as a JavaScript expression (helpers `J`, `deep`, `wide` are in the file). */
export function toJs(v: TestValue): string {
  return writeValue(v, JS_SYNTAX);
}

/** Writes a value as a Python expression (helpers `J`, `deep`, `wide` are in the file). */
export function toPy(v: TestValue): string {
  return writeValue(v, PY_SYNTAX);
}

/** A short human description of a value, for test names. */
export function describeValue(v: TestValue): string {
  switch (v.kind) {
    case "json": {
      const s = JSON.stringify(v.value);
      return s.length > 24 ? `${s.slice(0, 21)}…` : s;
    }
    case "undefined":
      return "undefined";
    case "nan":
      return "NaN";
    case "infinity":
      return v.negative ? "-Infinity" : "Infinity";
    case "big-integer":
      return "a 2^53+ integer";
    case "fraction":
      return "0.5";
    case "repeat-string":
      return `a ${v.times.toLocaleString("en-US")}-character string`;
    case "repeat-array":
      return `a ${v.times.toLocaleString("en-US")}-item array`;
    case "wide-object":
      return `an object with ${v.keys.toLocaleString("en-US")} keys`;
    case "deep-object":
      return `an object nested ${v.depth.toLocaleString("en-US")} levels deep`;
    case "hostile-json":
      return v.text.length > 32 ? `${v.text.slice(0, 29)}…` : v.text;
  }
}

/** Values of the wrong type for a declared type, most telling first (null is always first). */
export function wrongTypeValues(type: ValueType): TestValue[] {
  const byType: Record<ValueType, unknown[]> = {
    string: [null, 42, ["text"], { text: "x" }],
    integer: [null, "12", [12], true],
    number: [null, "1.5", [1.5], { n: 1 }],
    boolean: [null, "true", 1],
    object: [null, 42, "text", ["a"]],
    array: [null, "1,2", { 0: 1, length: 1 }, 7],
  };
  return byType[type].map(json);
}

/** Values at the edge of a parameter's declared domain, each with the outcome it must get. */
export function boundaryValues(
  p: ParamSpec,
): { value: TestValue; mustReject: boolean; label: string }[] {
  const out: { value: TestValue; mustReject: boolean; label: string }[] = [];
  switch (p.type) {
    case "string": {
      const min = p.minLength ?? 0;
      out.push({ value: json(""), mustReject: min > 0, label: "an empty string" });
      out.push({ value: json("   "), mustReject: false, label: "whitespace only" });
      if (p.maxLength !== undefined && p.maxLength <= 100_000) {
        out.push({
          value: { kind: "repeat-string", char: "a", times: p.maxLength },
          mustReject: false,
          label: `exactly ${p.maxLength} characters`,
        });
        out.push({
          value: { kind: "repeat-string", char: "a", times: p.maxLength + 1 },
          mustReject: true,
          label: `${p.maxLength + 1} characters`,
        });
      }
      break;
    }
    case "integer":
    case "number": {
      out.push({ value: json(0), mustReject: p.min !== undefined && p.min > 0, label: "zero" });
      out.push({ value: json(-1), mustReject: p.min !== undefined && p.min > -1, label: "-1" });
      out.push({
        value: { kind: "big-integer" },
        mustReject: p.max !== undefined && p.max < Number.MAX_SAFE_INTEGER,
        label: "a very large integer",
      });
      out.push({ value: { kind: "nan" }, mustReject: true, label: "NaN" });
      out.push({
        value: { kind: "infinity", negative: false },
        mustReject: true,
        label: "Infinity",
      });
      if (p.type === "integer")
        out.push({ value: { kind: "fraction" }, mustReject: true, label: "a fraction" });
      break;
    }
    case "array":
      out.push({ value: json([]), mustReject: false, label: "an empty array" });
      break;
    case "object":
      out.push({ value: json({}), mustReject: false, label: "an empty object" });
      out.push({ value: json({ a: null }), mustReject: false, label: "a null member" });
      break;
    case "boolean":
      break;
  }
  return out;
}

/** Strings that break naive parsing, quoting or escaping. */
export const INJECTION_STRINGS: { text: string; label: string; sql: boolean }[] = [
  { text: "' OR '1'='1", label: "a SQL tautology", sql: true },
  { text: "x'); DROP TABLE users; --", label: "a stacked SQL statement", sql: true },
  { text: "%' OR 1=1 --", label: "a LIKE-pattern injection", sql: true },
  { text: "<script>alert(1)</script>", label: "a script tag", sql: false },
  { text: "../../../../etc/passwd", label: "a path traversal", sql: false },
  { text: "%s%s%s%n{0}{__class__}", label: "format directives", sql: false },
  { text: "\u0000\u202e\ufeff𝔘ñ", label: "NUL, bidi and astral characters", sql: false },
];

/** Objects whose keys try to reach a prototype (JSON text, so the keys stay own keys). */
export const HOSTILE_OBJECTS: { text: string; label: string }[] = [
  { text: '{"__proto__":{"polluted":"yes"}}', label: "a __proto__ key" },
  {
    text: '{"constructor":{"prototype":{"polluted":"yes"}}}',
    label: "a constructor.prototype path",
  },
  { text: '{"a":{"__proto__":{"polluted":"yes"}}}', label: "a nested __proto__ key" },
];
