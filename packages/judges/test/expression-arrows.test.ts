/**
 * Expression-bodied arrows (`(c) => c.json(x)`) are functions the analysis sees: as a call's
 * argument or bound by `const`, their span the expression. They are measured (complexity, unused
 * parameters, stubs) without moving honest code's other figures: no trivial wrappers, no mean
 * length, no declared names, and top-level work beside them is still work.
 */
import { describe, expect, it } from "vitest";
import { measureCode } from "../src/index.ts";
import { findFunctions, maskSource } from "../src/source-text.ts";

const spans = (text: string) => {
  const src = maskSource("lib.mjs", text);
  return findFunctions(src)
    .filter((f) => f.expression)
    .map((f) => ({ name: f.name, params: f.params, body: text.slice(f.start, f.end) }));
};
const measure = (content: string) => measureCode([{ path: "lib.mjs", content }]);

describe("expression-bodied arrows", () => {
  it("are found as call arguments and const bindings, the span their expression", () => {
    expect(
      spans(`app.get("/", (c) => c.json(rows.map((r) => r.id)), next);
const pick = (o) => o.a
  ? o.b
  : o.c
const later = 1;
export const total = async ({ items }, rate) => items.length * rate;
const block = (x) => {
  return x;
};
`),
    ).toEqual([
      { name: "(arrow)", params: ["c"], body: "c.json(rows.map((r) => r.id))" },
      { name: "(arrow)", params: ["r"], body: "r.id" },
      { name: "pick", params: ["o"], body: "o.a\n  ? o.b\n  : o.c" },
      { name: "total", params: ["rate"], body: "items.length * rate" },
    ]);
  });

  it("carry their own complexity and unused parameters", () => {
    const m = measure(`/** Labels each row. */
export function label(rows) {
  return rows.map((row, index) => (row.ok ? "ok" : row.late ? "late" : "bad"));
}
`);
    expect(m.maxComplexity).toBe(3);
    expect(m.findings.filter((f) => f.rule === "unused-parameter").map((f) => f.detail)).toEqual([
      "(arrow)(index) never reads index",
    ]);
  });

  it("are never wrappers, stay out of the mean length and add no declared names", () => {
    const m = measure(`/** Ids of the rows, and the valid ones. */
export function ids(rows) {
  const valid = rows.filter((r) => check(r)).map((r) => r.id);
  return { all: rows.map((r) => r.id), valid };
}

const check = (r) => validate(r);
`);
    expect(m.findings.map((f) => f.rule)).not.toContain("trivial-wrapper");
    expect(m.findings.map((f) => f.rule)).not.toContain("cryptic-name");
    expect(m.meanFunctionLines).toBe(2);
  });

  it("leave top-level work beside them visible", () => {
    const m = measure(`start().then((server) => server.listen(8080));\n`);
    expect(m.findings.map((f) => f.rule)).toContain("import-side-effect");
  });

  it("are stubs when they return a constant", () => {
    const m = measure(`export const total = (items) => 0;\n`);
    expect([m.stubFunctions, m.doNothing]).toEqual([1, true]);
  });
});
