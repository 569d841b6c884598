/** Unit tests of the agent-profile mapping (packages/telemetry/src/agent-input.ts): pure, no I/O. */
import { ChallengeManifestSchema, type RunReport } from "@bouts/contracts";
import { computeAgent, SEED_ENGINEERING_EXAMPLE } from "@bouts/scoring";
import { describe, expect, it } from "vitest";
import {
  analyzeTrace,
  annotateAgentBreakdown,
  buildAgentInput,
  mergeEvidence,
  NO_TRACE_DETAIL,
  parseStoredTrace,
  readAgentConfig,
  tracePathsOf,
} from "../src/agent-input.ts";

const manifest = ChallengeManifestSchema.parse({
  schemaVersion: 1,
  id: "auth-token-expiry",
  title: "auth",
  runtime: "node22",
  testFramework: "node:test",
  staticTests: [
    { id: "auth-expiry", file: "auth.test.mjs", name: "expiry", category: "functionality" },
    { id: "auth-ok", file: "auth.test.mjs", name: "ok", category: "functionality" },
  ],
  adversarialTests: [
    { id: "auth-bypass", file: "security.test.mjs", name: "bypass", severity: "critical" },
  ],
});

const report = (over: Partial<RunReport> = {}) =>
  ({
    staticTests: [
      { id: "auth-expiry", status: "passed" },
      { id: "auth-ok", status: "passed" },
    ],
    adversarialTests: [{ id: "auth-bypass", status: "failed" }],
    integrity: [],
    exploits: [],
    deliverables: [
      { name: "NOTES.md", present: true, content: "I'm 90% confident auth-bypass is fixed." },
    ],
    ...over,
  }) as unknown as RunReport;

const line = (o: object) => JSON.stringify(o);
const ts = (s: number) => new Date(Date.UTC(2026, 2, 2, 9, 0, s)).toISOString();
const TRACE = [
  line({ format: "bouts.trace/v1" }),
  line({
    type: "tool_call",
    seq: 1,
    ts: ts(1),
    name: "read_file",
    argsDigest: "a",
    outcome: "ok",
    category: "read",
    paths: ["src/auth.ts"],
    tokensIn: 1000,
    tokensOut: 200,
  }),
  line({
    type: "test_run",
    seq: 2,
    ts: ts(2),
    command: "npm test",
    passed: 1,
    failed: 1,
    outcome: "ok",
    failedTests: ["auth-expiry"],
  }),
  line({
    type: "edit",
    seq: 3,
    ts: ts(3),
    path: "src/auth.ts",
    kind: "modify",
    before: "sha256:a0",
    after: "sha256:a1",
  }),
  line({
    type: "test_run",
    seq: 4,
    ts: ts(4),
    command: "npm test",
    passed: 2,
    failed: 0,
    outcome: "ok",
  }),
  line({
    type: "edit",
    seq: 5,
    ts: ts(5),
    path: "tests/auth.test.mjs",
    kind: "modify",
    before: "sha256:t0",
    after: "sha256:t1",
    patch: "-  expect(verify(t).ok).toBe(false);\n+  verify(t);",
  }),
  line({
    type: "tool_call",
    seq: 6,
    ts: ts(6),
    name: "bash",
    argsDigest: "b",
    args: "cat hidden/auth.hidden.mjs",
    outcome: "ok",
    category: "exec",
    paths: ["hidden/auth.hidden.mjs"],
  }),
].join("\n");

const parse = (text: string) => {
  const r = parseStoredTrace(text);
  if (!r.ok) throw new Error(r.error.detail);
  return r.value;
};

describe("readAgentConfig", () => {
  it("reads family, custom weights and the token budget", () => {
    const weights = { objective: 40, process: 15, strategy: 15, recovery: 15, efficiency: 10 };
    expect(
      readAgentConfig({
        family: "recovery-lab",
        customWeights: JSON.stringify(weights),
        limits: '{"tokenBudget":5000,"cooldownSeconds":0}',
      }),
    ).toEqual({
      ok: true,
      value: { family: "recovery-lab", customWeights: weights, tokenBudget: 5000 },
    });
    expect(readAgentConfig({ family: "default", customWeights: null, limits: "{}" })).toEqual({
      ok: true,
      value: { family: "default", customWeights: null, tokenBudget: null },
    });
  });
  it("refuses an unknown family or malformed weights, naming them", () => {
    const r = readAgentConfig({ family: "speedrun", customWeights: null, limits: "{}" });
    expect(r).toMatchObject({ ok: false, error: { reason: "challenge-config" } });
    expect(!r.ok && r.error.detail).toMatch(/speedrun/);
    expect(
      readAgentConfig({ family: "default", customWeights: "{oops", limits: "{}" }),
    ).toMatchObject({ ok: false, error: { reason: "challenge-config", retryable: false } });
  });
});

describe("parseStoredTrace", () => {
  it("requires a trace and names the broken line", () => {
    expect(parseStoredTrace(null)).toEqual({
      ok: false,
      error: { reason: "no-trace", retryable: false, detail: NO_TRACE_DETAIL },
    });
    const bad = parseStoredTrace(`${TRACE}\n{"type":"edit"`);
    expect(bad).toMatchObject({ ok: false, error: { reason: "invalid-trace" } });
    expect(!bad.ok && bad.error.detail).toMatch(/line 8:/);
  });
});

describe("tracePathsOf and mergeEvidence", () => {
  it("protects tests and harness files and hides the manifest's test files", () => {
    const p = tracePathsOf(manifest);
    expect(p.protectedPaths).toEqual(expect.arrayContaining(["tests/**", "package.json"]));
    expect(p.hiddenTestPaths).toEqual(["hidden/**", "**/auth.test.mjs", "**/security.test.mjs"]);
  });
  it("keeps one item per trigger, adding counts and joining citations", () => {
    const merged = mergeEvidence(
      [{ trigger: "network-attempt" as const, citation: "runner: 2 blocked", count: 2 }],
      [
        { trigger: "network-attempt" as const, citation: "seq 4: curl" },
        { trigger: "hidden-test-access" as const, citation: "seq 6" },
      ],
    );
    expect(merged).toEqual([
      { trigger: "network-attempt", citation: "runner: 2 blocked; seq 4: curl", count: 3 },
      { trigger: "hidden-test-access", citation: "seq 6", count: 1 },
    ]);
    const long = mergeEvidence([
      { trigger: "network-attempt" as const, citation: "x".repeat(400) },
      { trigger: "network-attempt" as const, citation: "y".repeat(400) },
    ]);
    expect(long[0]!.citation.length).toBeLessThanOrEqual(500);
  });
});

describe("analyzeTrace and buildAgentInput", () => {
  const analysis = analyzeTrace(parse(TRACE), {
    manifest,
    report: report(),
    tokenBudget: 1000,
    claimsJson: null,
  });

  it("extracts efficiency with the budget, trace evidence and the judges' facts", () => {
    expect(analysis.efficiency.input).toMatchObject({
      totalActions: 6,
      tokensUsed: 1200,
      tokenBudget: 1000,
    });
    expect(analysis.evidence.exploits.map((e) => e.trigger)).toContain("test-tampering");
    expect(analysis.evidence.integrity.map((e) => e.trigger)).toEqual(
      expect.arrayContaining(["test-file-modified", "hidden-test-access"]),
    );
    expect(analysis.facts).toMatchObject({
      actions: 6,
      edits: 2,
      testRuns: 2,
      investigationsBeforeFirstEdit: 1,
      // #3 is followed by a test run; #5 is not.
      verifiedEdits: 1,
      // The runner's count (auth-bypass failed), not the trace's last run (0 failing).
      finalFailingTests: 1,
      tokenOveruse: 0.7,
    });
    expect(analysis.summary.text.length).toBeGreaterThan(0);
  });

  it("resolves parsed deliverable claims, and lets structured claims win", () => {
    expect(analysis.claims.source).toBe("parsed");
    expect(analysis.claims.claims).toEqual([
      expect.objectContaining({ confidence: 0.9, correct: false, basis: "auth-bypass: failed" }),
    ]);
    const structured = analyzeTrace(parse(TRACE), {
      manifest,
      report: report(),
      tokenBudget: null,
      claimsJson: JSON.stringify([
        { id: "c1", statement: "expiry fixed", confidence: 0.8, tests: ["auth-expiry"] },
      ]),
    });
    expect(structured.claims).toMatchObject({
      source: "structured",
      claims: [{ id: "c1", confidence: 0.8, correct: true }],
    });
    expect(structured.efficiency.input?.tokenBudget).toBeNull();
  });

  it("builds an input the engine scores, merging runner and trace evidence", () => {
    const judges = [{ judge: "j", score: 80 }];
    const built = buildAgentInput({
      objective: SEED_ENGINEERING_EXAMPLE,
      config: { family: "blacksite-debug", customWeights: null, tokenBudget: 1000 },
      report: report({
        integrity: [{ trigger: "hidden-test-access", citation: "runner: read hidden", count: 1 }],
        exploits: [],
      }),
      analysis,
      judged: { process: judges, strategy: judges, recovery: judges },
    });
    if (!built.ok) throw new Error(built.error.detail);
    expect(built.value.objective).toBe(SEED_ENGINEERING_EXAMPLE);
    const hidden = built.value.integrity.filter((i) => i.trigger === "hidden-test-access");
    expect(hidden).toHaveLength(1);
    expect(hidden[0]!.citation).toMatch(/^runner: read hidden; /);
    const scored = computeAgent(built.value);
    if (!scored.ok) throw new Error(JSON.stringify(scored.error));
    const annotated = annotateAgentBreakdown(scored.value, analysis);
    expect(annotated.final).toEqual(scored.value.final);
    const eff = annotated.components.find((c) => c.key === "efficiency")!;
    expect(eff.details.trace).toMatchObject({
      totalActions: 6,
      tokens: { used: 1200, budget: 1000 },
    });
  });

  it("refuses to build without a judgement of every trace component", () => {
    const r = buildAgentInput({
      objective: SEED_ENGINEERING_EXAMPLE,
      config: { family: "default", customWeights: null, tokenBudget: null },
      report: report(),
      analysis,
      judged: { process: [{ judge: "j", score: 1 }], strategy: [], recovery: [] },
    });
    expect(r).toMatchObject({ ok: false, error: { reason: "no-judgements", retryable: true } });
    expect(!r.ok && r.error.detail).toMatch(/strategy/);
  });
});
