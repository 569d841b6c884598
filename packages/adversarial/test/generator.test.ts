import { describe, expect, it } from "vitest";
import type { InterfaceSpec, SourceFile } from "@bouts/contracts";
import { GeneratedSuiteSchema, InterfaceSpecSchema } from "@bouts/contracts";
import {
  buildCandidates,
  composeGeneratedTests,
  computeGeneratedBudget,
  createDeterministicGenerator,
  readCodeHints,
  selectCandidates,
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

const NOTES: InterfaceSpec = InterfaceSpecSchema.parse({
  kind: "http",
  module: "app.mjs",
  factory: "createApp",
  auth: {
    register: {
      method: "POST",
      path: "/register",
      body: { username: "{{user}}", password: "pw-12345678" },
    },
    login: {
      method: "POST",
      path: "/login",
      body: { username: "{{user}}", password: "pw-12345678" },
    },
    tokenField: "token",
  },
  routes: [
    {
      id: "create-note",
      method: "POST",
      path: "/notes",
      auth: true,
      body: [{ name: "title", type: "string", minLength: 1, maxLength: 200, example: "t" }],
      successStatus: 201,
      readBack: { path: "/notes/:id", idField: "id" },
      list: "/notes",
    },
    {
      id: "list-notes",
      method: "GET",
      path: "/notes",
      auth: true,
      query: [{ name: "q", type: "string", optional: true, example: "t" }],
      successStatus: 200,
    },
  ],
});

function input(over: Partial<GenerationInput> = {}): GenerationInput {
  return {
    challengeId: "deep-merge",
    runtime: "node22",
    interface: DEEP_MERGE,
    sources: [],
    seed: "a".repeat(64),
    budget: { weightHalves: 23, maxTests: 16 },
    exclude: [],
    ...over,
  };
}

/** A merge that type-checks, bounds sizes and guards keys: reading it finds nothing to aim at. */
const GUARDED_MERGE = [
  "const MAX_DEPTH = 100;",
  "export function deepMerge(...sources) {",
  "  if (!Array.isArray(sources)) throw new TypeError('x');",
  "  for (const s of sources) if (typeof s !== 'object' || s === null) throw new TypeError('x');",
  "  if (sources.length > 1000) throw new TypeError('too many');",
  "  return Object.assign(Object.create(null), ...sources);",
  "}",
].join("\n");

const src = (path: string, content: string): SourceFile => ({
  path,
  content,
  truncated: false,
});

describe("composition budget", () => {
  it("gives the generated share 60 % of the weight", () => {
    expect(computeGeneratedBudget(28)).toBe(42); // 28 / 70 = 40 %, 42 / 70 = 60 %
    expect(computeGeneratedBudget(20)).toBe(30);
  });
  it("takes the larger neighbour when 1.5 × P is not whole", () => {
    expect(computeGeneratedBudget(15)).toBe(23);
  });
  it("has a standalone budget when nothing is pre-built", () => {
    expect(computeGeneratedBudget(0)).toBe(24);
  });
});

describe("selection", () => {
  const pool = buildCandidates(NOTES, "node22");
  if (!pool.ok) throw new Error(pool.detail);
  it("fills the budget exactly when light candidates allow it, under the count cap", () => {
    const chosen = selectCandidates(pool.value, 42, 30, "seed-1");
    expect(chosen.reduce((s, c) => s + weightHalves(c.severity), 0)).toBe(42);
  });
  it("is a function of the seed", () => {
    const a = selectCandidates(pool.value, 30, 10, "seed-1").map((c) => c.id);
    expect(selectCandidates(pool.value, 30, 10, "seed-1").map((c) => c.id)).toEqual(a);
    const others = ["seed-2", "seed-3", "seed-4"].map((s) =>
      selectCandidates(pool.value, 30, 10, s)
        .map((c) => c.id)
        .join(),
    );
    expect(others.some((o) => o !== a.join())).toBe(true);
  });
  it("draws from several techniques", () => {
    const chosen = selectCandidates(pool.value, 42, 16, "seed-1");
    expect(new Set(chosen.map((c) => c.technique)).size).toBeGreaterThanOrEqual(4);
  });
  it("puts code-hinted candidates first", () => {
    const hinted = pool.value.map((c) => ({ ...c, priority: c.technique === "auth" ? 5 : 0 }));
    expect(selectCandidates(hinted, 6, 1, "s")[0]!.technique).toBe("auth");
  });
});

describe("code reading", () => {
  it("points at interpolated SQL", () => {
    const hints = readCodeHints(
      [src("app.mjs", "const q = db.prepare(`SELECT * FROM notes WHERE title LIKE '%${q}%'`);")],
      { params: new Map(), unique: [] },
    );
    expect(hints.map((h) => h.reason).join()).toMatch(/interpolation at app\.mjs:1/);
  });
  it("points at computed-key writes without a guard, not with one", () => {
    const loose = "function m(d, s) { for (const key in s) d[key] = s[key]; }";
    const guarded = `${loose}\nif (key === "__proto__") return;`;
    const targets = { params: new Map(), unique: [] };
    expect(
      readCodeHints([src("m.mjs", loose)], targets).some((h) => h.keys.includes("injection:*")),
    ).toBe(true);
    expect(
      readCodeHints([src("m.mjs", guarded)], targets).some((h) => h.keys.includes("injection:*")),
    ).toBe(false);
  });
  it("flags parameters that are never type-checked", () => {
    const targets = { params: new Map([["split", ["weights", "total"]]]), unique: [] };
    const hints = readCodeHints(
      [
        src(
          "money.py",
          "def split(total, weights):\n  if not isinstance(total, int): raise ValueError()",
        ),
      ],
      targets,
    );
    const reasons = hints.map((h) => h.reason).join();
    expect(reasons).toMatch(/`weights`/);
    expect(reasons).not.toMatch(/`total`/);
  });
});

describe("deterministic generator", () => {
  const gen = createDeterministicGenerator();
  it("says when the challenge declares no interface", async () => {
    const r = await gen.generate(input({ interface: null }));
    expect(r).toMatchObject({ ok: false, error: { reason: "not-declared" } });
  });
  it("writes a valid suite that fills the budget as far as the pool's weights allow", async () => {
    // Nothing for the code reading to aim at, so the suite is the base draw alone.
    const r = await gen.generate(input({ sources: [src("merge.mjs", GUARDED_MERGE)] }));
    if (!r.ok) throw new Error(r.error.detail);
    const suite = GeneratedSuiteSchema.parse(r.value.suite);
    const weight = suite.tests.reduce((s, t) => s + weightHalves(t.severity), 0);
    expect(weight).toBeLessThanOrEqual(23);
    expect(weight).toBeGreaterThanOrEqual(22);
    expect(suite.files).toHaveLength(1);
    for (const t of suite.tests) expect(suite.files[0]!.content).toContain(JSON.stringify(t.name));
  });
  it("never draws excluded candidates", async () => {
    const all = await gen.generate(input({ budget: { weightHalves: 200, maxTests: 64 } }));
    if (!all.ok) throw new Error(all.error.detail);
    const gone = all.value.suite.tests[0]!.id;
    const r = await gen.generate(
      input({ exclude: [gone], budget: { weightHalves: 200, maxTests: 64 } }),
    );
    if (!r.ok) throw new Error(r.error.detail);
    expect(r.value.suite.tests.map((t) => t.id)).not.toContain(gone);
  });
  it("targets what the code reading found and says why", async () => {
    const r = await gen.generate(
      input({
        sources: [
          src(
            "merge.mjs",
            "export function deepMerge(...s) { const o = {}; for (const key in s[0]) o[key] = s[0][key]; return o; }",
          ),
        ],
      }),
    );
    if (!r.ok) throw new Error(r.error.detail);
    const targeted = r.value.suite.tests.filter((t) => t.technique === "injection");
    expect(targeted.length).toBeGreaterThan(0);
    expect(targeted[0]!.rationale).toMatch(/^targeted: computed-key writes/);
  });
  it("writes pytest functions for Python", async () => {
    const r = await gen.generate(
      input({
        runtime: "python3.11",
        interface: InterfaceSpecSchema.parse({
          kind: "module",
          module: "money.py",
          functions: [
            {
              name: "parse_amount",
              params: [{ name: "text", type: "string", example: "1.00" }],
              invalidInputError: "ValueError",
            },
          ],
        }),
      }),
    );
    if (!r.ok) throw new Error(r.error.detail);
    expect(r.value.suite.files[0]!.path).toBe("generated/test_deterministic.py");
    for (const t of r.value.suite.tests) {
      expect(t.name).toMatch(/^test_gen_/);
      expect(r.value.suite.files[0]!.content).toContain(`def ${t.name}():`);
    }
  });
  it("refuses HTTP interfaces for Python challenges", async () => {
    const r = await gen.generate(input({ runtime: "python3.11", interface: NOTES }));
    expect(r).toMatchObject({ ok: false, error: { reason: "unavailable" } });
  });
});

describe("composition of two generators", () => {
  const t = (id: string, severity: "critical" | "low", kind: "llm" | "deterministic") => ({
    id,
    severity,
    origin: "generated" as const,
    status: "passed" as const,
    durationMs: 1,
    message: "",
    generated: {
      generator: kind,
      kind,
      technique: "injection" as const,
      target: "x",
      rationale: "r",
    },
  });
  it("puts model tests first and fills the rest with deterministic ones", () => {
    const r = composeGeneratedTests(
      [t("gen-a", "critical", "deterministic"), t("gen-b", "low", "deterministic")],
      [t("gen-llm-1", "critical", "llm")],
      7,
    );
    expect(r.tests.map((x) => x.id)).toEqual(["gen-llm-1", "gen-b"]);
    expect(r.displaced).toEqual(["gen-a"]);
  });
});
