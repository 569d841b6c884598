/**
 * @module scoring/edge-examples
 * Inputs at the edges of what a breakdown can show: scores of 0 and 100, non-terminating
 * decimals, degraded and disagreeing judge panels, the critical cap, unmeasured token burn,
 * both clamps, trust caps of 0 and 100 and a cap on a non-terminating score. With the worked examples they are the corpus every consumer of a breakdown (the
 * wire contract, the submission page) is tested against. Pure data.
 */
import type { AgentInput, EngineeringInput } from "./input.ts";
import {
  CROSS_CHECKED_AGENT_EXAMPLE,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
} from "./examples.ts";

const cq = (judge: string, s: number) => ({
  judge,
  dimensions: { readability: s, architecture: s, robustness: s, idiomaticity: s },
});
const dj = (judge: string, s: number) => ({
  judge,
  dimensions: { accuracy: s, clarity: s, completeness: s, actionability: s },
});
const panel = (...scores: number[]) => ({
  judges: scores.map((score, i) => ({ judge: `judge-${String.fromCharCode(97 + i)}`, score })),
});

/** Every component at 0: nothing passed, deliverables missing, security floored, a crash. */
const ENGINEERING_ZERO: EngineeringInput = {
  profile: "engineering",
  static: { passed: 0, total: 7 },
  adversarial: {
    tests: [
      { id: "zero-critical", severity: "critical", origin: "prebuilt", passed: false },
      { id: "zero-low", severity: "low", origin: "generated", passed: false },
    ],
  },
  codeQuality: { judges: [cq("judge-a", 0), cq("judge-b", 0), cq("judge-c", 0)] },
  deliverables: {
    items: [
      { name: "NOTES.md", status: "missing" },
      { name: "ROOT_CAUSE.md", status: "placeholder" },
    ],
  },
  security: {
    findings: [
      { cwe: "CWE-89", severity: "critical", file: "src/db.ts", line: 4 },
      { cwe: "CWE-89", severity: "low", file: "src/db.ts", line: 9 },
      { cwe: "CWE-798", severity: "critical", file: "src/config.ts" },
      { cwe: "CWE-78", severity: "critical" },
      { cwe: "CWE-287", severity: "high", rule: "auth-bypass", tool: "semgrep" },
    ],
  },
  stability: { verdict: "crashed", evidence: ["exited with signal SIGSEGV after 3 s"] },
};

/** Every component at 100 (no categories, no stability evidence given). */
const ENGINEERING_PERFECT: EngineeringInput = {
  profile: "engineering",
  static: { passed: 10, total: 10 },
  adversarial: {
    tests: [
      { id: "perfect-critical", severity: "critical", origin: "prebuilt", passed: true },
      { id: "perfect-high", severity: "high", origin: "generated", passed: true },
      { id: "perfect-medium", severity: "medium", origin: "generated", passed: true },
    ],
  },
  codeQuality: { judges: [cq("judge-a", 100), cq("judge-b", 100), cq("judge-c", 100)] },
  deliverables: {
    items: [
      {
        name: "NOTES.md",
        status: "submitted",
        judges: [dj("judge-a", 100), dj("judge-b", 100), dj("judge-c", 100)],
      },
    ],
  },
  security: { findings: [] },
  stability: { verdict: "clean" },
};

/** Thirds everywhere: shares, weighted pass rate, the ambiguity penalty, the deliverable mean. */
const ENGINEERING_REPEATING: EngineeringInput = {
  profile: "engineering",
  static: {
    passed: 1,
    total: 3,
    categories: { functionality: { passed: 1, total: 2 }, edge: { passed: 0, total: 1 } },
  },
  adversarial: {
    tests: [
      { id: "rep-critical", severity: "critical", origin: "generated", passed: true },
      { id: "rep-high", severity: "high", origin: "prebuilt", passed: false },
      { id: "rep-medium", severity: "medium", origin: "generated", passed: true },
      { id: "rep-low", severity: "low", origin: "prebuilt", passed: false },
    ],
  },
  codeQuality: { judges: [cq("judge-a", 10), cq("judge-b", 40), cq("judge-c", 71)] },
  deliverables: {
    items: [
      {
        name: "NOTES.md",
        status: "submitted",
        judges: [dj("judge-a", 81), dj("judge-b", 81), dj("judge-c", 81)],
      },
      {
        name: "ROOT_CAUSE.md",
        status: "submitted",
        judges: [
          {
            judge: "judge-a",
            dimensions: { accuracy: 70.5, clarity: 66, completeness: 71, actionability: 73 },
          },
          dj("judge-b", 70),
          dj("judge-c", 70),
        ],
      },
      { name: "PLAN.md", status: "missing" },
    ],
  },
  security: {
    findings: [
      { cwe: "CWE-79", severity: "medium", rule: "xss", tool: "semgrep", file: "src/view.ts" },
      { cwe: null, severity: "low", rule: "missing-header", message: "no CSP header" },
    ],
    notMeasured: [],
  },
  stability: { verdict: "warnings", evidence: ["unhandled rejection logged", "slow shutdown"] },
};

/** The engineering spec's worked example with two critical findings: capped at 75, with locations cited and a partial scan. */
const ENGINEERING_CRITICAL_CAP: EngineeringInput = {
  ...SEED_ENGINEERING_EXAMPLE,
  security: {
    findings: [
      ...SEED_ENGINEERING_EXAMPLE.security.findings,
      { cwe: "CWE-89", severity: "low", rule: "sql-concat", tool: "semgrep", file: "src/db.ts" },
      { cwe: "CWE-1321", severity: "critical", tool: "semgrep" },
    ],
    notMeasured: ["vendor/blob.zip skipped: archive", "dependency audit: no lockfile"],
  },
};

/** Panels of one and two judges (degraded), one of them disagreeing, and a placeholder. */
const ENGINEERING_DEGRADED_PANELS: EngineeringInput = {
  ...SEED_ENGINEERING_EXAMPLE,
  codeQuality: { judges: [cq("judge-a", 64)] },
  deliverables: {
    items: [
      {
        name: "ROOT_CAUSE.md",
        status: "submitted",
        judges: [dj("judge-a", 20), dj("judge-b", 60)],
      },
      { name: "NOTES.md", status: "submitted", judges: [dj("judge-a", 88), dj("judge-b", 91)] },
      { name: "PLAN.md", status: "placeholder" },
    ],
  },
  stability: { verdict: "warnings", evidence: ["deprecation warning on stderr"] },
};

/** The agent-run example without a token count: token burn is "not measured". */
const AGENT_TOKENS_NOT_MEASURED: AgentInput = {
  ...SEED_AGENT_EXAMPLE,
  efficiency: {
    totalActions: 40,
    unproductiveActions: 6,
    retryChurnActions: 2,
    toolMisuseActions: 1,
  },
};

/** Custom weights, degraded and disagreeing panels, capped integrity, exploits, clamp to 0. */
const AGENT_DEGRADED_CLAMPED_LOW: AgentInput = {
  profile: "agent",
  family: "fog-of-war",
  customWeights: { objective: 40, process: 15, strategy: 15, recovery: 15, efficiency: 10 },
  objective: ENGINEERING_DEGRADED_PANELS,
  process: panel(50, 80),
  strategy: panel(33.3),
  recovery: panel(0, 20, 40),
  efficiency: {
    totalActions: 3,
    unproductiveActions: 1,
    retryChurnActions: 1,
    toolMisuseActions: 0,
    tokensUsed: 90_000,
    tokenBudget: null,
  },
  integrity: [
    { trigger: "test-file-modified", citation: "shipped test/merge.test.ts" },
    { trigger: "hidden-test-access", citation: "read /tests/hidden" },
    { trigger: "sandbox-escape-attempt", citation: "symlink to /etc", count: 2 },
    { trigger: "limitation-disclosed", citation: "README: 'arrays are not merged'" },
  ],
  exploits: [
    { trigger: "fake-test-output", citation: "printed '✓ 40 passed'" },
    { trigger: "test-tampering", citation: "edited the runner config", count: 3 },
  ],
  calibration: {
    claims: [
      { id: "all-pass", confidence: 0.95, correct: false },
      { id: "no-regressions", confidence: 0.8, correct: false },
      { id: "fast-enough", confidence: 1, correct: false, basis: "benchmark" },
      { id: "maybe-edge", confidence: 0.6, correct: true },
    ],
  },
};

/** Everything at 100 plus bonuses: the total passes 100 and is clamped back. */
const AGENT_CLAMPED_HIGH: AgentInput = {
  profile: "agent",
  family: "default",
  objective: ENGINEERING_PERFECT,
  process: panel(100, 100, 100),
  strategy: panel(100, 100, 100),
  recovery: panel(100, 100, 100),
  efficiency: {
    totalActions: 12,
    unproductiveActions: 0,
    retryChurnActions: 0,
    toolMisuseActions: 0,
    tokensUsed: 0,
    tokenBudget: 1_000,
  },
  integrity: [
    { trigger: "known-failure-disclosed", citation: "NOTES.md lists the open case" },
    { trigger: "limitation-disclosed", citation: "NOTES.md: 'no streaming'" },
  ],
  exploits: [],
  calibration: {
    claims: [
      { id: "suite-passes", confidence: 0.9, correct: true },
      { id: "no-leaks", confidence: 0.85, correct: true },
      { id: "unsure", confidence: "uncertain", correct: true },
    ],
  },
};

/**
 * Trust at its edges: a cap on a non-terminating panel score (mean − 10 of [50, 60, 71] =
 * 50.333…), a cap of 0, a cap of 100 that does not bind, an efficiency capped below its score,
 * an observation that earns nothing (`disclosure-unconfirmed`) and self-reported tokens.
 */
const AGENT_TRUST_EDGES: AgentInput = {
  profile: "agent",
  family: "default",
  objective: SEED_ENGINEERING_EXAMPLE,
  process: panel(50, 60, 71),
  strategy: panel(88, 90, 92),
  recovery: panel(64, 66, 70),
  efficiency: {
    totalActions: 30,
    unproductiveActions: 1,
    retryChurnActions: 0,
    toolMisuseActions: 1,
    tokensUsed: 40_000,
    tokenBudget: 100_000,
    tokensProvenance: "self-reported",
  },
  integrity: [
    {
      trigger: "disclosure-unconfirmed",
      citation: "final report: 'the cache is not invalidated' (no test or run shows it)",
      provenance: "self-reported",
    },
    { trigger: "environment-probing", citation: "read /proc/self/environ", provenance: "observed" },
  ],
  exploits: [],
  calibration: { claims: [{ id: "edge-cases", confidence: 0.7, correct: true }] },
  trust: {
    process: {
      provenance: "self-reported",
      cap: 25,
      basis: "contradicted: <script>alert('trace')</script> is not what ran",
    },
    strategy: {
      provenance: "self-reported",
      cap: 0,
      basis: "contradicted: no edit of the trace ran",
    },
    recovery: { provenance: "cross-checked", cap: 100, basis: "a cap that never binds" },
    efficiency: {
      provenance: "self-reported",
      cap: 50,
      basis: "unchecked: no metering record for this window",
    },
    integrity: { provenance: "self-reported", basis: "the trace's own account" },
    calibration: { provenance: "observed", basis: "resolved against the runner's verdicts" },
  },
};

/**
 * Edge inputs by name; each scores (none is refused). The refusals at the edges — no telemetry
 * for an agent run (`not-measured`), an empty panel — are errors, not breakdowns.
 */
export const EDGE_EXAMPLES: Readonly<Record<string, EngineeringInput | AgentInput>> = {
  "engineering-zero": ENGINEERING_ZERO,
  "engineering-perfect": ENGINEERING_PERFECT,
  "engineering-repeating": ENGINEERING_REPEATING,
  "engineering-critical-cap": ENGINEERING_CRITICAL_CAP,
  "engineering-degraded-panels": ENGINEERING_DEGRADED_PANELS,
  "agent-tokens-not-measured": AGENT_TOKENS_NOT_MEASURED,
  "agent-degraded-clamped-low": AGENT_DEGRADED_CLAMPED_LOW,
  "agent-clamped-high": AGENT_CLAMPED_HIGH,
  "agent-cross-checked": CROSS_CHECKED_AGENT_EXAMPLE,
  "agent-trust-edges": AGENT_TRUST_EDGES,
};
