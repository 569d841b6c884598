/**
 * extractEfficiency: each rule on small hand-made traces, the docs' worked example, and
 * properties (ratios in [0, 1], counts ≤ totalActions, determinism).
 */
import { computeEfficiency } from "@bouts/scoring";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractEfficiency, type TraceEvent } from "../src/index.ts";
import { buildTrace, edit, message, testRun, tool } from "./build.ts";

const seqs = (items: readonly { seq: number }[]) => items.map((i) => i.seq);

describe("extractEfficiency", () => {
  it("counts tool calls, edits and test runs as actions, not messages", () => {
    const r = extractEfficiency(
      buildTrace([message(1, "user"), tool(2, "ls"), edit(3, "a.ts"), testRun(4, 1, 0)]),
    );
    expect(r.input?.totalActions).toBe(3);
  });

  it("answers null input (not measured) for a trace without actions", () => {
    const r = extractEfficiency(buildTrace([message(1)]), { tokenBudget: 10 });
    expect(r.input).toBeNull();
    expect(r.evidence.totalActions).toBe(0);
  });

  it("counts failed tool calls and test runs that could not run as unproductive", () => {
    const r = extractEfficiency(
      buildTrace([
        tool(1, "read_file", "a", { outcome: "error" }),
        tool(2, "read_file", "b"),
        testRun(3, 0, 0, { outcome: "error" }),
        testRun(4, 3, 2),
      ]),
    );
    expect(r.evidence.unproductive.map((u) => [u.seq, u.rule])).toEqual([
      [1, "failed-tool-call"],
      [3, "test-run-error"],
    ]);
    expect(r.input?.unproductiveActions).toBe(2);
  });

  it("counts a file created then deleted as reverted edits", () => {
    const r = extractEfficiency(
      buildTrace([
        edit(1, "scratch.ts", "create"),
        edit(2, "scratch.ts", "modify"),
        edit(3, "keep.ts", "create"),
        edit(4, "scratch.ts", "delete"),
      ]),
    );
    expect(
      r.evidence.unproductive.filter((u) => u.rule === "reverted-edit").map((u) => u.seq),
    ).toEqual([1, 2, 4]);
    expect(r.evidence.unproductive[0]?.detail).toBe("create scratch.ts undone by seq 4");
    expect(r.evidence.unproductive[2]?.detail).toBe("delete scratch.ts undoes seq 1");
  });

  it("detects a revert by content digests, and a no-op edit", () => {
    const r = extractEfficiency(
      buildTrace([
        edit(1, "a.ts", "modify", { before: "v0", after: "v1" }),
        edit(2, "a.ts", "modify", { before: "v1", after: "v2" }),
        edit(3, "a.ts", "modify", { before: "v2", after: "v0" }),
        edit(4, "a.ts", "modify", { before: "v0", after: "v3" }),
        edit(5, "b.ts", "modify", { before: "x", after: "x" }),
      ]),
    );
    expect(seqs(r.evidence.unproductive)).toEqual([1, 2, 3, 5]);
    expect(r.evidence.unproductive[3]?.detail).toBe("modify b.ts left the file as it was");
  });

  it("matches a revert across spellings of the same path", () => {
    const r = extractEfficiency(
      buildTrace([edit(1, "./src/x.ts", "create"), edit(2, "src//x.ts", "delete")]),
    );
    expect(seqs(r.evidence.unproductive)).toEqual([1, 2]);
  });

  it("does not call edits without digests reverted", () => {
    const r = extractEfficiency(buildTrace([edit(1, "a.ts"), edit(2, "a.ts"), edit(3, "a.ts")]));
    expect(r.evidence.unproductive).toEqual([]);
  });

  it("counts retrying a failed action unchanged as churn", () => {
    const r = extractEfficiency(
      buildTrace([
        testRun(1, 3, 2),
        testRun(2, 3, 2),
        testRun(3, 3, 2),
        tool(4, "install", "x", { outcome: "error" }),
        tool(5, "install", "x", { outcome: "error" }),
      ]),
    );
    expect(r.evidence.retryChurn.map((c) => [c.seq, c.repeatOf])).toEqual([
      [2, 1],
      [3, 2],
      [5, 4],
    ]);
    expect(r.evidence.toolMisuse).toEqual([]);
    expect(r.input?.retryChurnActions).toBe(3);
  });

  it("does not count a retry after an edit as churn", () => {
    const r = extractEfficiency(buildTrace([testRun(1, 3, 2), edit(2, "a.ts"), testRun(3, 5, 0)]));
    expect(r.evidence.retryChurn).toEqual([]);
  });

  it("treats different arguments or a different test selection as different actions", () => {
    const r = extractEfficiency(
      buildTrace([
        tool(1, "grep", "foo", { outcome: "error" }),
        tool(2, "grep", "bar", { outcome: "error" }),
        testRun(3, 0, 1, { tests: ["a"] }),
        testRun(4, 0, 1, { tests: ["b"] }),
      ]),
    );
    expect(r.evidence.retryChurn).toEqual([]);
  });

  it("counts asking again for a result it already had as tool misuse", () => {
    const r = extractEfficiency(
      buildTrace([
        tool(1, "read_file", "a.ts"),
        tool(2, "grep", "x"),
        tool(3, "read_file", "a.ts"),
        testRun(4, 5, 0),
        testRun(5, 5, 0),
        edit(6, "a.ts"),
        tool(7, "read_file", "a.ts"),
      ]),
    );
    expect(r.evidence.toolMisuse.map((m) => [m.seq, m.repeatOf])).toEqual([
      [3, 1],
      [5, 4],
    ]);
    expect(r.evidence.retryChurn).toEqual([]);
  });

  it("sums tokens of every event that reports them, and passes the budget through", () => {
    const r = extractEfficiency(
      buildTrace([
        message(1, "assistant", { tokensIn: 1000, tokensOut: 200 }),
        tool(2, "ls", "{}", { tokensIn: 50 }),
        tool(3, "ls", "."),
      ]),
      { tokenBudget: 5000 },
    );
    expect(r.input).toMatchObject({ tokensUsed: 1250, tokenBudget: 5000 });
    expect(r.evidence.tokens).toEqual({ used: 1250, budget: 5000, events: 2 });
  });

  it("reports tokens as not measured when no event carries any", () => {
    const r = extractEfficiency(buildTrace([tool(1, "ls")]));
    expect(r.input).toMatchObject({ tokensUsed: null, tokenBudget: null });
  });

  it("computes the worked example of docs/telemetry.md", () => {
    const trace = buildTrace([
      message(1, "assistant", { tokensIn: 4000, tokensOut: 1000 }),
      tool(2, "list_dir", '{"path":"src"}'),
      tool(3, "read_file", '{"path":"src/auth.ts"}'),
      tool(4, "read_file", '{"path":"src/missing.ts"}', { outcome: "error" }),
      testRun(5, 8, 2),
      testRun(6, 8, 2),
      tool(7, "read_file", '{"path":"src/auth.ts"}'),
      edit(8, "src/debug.ts", "create"),
      edit(9, "src/auth.ts", "modify", { before: "a1", after: "a2" }),
      edit(10, "src/debug.ts", "delete"),
      testRun(11, 10, 0),
      message(12, "assistant", { tokensIn: 3000, tokensOut: 2000, final: true, text: "Fixed." }),
    ]);
    const r = extractEfficiency(trace, { tokenBudget: 10_000 });
    expect(r.input).toEqual({
      totalActions: 10,
      unproductiveActions: 3,
      retryChurnActions: 1,
      toolMisuseActions: 1,
      tokensUsed: 10_000,
      tokenBudget: 10_000,
    });
    expect(seqs(r.evidence.unproductive)).toEqual([4, 8, 10]);
    expect(seqs(r.evidence.retryChurn)).toEqual([6]);
    expect(seqs(r.evidence.toolMisuse)).toEqual([7]);
    // 100 − 40×0.3 − 20×0.1 − 20×0.1 − 20×0.5 = 74
    const score = computeEfficiency(r.input);
    expect(score.ok && score.value.score.toText()).toBe("74");
  });
});

// ─── Properties ───

const arbEvent = (seq: number): fc.Arbitrary<TraceEvent> =>
  fc.oneof(
    fc
      .record({
        name: fc.constantFrom("read", "grep", "bash"),
        args: fc.constantFrom("a", "b"),
        failed: fc.boolean(),
        tokens: fc.option(fc.nat(5000), { nil: undefined }),
      })
      .map(({ name, args, failed, tokens }) =>
        tool(seq, name, args, {
          outcome: failed ? "error" : "ok",
          ...(tokens !== undefined ? { tokensIn: tokens } : {}),
        }),
      ),
    fc
      .record({
        path: fc.constantFrom("a.ts", "b.ts"),
        kind: fc.constantFrom("create", "modify", "delete"),
        before: fc.option(fc.constantFrom("d0", "d1", "d2"), { nil: undefined }),
        after: fc.option(fc.constantFrom("d0", "d1", "d2"), { nil: undefined }),
      })
      .map(({ path, kind, before, after }) =>
        edit(seq, path, kind, {
          ...(before !== undefined && kind !== "create" ? { before } : {}),
          ...(after !== undefined && kind !== "delete" ? { after } : {}),
        }),
      ),
    fc
      .record({ passed: fc.nat(5), failed: fc.nat(3), error: fc.boolean() })
      .map(({ passed, failed, error }) =>
        testRun(seq, passed, failed, { outcome: error ? "error" : "ok" }),
      ),
    fc.nat(2000).map((t) => message(seq, "assistant", { tokensOut: t })),
  );

const arbTrace = fc
  .integer({ min: 0, max: 40 })
  .chain((len) => fc.tuple(...Array.from({ length: len }, (_, i) => arbEvent(i + 1))))
  .map((events) => buildTrace(events));

describe("extractEfficiency — properties", () => {
  it("never yields a count above totalActions or a ratio outside [0, 1]", () => {
    fc.assert(
      fc.property(arbTrace, fc.option(fc.integer({ min: 1, max: 100_000 })), (trace, budget) => {
        const { input, evidence } = extractEfficiency(trace, { tokenBudget: budget });
        const actions = trace.events.filter((e) => e.type !== "message").length;
        expect(evidence.totalActions).toBe(actions);
        if (input === null) {
          expect(actions).toBe(0);
          return;
        }
        for (const k of [
          "unproductiveActions",
          "retryChurnActions",
          "toolMisuseActions",
        ] as const) {
          expect(input[k]).toBeGreaterThanOrEqual(0);
          expect(input[k]).toBeLessThanOrEqual(input.totalActions);
          const ratio = input[k] / input.totalActions;
          expect(ratio >= 0 && ratio <= 1).toBe(true);
        }
        // each signal lists an action at most once, and only actions
        const actionSeqs = new Set(
          trace.events.filter((e) => e.type !== "message").map((e) => e.seq),
        );
        for (const list of [evidence.unproductive, evidence.retryChurn, evidence.toolMisuse]) {
          expect(new Set(seqs(list)).size).toBe(list.length);
          for (const s of seqs(list)) expect(actionSeqs.has(s)).toBe(true);
        }
        // the engine accepts every extraction
        expect(computeEfficiency(input).ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("is deterministic: the same trace gives the same figures and evidence", () => {
    fc.assert(
      fc.property(arbTrace, (trace) => {
        const copy = structuredClone(trace);
        expect(extractEfficiency(copy, { tokenBudget: 1000 })).toEqual(
          extractEfficiency(trace, { tokenBudget: 1000 }),
        );
      }),
      { numRuns: 100 },
    );
  });
});
