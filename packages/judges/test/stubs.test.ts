/**
 * Stub detection (docs/design.md §33): a function whose first statement throws or raises
 * (whatever the error class) or that returns a constant does nothing, whatever its docstring or
 * JSDoc says; a submission whose every entry point is such a stub gets no code-quality credit.
 * Honest small functions — a correct one-liner, a function that throws only on invalid input —
 * are not stubs.
 */
import { describe, expect, it } from "vitest";
import { measureCode, type SourceFile } from "../src/index.ts";
import { gradeCodeQuality } from "./grade.ts";

const js = (content: string): SourceFile[] => [{ path: "lib.mjs", content }];
const py = (content: string): SourceFile[] => [{ path: "lib.py", content }];
const stubs = (files: SourceFile[]) => {
  const m = measureCode(files);
  return { stubs: m.stubFunctions, doNothing: m.doNothing };
};

describe("stub detection", () => {
  it("finds a TypeError stub with JSDoc (JS)", () => {
    const files = js(`/**
 * Deep-merges plain objects into a new object; later sources win.
 * @param {...object} sources the objects to merge
 * @returns {object} the merged object
 */
export function deepMerge(...sources) {
  throw new TypeError(\`deepMerge: bad input \${sources.length}\`);
}
`);
    expect(stubs(files)).toEqual({ stubs: 1, doNothing: true });
  });

  it("finds a ValueError stub with a docstring (Python)", () => {
    const files = py(`def parse_amount(text: str) -> int:
    """Parse a decimal amount such as "1,234.50" into integer cents.

    Raises ValueError for anything that is not a plain amount.
    """
    raise ValueError(f"not a valid amount: {text!r}")
`);
    expect(stubs(files)).toEqual({ stubs: 1, doNothing: true });
  });

  it("finds functions that return a constant, in both languages", () => {
    expect(stubs(js(`export function total(items) {\n  return 0;\n}\n`))).toEqual({
      stubs: 1,
      doNothing: true,
    });
    expect(
      stubs(js(`export function settings(a) {\n  return { ok: true, list: [1, "x"] };\n}\n`)),
    ).toEqual({ stubs: 1, doNothing: true });
    expect(
      stubs(py(`def split(total: int, weights: list) -> list:\n    """Split."""\n    return []\n`)),
    ).toEqual({ stubs: 1, doNothing: true });
  });

  it("finds a request handler that answers from the URL alone", () => {
    const files = js(`import http from "node:http";
/** Builds the notes service. */
export function createApp() {
  const server = http.createServer((req, res) => {
    const status = req.url?.startsWith("/notes") ? 401 : 400;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "invalid request" }));
  });
  return { server, db: null };
}
`);
    expect(measureCode(files).doNothing).toBe(true);
  });

  it("leaves honest small functions alone", () => {
    const honest = js(`/** The sum of two numbers. */
export function add(a, b) {
  return a + b;
}

/** A greeting; the name is checked. */
export function greet(name) {
  if (typeof name !== "string") throw new TypeError("name must be a string");
  return \`hello \${name}\`;
}

/** Doubles every item. */
export function double(items) {
  return items.map((x) => x * 2);
}
`);
    expect(stubs(honest)).toEqual({ stubs: 0, doNothing: false });
    const honestPy = py(`def cents(amount: str) -> int:
    """Integer cents of a plain amount."""
    if not amount.isdigit():
        raise ValueError("not a plain amount")
    return int(amount) * 100


def label(cents: int) -> str:
    """The amount as text."""
    return f"{cents // 100}.{cents % 100:02d}"
`);
    expect(stubs(honestPy)).toEqual({ stubs: 0, doNothing: false });
  });

  it("leaves a handler that reads the request or a store alone", () => {
    const files = js(`import http from "node:http";
export function createApp() {
  const notes = [];
  const server = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(notes));
  });
  return { server };
}
`);
    expect(measureCode(files).doNothing).toBe(false);
  });

  it("gives a do-nothing submission no code-quality credit, and honest code keeps it", async () => {
    const stub = js(`/**
 * Parses an amount.
 * @param {string} text the amount
 * @returns {number} cents
 */
export function parseAmount(text) {
  throw new TypeError(\`not an amount: \${text}\`);
}
`);
    const honest = js(`/**
 * Parses an amount of whole units into cents.
 * @param {string} text the amount
 * @returns {number} cents
 */
export function parseAmount(text) {
  if (typeof text !== "string" || !/^\\d{1,9}$/.test(text)) throw new TypeError("not an amount");
  return Number(text) * 100;
}
`);
    expect(await gradeCodeQuality(stub)).toBe(0);
    expect(await gradeCodeQuality(honest)).toBeGreaterThanOrEqual(90);
  });
});
