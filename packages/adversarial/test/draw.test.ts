/**
 * The draw of generated tests cannot be steered by the submission (issue 34, family 4;
 * docs/design.md §31): comments and nonces change nothing, hints only add, and the platform's
 * key decides the base and is reproducible.
 * Invariant: every test here runs the generator's public entry points on text, never code.
 */
import { describe, expect, it } from "vitest";
import type { InterfaceSpec, SourceFile } from "@bouts/contracts";
import { InterfaceSpecSchema } from "@bouts/contracts";
import { stripComments } from "@bouts/judges";
import {
  buildCandidates,
  createDeterministicGenerator,
  deriveBundleDrawKey,
  deriveDrawSeed,
  drawCandidates,
  hintAllowance,
  weightHalves,
  type GenerationInput,
} from "../src/index.ts";

const DEEP_MERGE: InterfaceSpec = InterfaceSpecSchema.parse({
  kind: "module",
  module: "merge.mjs",
  functions: [
    {
      name: "deepMerge",
      params: [{ name: "sources", type: "object", example: { a: { b: 1 } } }],
      variadic: true,
      invalidInputError: "TypeError",
    },
  ],
});

/** deep-merge's partial solution, as the attack used it. */
const PARTIAL = [
  "// Recursive merge; handles the common cases.",
  "export function deepMerge(...sources) {",
  "  const out = {};",
  "  for (const src of sources) mergeInto(out, src);",
  "  return out;",
  "}",
  "function mergeInto(dst, src) {",
  "  for (const key of Object.keys(src)) {",
  "    const v = src[key];",
  "    if (v && typeof v === 'object') {",
  "      if (typeof dst[key] !== 'object' || dst[key] === null) dst[key] = {};",
  "      mergeInto(dst[key], v);",
  "    } else dst[key] = v;",
  "  }",
  "}",
].join("\n");

/** Comments an offline search would try: each names what a hint looks for (a guard, a bound). */
const STEERING_COMMENTS = [
  "// typeof sources is checked by the caller",
  "/* hasOwnProperty guards every key; depth is bounded */",
  "// limit: inputs are small; Array.isArray(sources) upstream",
  "/** visited WeakSet, MAX_DEPTH, Object.create(null) */",
  "// SELECT * FROM t WHERE id = ${id}",
  "// let cache = {};",
];

const src = (path: string, content: string): SourceFile => ({ path, content, truncated: false });

function input(sources: SourceFile[], seed: string): GenerationInput {
  return {
    challengeId: "deep-merge",
    runtime: "node22",
    interface: DEEP_MERGE,
    sources,
    seed,
    budget: { weightHalves: 23, maxTests: 16 },
    exclude: [],
  };
}

async function drawnIds(sources: SourceFile[], seed: string): Promise<string[]> {
  const r = await createDeterministicGenerator().generate(input(sources, seed));
  if (!r.ok) throw new Error(r.error.detail);
  return r.value.suite.tests.map((t) => t.id).sort();
}

const SEED = "5".repeat(64);

describe("comments and nonces do not steer the draw", () => {
  it("draws one set of tests for every comment variant a search could try", async () => {
    const reference = await drawnIds([src("merge.mjs", PARTIAL)], SEED);
    const variants: string[] = [];
    for (const c of STEERING_COMMENTS) {
      variants.push(`${c}\n${PARTIAL}`, `${PARTIAL}\n${c}\n`);
      for (let n = 0; n < 20; n++) variants.push(`${PARTIAL}\n${c} nonce ${n.toString(16)}\n`);
    }
    const sets = new Set<string>();
    for (const v of variants) sets.add(JSON.stringify(await drawnIds([src("merge.mjs", v)], SEED)));
    expect([...sets]).toEqual([JSON.stringify(reference)]);
  });

  it("ignores Python comments and docstrings too", () => {
    const code = 'def f(x):\n    """typeof x, limit"""\n    return x  # depth, visited\n';
    const stripped = stripComments("m.py", code);
    expect(stripped).not.toMatch(/typeof|limit|depth|visited/);
    expect(stripped.split("\n")).toHaveLength(code.split("\n").length);
    expect(stripped).toContain("return x");
  });

  it("keeps strings, templates and regex literals while blanking comments", () => {
    const code = 'const q = "a // b"; const r = /\\/\\*x/; const t = `${q} /* c */`; // gone\n';
    const stripped = stripComments("a.mjs", code);
    expect(stripped).toContain('"a // b"');
    expect(stripped).toContain("/\\/\\*x/");
    expect(stripped).toContain("`${q} /* c */`");
    expect(stripped).not.toContain("gone");
    expect(stripped).toHaveLength(code.length);
  });
});

describe("hints only add", () => {
  const pool = buildCandidates(DEEP_MERGE, "node22");
  if (!pool.ok) throw new Error(pool.detail);

  it("keeps the base whatever the priorities say, and adds within the allowance", () => {
    const blind = pool.value.map((c) => ({ ...c, priority: 0 }));
    const base = drawCandidates(blind, 23, 16, SEED);
    expect(base.added).toEqual([]);
    // Every way of hinting one technique: the base never changes, additions stay bounded.
    for (const technique of new Set(pool.value.map((c) => c.technique))) {
      const hinted = pool.value.map((c) => ({ ...c, priority: c.technique === technique ? 5 : 0 }));
      const d = drawCandidates(hinted, 23, 16, SEED);
      expect(d.base.map((c) => c.id)).toEqual(base.base.map((c) => c.id));
      expect(d.chosen.slice(0, d.base.length).map((c) => c.id)).toEqual(
        base.chosen.map((c) => c.id),
      );
      const allowance = hintAllowance(23, 16);
      expect(d.added.length).toBeLessThanOrEqual(allowance.tests);
      expect(d.added.reduce((s, c) => s + weightHalves(c.severity), 0)).toBeLessThanOrEqual(
        allowance.weightHalves,
      );
      expect(d.added.every((c) => c.technique === technique)).toBe(true);
    }
  });

  it("adds nothing for a challenge that asks for no generated tests, whatever the hints", () => {
    const hinted = pool.value.map((c) => ({ ...c, priority: 5 }));
    expect(hintAllowance(23, 0).tests).toBe(0);
    expect(drawCandidates(hinted, 23, 0, SEED).chosen).toEqual([]);
  });

  it("runs the whole pool when it fits the budget", () => {
    const weight = pool.value.reduce((s, c) => s + weightHalves(c.severity), 0);
    const d = drawCandidates(pool.value, weight, pool.value.length, SEED);
    expect(d.wholePool).toBe(true);
    expect(d.chosen).toHaveLength(pool.value.length);
  });
});

describe("the platform's key decides the draw", () => {
  const bundle = "b".repeat(64);

  it("is reproducible for the same secret and bundle", async () => {
    const a = await deriveDrawSeed(
      await deriveBundleDrawKey("secret-one".repeat(4), bundle),
      bundle,
    );
    const b = await deriveDrawSeed(
      await deriveBundleDrawKey("secret-one".repeat(4), bundle),
      bundle,
    );
    expect(a).toBe(b);
    expect(await drawnIds([src("merge.mjs", PARTIAL)], a)).toEqual(
      await drawnIds([src("merge.mjs", PARTIAL)], b),
    );
  });

  it("draws again under another secret or another bundle version", async () => {
    const seeds = new Set<string>();
    const draws = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const key = await deriveBundleDrawKey(`secret-${i}`.repeat(8), bundle);
      const seed = await deriveDrawSeed(key, bundle);
      seeds.add(seed);
      draws.add(JSON.stringify(await drawnIds([src("merge.mjs", PARTIAL)], seed)));
    }
    expect(seeds.size).toBe(8);
    expect(draws.size).toBeGreaterThan(1);
    const key = await deriveBundleDrawKey("secret-0".repeat(8), bundle);
    expect(await deriveDrawSeed(key, "c".repeat(64))).not.toBe(await deriveDrawSeed(key, bundle));
  });
});
