/**
 * @module score/judging
 * Chooses the judge panel from configuration and asks it about one run: code quality over
 * the submission's sources, and each required deliverable (missing and placeholder
 * deliverables score 0 without a judge). Panels: JUDGE_MODE = "offline" (default, no
 * network), "openai" (JUDGE_OPENAI_BASE_URL, JUDGE_MODELS, JUDGE_OPENAI_API_KEY) or
 * "workers-ai" (the AI binding, JUDGE_MODELS). For the agent profile, Process / Strategy /
 * Recovery over the trace summary; where every judge is `unsupported` (offline), the offline
 * trace panel grades the trace's facts. A deliverable's judges also get the run's verdicts on
 * the public tests (`runFactsOf`), so claims are checked against what the code did.
 */
import { resolveManifestSplit, type ChallengeManifest, type RunReport } from "@bouts/contracts";
import {
  classifyDeliverable,
  createOfflinePanel,
  createOfflineTracePanel,
  createOpenAiJudge,
  createWorkersAiJudge,
  runPanel,
  toCodeQualityInput,
  toDeliverableInput,
  toScoreInput,
  type AiBinding,
  type ChallengeBrief,
  type Judge,
  type JudgeError,
  type Judgement,
  type PanelOutcome,
  type RunFacts,
  type TraceFacts,
} from "@bouts/judges";
import type { Result } from "@bouts/result";
import type { CodeQualityJudgement } from "@bouts/scoring";
import type { TraceJudgements } from "@bouts/telemetry";
import type { JudgedDeliverable } from "./build-input.ts";
import { readScoreConfig } from "./config.ts";

/** The env the panel is chosen from: its vars (config.ts) and the AI binding. */
export interface JudgeEnv {
  JUDGE_MODE?: string;
  JUDGE_MODELS?: string;
  JUDGE_OPENAI_BASE_URL?: string;
  JUDGE_OPENAI_API_KEY?: string;
  JUDGE_TIMEOUT_MS?: string;
  AI?: AiBinding;
}

export type PanelConfigError = { reason: "judge-config"; detail: string };

/**
 * The panel for this deployment, from the score configuration (a bad var throws `ConfigError`);
 * a workers-ai panel without the AI binding is an error value.
 */
export function createJudgePanel(
  env: JudgeEnv,
): Result<{ mode: string; judges: Judge[] }, PanelConfigError> {
  const { mode, models, openAiBaseUrl, openAiApiKey, timeoutMs } = readScoreConfig(env).judges;
  if (mode === "offline") return { ok: true, value: { mode, judges: createOfflinePanel() } };
  if (mode === "openai") {
    const baseUrl = openAiBaseUrl!; // the schema requires it with this mode
    return {
      ok: true,
      value: {
        mode,
        judges: models.map((model) =>
          createOpenAiJudge({ baseUrl, model, apiKey: openAiApiKey, timeoutMs }),
        ),
      },
    };
  }
  const ai = env.AI;
  if (!ai)
    return {
      ok: false,
      error: { reason: "judge-config", detail: "JUDGE_MODE=workers-ai needs the AI binding" },
    };
  return {
    ok: true,
    value: { mode, judges: models.map((model) => createWorkersAiJudge({ ai, model, timeoutMs })) },
  };
}

/**
 * The run's verdicts a deliverable judge checks claims against: the declared interface's module
 * and functions, and every test's verdict — never a private test of a split challenge (judges'
 * rationales are shown to the agent).
 */
export function runFactsOf(report: RunReport, manifest: ChallengeManifest): RunFacts {
  const held = new Set(resolveManifestSplit(manifest)?.privateIds ?? []);
  const iface = manifest.interface;
  const names = new Map(
    [...manifest.staticTests, ...manifest.adversarialTests].map((t) => [t.id, t.name]),
  );
  return {
    module: iface?.module ?? null,
    functions: !iface
      ? []
      : iface.kind === "module"
        ? iface.functions.map((f) => f.name)
        : [iface.factory],
    tests: [...report.staticTests, ...report.adversarialTests]
      .filter((t) => !held.has(t.id) || ("origin" in t && t.origin === "generated"))
      .map((t) => ({
        id: t.id,
        name: names.get(t.id) ?? t.id,
        target: ("generated" in t ? t.generated?.target : undefined) ?? null,
        passed: t.status === "passed",
      })),
  };
}

/** What the panel said about one run. */
export interface RunJudgements {
  codeQuality: CodeQualityJudgement[];
  deliverables: JudgedDeliverable[];
  /** Every judgement with what it judged (a deliverable's path, or "" for the code), for storage. */
  records: { judgement: Judgement; target: string }[];
  failures: JudgeError[];
  injectionSuspected: boolean;
}

/** Asks the panel about a run's code and required deliverables, all at once. */
export async function judgeRun(
  judges: readonly Judge[],
  report: RunReport,
  manifest: ChallengeManifest,
  challenge: ChallengeBrief,
  /** The attempt's deadline: each judge also has its own (JUDGE_TIMEOUT_MS). */
  signal?: AbortSignal,
): Promise<RunJudgements> {
  const files = report.sources.map((s) => ({ path: s.path, content: s.content }));
  const run = runFactsOf(report, manifest);
  const required = manifest.deliverables.filter((d) => d.required);
  const classified = required.map((spec) => {
    const found = report.deliverables.find((d) => d.name === spec.path);
    const content = found?.present ? found.content : null;
    return { spec, content, status: classifyDeliverable(content) };
  });
  const [code, ...written] = await Promise.all([
    runPanel(
      judges,
      {
        kind: "code-quality",
        challenge,
        files,
        ...(report.dependencies
          ? {
              dependencies: {
                source: report.dependencies.source,
                direct: report.dependencies.direct,
                total: report.dependencies.total,
              },
            }
          : {}),
      },
      signal,
    ),
    ...classified.map((c) =>
      c.status === "submitted" && c.content !== null
        ? runPanel(
            judges,
            {
              kind: "deliverable",
              challenge,
              deliverable: { name: c.spec.path, content: c.content },
              files,
              run,
            },
            signal,
          )
        : Promise.resolve(null),
    ),
  ]);
  const deliverables: JudgedDeliverable[] = classified.map((c, i) => ({
    path: c.spec.path,
    status: c.status,
    judges: toDeliverableInput(written[i]?.judgements ?? []),
  }));
  const outcomes = [code, ...written].filter((o) => o !== null);
  return {
    codeQuality: toCodeQualityInput(code.judgements),
    deliverables,
    records: [
      ...code.judgements.map((judgement) => ({ judgement, target: "" })),
      ...written.flatMap((o, i) =>
        o ? o.judgements.map((judgement) => ({ judgement, target: classified[i]!.spec.path })) : [],
      ),
    ],
    failures: outcomes.flatMap((o) => o.failures),
    injectionSuspected: outcomes.some((o) => o.injectionSuspected),
  };
}

/** What the panel said about an agent's trace: Process, Strategy and Recovery. */
export interface TraceJudgementsOutcome {
  judged: TraceJudgements;
  records: { judgement: Judgement; target: string }[];
  failures: JudgeError[];
  /** The offline trace panel answered because every configured judge was `unsupported`. */
  offlineTrace: boolean;
}

/**
 * Asks the panel about the trace (its summary text; the facts ride along for offline judges).
 * A component every configured judge answered `unsupported` (the offline panel) is graded by
 * the offline trace panel instead, so the pipeline stays uniform (docs/judges.md).
 */
export async function judgeTrace(
  judges: readonly Judge[],
  challenge: ChallengeBrief,
  traceSummary: string,
  traceFacts: TraceFacts,
  signal?: AbortSignal,
): Promise<TraceJudgementsOutcome> {
  const kinds = ["process", "strategy", "recovery"] as const;
  let offlineTrace = false;
  const outcomes = await Promise.all(
    kinds.map(async (kind) => {
      const task = { kind, challenge, traceSummary, traceFacts };
      const first = await runPanel(judges, task, signal);
      if (first.judgements.length > 0 || first.failures.some((f) => f.reason !== "unsupported"))
        return first;
      offlineTrace = true;
      return runPanel(createOfflineTracePanel(), task);
    }),
  );
  const [process, strategy, recovery] = outcomes as [PanelOutcome, PanelOutcome, PanelOutcome];
  return {
    judged: {
      process: toScoreInput(process.judgements),
      strategy: toScoreInput(strategy.judgements),
      recovery: toScoreInput(recovery.judgements),
    },
    records: outcomes.flatMap((o) =>
      o.judgements.map((judgement) => ({ judgement, target: "trace" })),
    ),
    failures: outcomes.flatMap((o) => o.failures.filter((f) => f.reason !== "unsupported")),
    offlineTrace,
  };
}
