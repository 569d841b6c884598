/**
 * The submission pages the snapshot test draws: the worked examples, the agent example as the
 * score worker stores it (with the efficiency trace), and every edge example of the engine —
 * each in the public view, as the page route renders it. Pure: no bindings, fixed times.
 */
import { BreakdownSchema, type BreakdownWire } from "@bouts/contracts";
import {
  computeScore,
  EDGE_EXAMPLES,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  toPublicBreakdown,
  type EngineeringInput,
  type JudgeProvenance,
  type ScoreInput,
} from "@bouts/scoring";
import type { SubmissionPageData } from "../src/pages/submission-page.ts";

const T0 = Date.UTC(2026, 10, 30, 8, 0, 0);

/** The stored (owner-level) breakdown of an input, as it comes back from D1. */
function storedBreakdown(input: ScoreInput, seed?: string): BreakdownWire {
  const scored = computeScore(input, seed === undefined ? {} : { interval: { seed } });
  if (!scored.ok) throw new Error(`example does not score: ${JSON.stringify(scored.error)}`);
  return BreakdownSchema.parse(JSON.parse(JSON.stringify(scored.value)));
}

/** The efficiency trace the score worker adds (workers/score annotateAgentBreakdown). */
function withTrace(b: BreakdownWire): BreakdownWire {
  return {
    ...b,
    components: b.components.map((c) =>
      c.key === "efficiency"
        ? {
            ...c,
            details: {
              ...c.details,
              trace: {
                totalActions: 40,
                unproductive: [{ seq: 3, rule: "failed-tool-call", detail: "npm test exited 1" }],
                retryChurn: [{ seq: 9, repeatOf: 8, detail: "ran the same test twice" }],
                toolMisuse: [],
                tokens: { used: 120_000, budget: 200_000, events: 12 },
              },
            },
          }
        : c,
    ),
  };
}

function pageData(name: string, breakdown: BreakdownWire): SubmissionPageData {
  return {
    challenge: {
      id: "c-1",
      slug: "deep-merge",
      title: "Deep merge",
      description: "Merge objects deeply.",
      status: "published",
      profile: breakdown.profile,
      family: breakdown.family ?? "default",
      rankingMode: "latest",
      maxIterations: 5,
      runtime: "node",
      deliverables: [],
      publishedAt: T0,
      closedAt: null,
      closesAt: null,
      version: 1,
    },
    agentName: `agent <${name}>`,
    score: {
      submissionId: `s-${name}`,
      agentId: "agent-1",
      challengeId: "c-1",
      breakdown: "{}",
      usage: null,
      finalUnrounded: breakdown.final.unrounded.text,
      finalRounded: breakdown.final.rounded,
      profile: breakdown.profile,
      profileVersion: breakdown.profileVersion,
      iteration: 2,
      enteredAt: T0,
      submittedAt: T0 + 61_000,
      scoredAt: T0 + 62_000,
    },
    breakdown: toPublicBreakdown(breakdown),
  };
}

/** The seed's engineering example with every judge's provenance given by `of`. */
export function judgedBy(of: (judge: string) => JudgeProvenance): EngineeringInput {
  const seed = SEED_ENGINEERING_EXAMPLE;
  return {
    ...seed,
    codeQuality: {
      judges: seed.codeQuality.judges.map((j) => ({ ...j, provenance: of(j.judge) })),
    },
    deliverables: {
      items: seed.deliverables.items.map((item) => ({
        ...item,
        judges: item.judges?.map((j) => ({ ...j, provenance: of(j.judge) })),
      })),
    },
  };
}

export const HEURISTIC_JUDGES = judgedBy(() => ({
  kind: "heuristic",
  method: 'static analysis (docs/judges.md, "The heuristic panel")',
}));
export const MODEL_JUDGES = judgedBy((judge) => ({
  kind: "model",
  provider: "workers-ai",
  model: `@cf/example/${judge}`,
}));

/** A page of `input`, as the route draws it. */
export const pageOf = (name: string, input: ScoreInput): SubmissionPageData =>
  pageData(name, storedBreakdown(input));

/** Every page of the snapshot, by name. */
export function submissionPageCases(): [string, SubmissionPageData][] {
  const inputs: [string, ScoreInput][] = [
    ["seed-engineering", SEED_ENGINEERING_EXAMPLE],
    ["seed-agent", SEED_AGENT_EXAMPLE],
    ["heuristic-panel", HEURISTIC_JUDGES],
    ["model-panel", MODEL_JUDGES],
    ...Object.entries(EDGE_EXAMPLES),
  ];
  return [
    ...inputs.map(([name, input]): [string, SubmissionPageData] => [
      name,
      pageData(name, storedBreakdown(input)),
    ]),
    ["seed-agent-with-trace", pageData("trace", withTrace(storedBreakdown(SEED_AGENT_EXAMPLE)))],
    // As the platform stores it now: with the 95 % interval seeded by the submission id.
    [
      "seed-agent-with-interval",
      pageData("interval", storedBreakdown(SEED_AGENT_EXAMPLE, "submission:s-interval")),
    ],
  ];
}
