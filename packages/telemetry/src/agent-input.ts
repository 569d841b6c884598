/**
 * @module telemetry/agent-input
 * Maps an agent-profile submission (agent configuration, stored trace, calibration claims, the
 * judges' Process / Strategy / Recovery scores) onto the engine's `AgentInput`: the trace's pure
 * last mile; the score worker keeps only the I/O (agent-run.ts). Invariants: pure (no I/O, no
 * clock); Objective is the nested engineering input; runner and trace evidence merge one item per
 * trigger; a submission that cannot be scored fairly is a typed failure, never a guessed score;
 * the judges' final failing-test count is the runner's, never the trace's. With the platform's
 * observations the trace is cross-checked (cross-check.ts), disclosures are confirmed against the
 * runner, calibration counts only claims about outcomes the agent could not have seen, and every
 * agent-run figure says what it rests on (`AgentInput.trust`); without them nothing of this runs.
 */
import {
  AgentWeightsSchema,
  parseJson,
  type ChallengeManifest,
  type RunReport,
} from "@bouts/contracts";
import type { TraceFacts } from "@bouts/judges";
import type { Result } from "@bouts/result";
import {
  FAMILIES,
  type AgentInput,
  type AgentTrust,
  type AgentWeights,
  type Breakdown,
  type EngineeringInput,
  type EvidenceInput,
  type Family,
  type IntegrityTrigger,
  type Provenance,
  type ScoreJudgement,
} from "@bouts/scoring";
import {
  extractConfidenceStatements,
  extractTraceClaims,
  resolveClaims,
  type ResolvedClaims,
} from "./calibration.ts";
import {
  assessTraceTrust,
  crossCheckTrace,
  joinBounded,
  type TraceCrossCheck,
} from "./cross-check.ts";
import {
  confirmDisclosures,
  RUNNER_FAILED_STATUSES,
  type DisclosureCheck,
  type DisclosureOutcomes,
} from "./disclosure.ts";
import { extractEfficiency, type EfficiencyExtraction } from "./efficiency.ts";
import { formatTraceError } from "./errors.ts";
import { DEFAULT_TEST_SETUP_PATHS, extractTraceEvidence, type TraceEvidence } from "./evidence.ts";
import type { PlatformObservations } from "./observations.ts";
import { parseTrace } from "./parse-trace.ts";
import { summarizeTrace, type TraceSummary } from "./summary.ts";
import { clip } from "./text.ts";
import { isAction, type Trace } from "./trace.ts";

/** Why an agent-profile submission could not become an `AgentInput`. */
export type AgentInputError =
  | { reason: "no-trace"; retryable: false; detail: string }
  | { reason: "invalid-trace"; retryable: false; detail: string }
  | { reason: "challenge-config"; retryable: false; detail: string }
  | { reason: "no-judgements"; retryable: true; detail: string };

/** The agent-profile settings of a challenge row. */
export interface AgentConfig {
  family: Family;
  customWeights: AgentWeights | null;
  tokenBudget: number | null;
}

/** The message a submission without a trace fails with on an agent-profile challenge. */
export const NO_TRACE_DETAIL = "the agent profile requires a telemetry trace";

/** Test-harness files an agent must not change, beyond the tests themselves. */
export const HARNESS_PATHS: readonly string[] = [
  "tests/**",
  "test/**",
  "__tests__/**",
  "**/*.test.*",
  "**/*.spec.*",
  "**/test_*.py",
  "**/*_test.py",
  "package.json",
  "pytest.ini",
  "tox.ini",
  "setup.cfg",
  "pyproject.toml",
  ...DEFAULT_TEST_SETUP_PATHS,
];

/** Reads family, custom weights and token budget from the challenge row's columns. */
export function readAgentConfig(row: {
  family: string;
  customWeights: string | null;
  limits: string;
}): Result<AgentConfig, AgentInputError> {
  const bad = (detail: string): Result<AgentConfig, AgentInputError> => ({
    ok: false,
    error: { reason: "challenge-config", retryable: false, detail },
  });
  if (!(FAMILIES as readonly string[]).includes(row.family))
    return bad(`unknown challenge family ${JSON.stringify(row.family)}`);
  let customWeights: AgentWeights | null = null;
  if (row.customWeights !== null) {
    const w = AgentWeightsSchema.safeParse(parseJson(row.customWeights));
    if (!w.success) return bad("the challenge's custom weights are not valid JSON weights");
    customWeights = w.data;
  }
  const limits = parseJson(row.limits);
  const budget =
    typeof limits === "object" && limits !== null
      ? (limits as { tokenBudget?: unknown }).tokenBudget
      : undefined;
  const tokenBudget =
    typeof budget === "number" && Number.isSafeInteger(budget) && budget > 0 ? budget : null;
  return { ok: true, value: { family: row.family as Family, customWeights, tokenBudget } };
}

/** Parses the stored trace; a trace that fails here is the agent's fault, not ours. */
export function parseStoredTrace(text: string | null): Result<Trace, AgentInputError> {
  if (text === null)
    return { ok: false, error: { reason: "no-trace", retryable: false, detail: NO_TRACE_DETAIL } };
  const parsed = parseTrace(text);
  if (!parsed.ok)
    return {
      ok: false,
      error: {
        reason: "invalid-trace",
        retryable: false,
        detail: `the telemetry trace is invalid: ${formatTraceError(parsed.error)}`,
      },
    };
  return parsed;
}

/** Protected (tests, harness) and hidden-test paths for the trace evidence. */
export function tracePathsOf(manifest: ChallengeManifest): {
  protectedPaths: string[];
  hiddenTestPaths: string[];
} {
  const testFiles = [
    ...new Set([...manifest.staticTests, ...manifest.adversarialTests].map((t) => t.file)),
  ];
  return {
    protectedPaths: [...HARNESS_PATHS],
    hiddenTestPaths: ["hidden/**", ...testFiles.map((f) => `**/${f}`)],
  };
}

/**
 * Merges evidence lists one item per trigger, in first-seen order: counts add up and the
 * citations are joined (bounded at 500 characters, the contract's limit).
 */
export function mergeEvidence<T extends string>(
  ...lists: readonly (readonly EvidenceInput<T>[])[]
): EvidenceInput<T>[] {
  const byTrigger = new Map<T, EvidenceInput<T>>();
  for (const item of lists.flat()) {
    const seen = byTrigger.get(item.trigger);
    if (!seen) {
      byTrigger.set(item.trigger, { ...item, count: item.count ?? 1 });
      continue;
    }
    seen.count = (seen.count ?? 1) + (item.count ?? 1);
    if (!seen.citation.includes(item.citation)) {
      const joined = `${seen.citation}; ${item.citation}`;
      seen.citation = joined.length > 500 ? `${joined.slice(0, 499)}…` : joined;
    }
  }
  return [...byTrigger.values()];
}

/** Everything the trace analysis produced for one submission. */
export interface TraceAnalysis {
  efficiency: EfficiencyExtraction;
  /** With observations, known-failure disclosures are already confirmed or not (disclosure.ts). */
  evidence: TraceEvidence;
  claims: ResolvedClaims;
  summary: TraceSummary;
  facts: TraceFacts;
  /** With observations: the trace checked against the platform's records. */
  crossCheck?: TraceCrossCheck;
  /** With observations: what each agent-run component rests on, and its cap. */
  trust?: AgentTrust;
  /** With observations: each known-failure disclosure and whether the runner confirmed it. */
  disclosures?: DisclosureCheck[];
}

/** What the platform saw that the judges' facts take instead of the trace's own figures. */
export interface RunnerFacts {
  /** The runner's results: the final failing tests are its failed static and adversarial tests. */
  report?: Pick<DisclosureOutcomes, "staticTests" | "adversarialTests">;
  /** The gateway's tokens (in + out), for the token overuse; null or absent: the trace's. */
  observedTokens?: number | null;
}

/** The number of tests the runner saw fail (failed, timed out or crashed), static and adversarial. */
export function countRunnerFailures(
  report: Pick<DisclosureOutcomes, "staticTests" | "adversarialTests">,
): number {
  return [...report.staticTests, ...report.adversarialTests].filter((t) =>
    RUNNER_FAILED_STATUSES.has(t.status),
  ).length;
}

/**
 * The offline trace judges' facts (docs/judges.md, "Offline trace judges"). With the runner's
 * report, `finalFailingTests` is the runner's count (a trace cannot claim its way to a clean
 * finish); without it, the trace's last test run's (a pure reading of the trace alone).
 */
export function traceFactsOf(
  trace: Trace,
  efficiency: EfficiencyExtraction,
  summary: TraceSummary,
  runner: RunnerFacts = {},
): TraceFacts {
  const actions = trace.events.filter(isAction);
  const firstEdit = actions.findIndex((a) => a.type === "edit");
  const investigations = (firstEdit === -1 ? actions : actions.slice(0, firstEdit)).filter(
    (a) =>
      a.type === "tool_call" &&
      (a.category === "read" ||
        a.category === "search" ||
        /read|search|grep|find|ls|cat/i.test(a.name)),
  ).length;
  let verifiedEdits = 0;
  actions.forEach((a, i) => {
    if (a.type !== "edit") return;
    const next = actions.slice(i + 1).find((b) => b.type === "edit" || b.type === "test_run");
    if (next?.type === "test_run") verifiedEdits++;
  });
  const testRuns = actions.filter((a) => a.type === "test_run");
  const last = testRuns.at(-1);
  const e = efficiency.evidence;
  const total = Math.max(1, e.totalActions);
  const used = runner.observedTokens ?? e.tokens.used;
  const { budget } = e.tokens;
  return {
    actions: e.totalActions,
    edits: actions.filter((a) => a.type === "edit").length,
    testRuns: testRuns.length,
    investigationsBeforeFirstEdit: investigations,
    verifiedEdits,
    wasteRatio: e.unproductive.length / total,
    churnRatio: e.retryChurn.length / total,
    misuseRatio: e.toolMisuse.length / total,
    tokenOveruse:
      used !== null && budget !== null && budget > 0
        ? Math.min(1, Math.max(0, used / budget - 0.5))
        : 0,
    failures: summary.failures.items.length + summary.failures.omitted,
    recoveries: summary.recoveries.items.length + summary.recoveries.omitted,
    pivots: summary.pivots.items.length + summary.pivots.omitted,
    finalFailingTests: runner.report
      ? countRunnerFailures(runner.report)
      : last
        ? last.outcome === "error"
          ? Math.max(1, last.failed)
          : last.failed
        : null,
  };
}

/** The judges' summary bound (summarizeTrace's default); the cross-check line fits inside it. */
const SUMMARY_MAX_CHARS = 4000;

/** The judges' line on the cross-check: its result, then what it rests on, JSON-quoted as data. */
function crossCheckLine(x: TraceCrossCheck, basis: string): string {
  const n = x.contradictions.length;
  const label =
    n > 0 ? `contradicted (${n} contradiction(s))` : x.anchored ? "cross-checked" : "unchecked";
  return `Platform cross-check: ${label}: ${JSON.stringify(clip(basis, 500))}`;
}

function buildTrust(
  x: TraceCrossCheck,
  disclosures: readonly DisclosureCheck[],
  claims: ResolvedClaims,
  o: PlatformObservations,
): AgentTrust {
  const component = assessTraceTrust(x);
  const confirmed = disclosures.filter((d) => d.confirmed).length;
  const visible = claims.unresolved.filter((u) => u.reason === "outcome-visible").length;
  return {
    process: component,
    strategy: component,
    recovery: component,
    efficiency: component,
    integrity: {
      provenance: "cross-checked",
      basis:
        `runner evidence observed, trace evidence self-reported; known-failure disclosures checked against the runner ` +
        `(${confirmed} confirmed, ${disclosures.length - confirmed} unconfirmed); ${x.contradictions.length} contradiction(s) with the platform's records`,
    },
    calibration: {
      provenance: "cross-checked",
      basis:
        `claims resolved against the runner's outcomes: ${claims.claims.length} counted, ${visible} left out as outcome-visible` +
        (o.codeScoredBefore
          ? " (identical code was scored before: only claims about private tests count)"
          : ""),
    },
  };
}

/** Runs every deterministic trace extraction the agent profile needs. */
export function analyzeTrace(
  trace: Trace,
  ctx: {
    manifest: ChallengeManifest;
    report: RunReport;
    tokenBudget: number | null;
    /** `submissions.claims`: JSON of structured confidence claims, or null. */
    claimsJson: string | null;
    /**
     * What the platform itself saw of the submission. With it the trace is cross-checked,
     * disclosures confirmed, calibration limited to unseen outcomes and `trust` computed.
     */
    observations?: PlatformObservations;
  },
): TraceAnalysis {
  const o = ctx.observations;
  const efficiency = extractEfficiency(trace, { tokenBudget: ctx.tokenBudget });
  const testIds = [...ctx.manifest.staticTests, ...ctx.manifest.adversarialTests].map((t) => t.id);
  const extracted = extractTraceEvidence(trace, tracePathsOf(ctx.manifest));
  const confirmed = o ? confirmDisclosures(extracted, ctx.report, testIds) : null;
  const evidence = confirmed?.evidence ?? extracted;
  const structured = parseJson(ctx.claimsJson);
  const parsed = [
    ...ctx.report.deliverables
      .filter((d) => d.present && d.content)
      .flatMap((d) =>
        extractConfidenceStatements(d.content ?? "", {
          testIds,
          idPrefix: `deliverable-${d.name}`,
        }),
      ),
    ...extractTraceClaims(trace, { testIds }),
  ];
  // Structured claims from the submission win over statements parsed from the deliverables and
  // the trace.
  const claims = resolveClaims(
    {
      structured: Array.isArray(structured) ? (structured as never[]) : [],
      parsed,
    },
    { static: ctx.report.staticTests, adversarial: ctx.report.adversarialTests },
    o
      ? {
          visibility: { codeScoredBefore: o.codeScoredBefore, privateTestIds: o.privateTestIds },
        }
      : {},
  );
  if (!o || !confirmed) {
    const summary = summarizeTrace(trace);
    const facts = traceFactsOf(trace, efficiency, summary, { report: ctx.report });
    return { efficiency, evidence, claims, summary, facts };
  }
  const crossCheck = crossCheckTrace(trace, o, ctx.report);
  const trust = buildTrust(crossCheck, confirmed.disclosures, claims, o);
  const line = crossCheckLine(crossCheck, trust.process.basis);
  const base = summarizeTrace(trace, { maxChars: SUMMARY_MAX_CHARS - line.length - 1 });
  const summary = { ...base, text: `${base.text}\n${line}` };
  const facts = traceFactsOf(trace, efficiency, summary, {
    report: ctx.report,
    observedTokens: crossCheck.observedTokens,
  });
  return {
    efficiency,
    evidence,
    claims,
    summary,
    facts,
    crossCheck,
    trust,
    disclosures: confirmed.disclosures,
  };
}

/** Labels items that say nothing of their provenance yet. */
function labelled<T extends string>(
  items: readonly EvidenceInput<T>[],
  provenance: Provenance,
): EvidenceInput<T>[] {
  return items.map((i) => (i.provenance ? i : { ...i, provenance }));
}

/** The judges' scores for the three trace-judged components. */
export interface TraceJudgements {
  process: ScoreJudgement[];
  strategy: ScoreJudgement[];
  recovery: ScoreJudgement[];
}

/** Builds the engine's agent input from the engineering input, the trace and the judges. */
export function buildAgentInput(e: {
  objective: EngineeringInput;
  config: AgentConfig;
  report: RunReport;
  analysis: TraceAnalysis;
  judged: TraceJudgements;
}): Result<AgentInput, AgentInputError> {
  for (const kind of ["process", "strategy", "recovery"] as const)
    if (e.judged[kind].length === 0)
      return {
        ok: false,
        error: {
          reason: "no-judgements",
          retryable: true,
          detail: `no judge returned a valid ${kind} judgement`,
        },
      };
  const base: AgentInput = {
    profile: "agent",
    family: e.config.family,
    customWeights: e.config.customWeights,
    objective: e.objective, // nested, so the engine computes Objective unrounded
    process: { judges: e.judged.process },
    strategy: { judges: e.judged.strategy },
    recovery: { judges: e.judged.recovery },
    efficiency: e.analysis.efficiency.input,
    integrity: mergeEvidence(e.report.integrity, e.analysis.evidence.integrity),
    exploits: mergeEvidence(e.report.exploits, e.analysis.evidence.exploits),
    calibration: { claims: e.analysis.claims.claims },
  };
  const { crossCheck, trust } = e.analysis;
  if (!crossCheck || !trust) return { ok: true, value: base };

  // Cross-checked: every item says who saw it, the contradictions are one cited item, and the
  // gateway's tokens replace the trace's.
  const contradicted: EvidenceInput<IntegrityTrigger>[] =
    crossCheck.contradictions.length > 0
      ? [
          {
            trigger: "trace-contradicted",
            citation: joinBounded(crossCheck.contradictions.map((c) => c.detail)),
            count: crossCheck.contradictions.length,
            provenance: "observed",
          },
        ]
      : [];
  const integrity = mergeEvidence(
    labelled(e.report.integrity, "observed"),
    labelled(e.analysis.evidence.integrity, "self-reported"),
    contradicted,
  );
  const eff = base.efficiency;
  const efficiency =
    eff === null
      ? null
      : crossCheck.observedTokens !== null
        ? { ...eff, tokensUsed: crossCheck.observedTokens, tokensProvenance: "observed" as const }
        : {
            ...eff,
            tokensProvenance:
              trust.efficiency.provenance === "cross-checked"
                ? ("cross-checked" as const)
                : ("self-reported" as const),
          };
  return {
    ok: true,
    value: {
      ...base,
      efficiency,
      integrity,
      exploits: mergeEvidence(
        labelled(e.report.exploits, "observed"),
        labelled(e.analysis.evidence.exploits, "self-reported"),
      ),
      trust,
    },
  };
}

/**
 * Adds what the engine does not see to the breakdown, for readers: the actions behind each
 * efficiency figure (`details.trace` of the efficiency component) and the calibration claims
 * left unresolved. Scores are untouched (integrity and exploit items already cite the trace).
 */
export function annotateAgentBreakdown(b: Breakdown, analysis: TraceAnalysis): Breakdown {
  const e = analysis.efficiency.evidence;
  return {
    ...b,
    components: b.components.map((c) =>
      c.key === "efficiency"
        ? {
            ...c,
            details: {
              ...c.details,
              trace: {
                totalActions: e.totalActions,
                unproductive: e.unproductive,
                retryChurn: e.retryChurn,
                toolMisuse: e.toolMisuse,
                tokens: e.tokens,
              },
            },
          }
        : c,
    ),
    adjustments: b.adjustments.map((a) =>
      a.key === "calibration" && analysis.claims.unresolved.length > 0
        ? {
            ...a,
            detail: `${a.detail} (unresolved claims: ${analysis.claims.unresolved
              .map((u) => `${u.id} ${u.reason}`)
              .join(", ")})`,
          }
        : a,
    ),
  };
}
