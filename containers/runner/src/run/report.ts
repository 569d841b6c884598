/**
 * @module runner/run/report
 * Builds a run's RunReport from what the job collected: the planned tests and their
 * judgements, the subject's evidence, the workspace's findings, the scan, the generation
 * report, the budget and the timings. Pure: no I/O, no clock (the job measures the times and
 * passes them in). Invariants: every planned test appears exactly once (a test without a
 * judgement is `not-run` when the sandbox was unavailable, else `budget-exhausted`); a run with
 * `infrastructure` set reports clean stability, no exhausted budget and no fail-fast trip.
 */
import type {
  AdversarialTestResult,
  ChallengeManifest,
  DeliverableFound,
  ExploitEvidence,
  GeneratedTestSpec,
  GenerationReport,
  IntegrityEvidence,
  RunBudget,
  RunDependencies,
  RunLimits,
  RunReport,
  ScanReport,
  SourceFile,
} from "@bouts/contracts";
import type { Observation, TestJudgement } from "./analyze.ts";
import type { FailFastTrip } from "./budget.ts";
import type { SubjectEvidence } from "./subject.ts";

/** One test a run executes: a manifest test of either suite, or a generated one. */
export type PlannedTest =
  | (ChallengeManifest["staticTests"][number] & { kind: "static" })
  | (ChallengeManifest["adversarialTests"][number] & { kind: "adversarial" })
  | (GeneratedTestSpec & { kind: "generated" });

/** Everything a RunReport is built from. */
export interface RunReportInput {
  runId: string;
  manifest: ChallengeManifest;
  bundleSha256: string;
  submissionSha256: string;
  /** Canonical hash of the submitted files the run used (null when it could not be computed). */
  filesSha256: string | null;
  /** Each file the run used and its sha256 (null when the tree could not be hashed). */
  files: readonly { path: string; sha256: string }[] | null;
  runtimeVersion: string;
  /** The limits applied, `runWallMs` being the run's budget. */
  limits: RunLimits;
  budgetSource: RunBudget["source"];
  scanDeadlineMs: number;
  /** The run's tests, in order. */
  tests: readonly PlannedTest[];
  judgements: ReadonlyMap<string, TestJudgement>;
  infrastructure: RunReport["infrastructure"];
  subject: SubjectEvidence;
  /**
   * What the private tests' own subject incarnation produced, and the private test ids (§29);
   * absent or empty without a split.
   */
  privateSubject?: SubjectEvidence;
  privateIds?: ReadonlySet<string>;
  workspace: {
    integrity: readonly Observation<IntegrityEvidence["trigger"]>[];
    deliverables: DeliverableFound[];
    sources: SourceFile[];
    notes: readonly string[];
  };
  scan: ScanReport;
  /** The third-party packages the subject ran with (the submission's own, else the challenge's). */
  dependencies?: RunDependencies | null;
  /** What the run's generated tests are and where they came from (generator-selection.ts). */
  generation: GenerationReport;
  failFast: { tripped: FailFastTrip | null; failedAfterTrip: number };
  timings: {
    startedAt: string;
    unpackMs: number;
    scanMs: number;
    testsMs: number;
    /** From prime() to now: what `timings.totalMs` reports. */
    totalMs: number;
    /** From execute() to now: what the run's budget counts as spent. */
    spentMs: number;
  };
}

/** Groups observations by trigger: at most five distinct citations each, 500 characters. */
export function aggregateObservations<T extends string>(
  obs: readonly Observation<T>[],
): { trigger: T; citation: string; count: number }[] {
  const by = new Map<T, string[]>();
  for (const o of obs) by.set(o.trigger, [...(by.get(o.trigger) ?? []), o.citation]);
  return [...by].map(([trigger, citations]) => {
    const unique = [...new Set(citations)];
    let citation = unique.slice(0, 5).join("; ");
    if (unique.length > 5) citation += `; and ${unique.length - 5} more`;
    return { trigger, citation: citation.slice(0, 500), count: citations.length };
  });
}

const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Builds the RunReport of one executed run. */
export function buildRunReport(input: RunReportInput): RunReport {
  const { limits, infrastructure, subject, failFast, timings } = input;
  const notRun = (): TestJudgement => ({
    status: infrastructure ? "not-run" : "budget-exhausted",
    durationMs: 0,
    message: infrastructure
      ? "not run: the sandbox was unavailable"
      : `not run: the run's budget of ${limits.runWallMs} ms ran out`,
    crashes: [],
    warnings: [],
    integrity: [],
    exploits: [],
  });
  const all = input.tests.map((t) => ({ t, j: input.judgements.get(t.id) ?? notRun() }));
  // Each line with the test it came from (null: the subject or the run as a whole), so the
  // score role can cut a split challenge's public part by source, not by text (§29).
  // On a split challenge each line also says which part it belongs to: the private tests' lines
  // and their own subject's are "private", and the score role leaves them out of the public part.
  const held = input.privateIds ?? new Set<string>();
  const split = held.size > 0;
  const privateSubject = input.privateSubject ?? {
    crashes: [],
    warnings: [],
    integrity: [],
    exploits: [],
  };
  type Line = { text: string; test: string | null; part: "public" | "private" };
  const partOf = (t: PlannedTest): "public" | "private" =>
    t.kind !== "generated" && held.has(t.id) ? "private" : "public";
  const own =
    (test: string | null, part: "public" | "private" = "public") =>
    (text: string): Line => ({ text, test, part });
  // Public lines first (the run's tests are in public-then-private order), so the 100 kept are
  // never crowded out by the private part's.
  const crashLines: Line[] = [
    ...subject.crashes.map(own(null)),
    ...all.flatMap(({ t, j }) => j.crashes.map(own(t.id, partOf(t)))),
    ...privateSubject.crashes.map(own(null, "private")),
  ];
  const warningLines: Line[] = [
    ...subject.warnings.map(own(null)),
    ...all.flatMap(({ t, j }) => j.warnings.map(own(t.id, partOf(t)))),
    ...privateSubject.warnings.map(own(null, "private")),
  ];
  const trip = failFast.tripped;
  const spent = `exhausted after ${Math.round(timings.spentMs)} ms`;
  if (!infrastructure && !split) {
    const exhausted = all.filter(({ j }) => j.status === "budget-exhausted").length;
    if (exhausted > 0)
      crashLines.push(
        own(null)(
          `run budget of ${limits.runWallMs} ms (${input.budgetSource}) ${spent}: ${exhausted} tests budget-exhausted`,
        ),
      );
    if (trip)
      crashLines.push(
        own(null)(
          `fail-fast: ${trip.reason}; ${failFast.failedAfterTrip} tests after it failed at once`,
        ),
      );
  } else if (!infrastructure) {
    // Split: each part's line counts that part's tests only, and a trip in the private part
    // (whose reason cites private tests) is a private line.
    for (const part of ["public", "private"] as const) {
      const mine = all.filter(({ t }) => partOf(t) === part);
      const exhausted = mine.filter(({ j }) => j.status === "budget-exhausted").length;
      if (exhausted > 0)
        crashLines.push(
          own(
            null,
            part,
          )(
            `run budget of ${limits.runWallMs} ms (${input.budgetSource}) ${spent}: ${exhausted} tests budget-exhausted`,
          ),
        );
    }
    if (trip) {
      const at = all.findIndex(({ t }) => t.id === trip.testId);
      const tripPart = at >= 0 ? partOf(all[at]!.t) : "public";
      const after = (part: "public" | "private") =>
        all.slice(at + 1).filter(({ t, j }) => partOf(t) === part && j.status !== "passed").length;
      crashLines.push(
        own(
          null,
          tripPart,
        )(`fail-fast: ${trip.reason}; ${after(tripPart)} tests after it failed at once`),
      );
      if (tripPart === "public" && after("private") > 0)
        crashLines.push(
          own(
            null,
            "private",
          )(
            `fail-fast: ${after("private")} private tests failed at once after the public part's trip`,
          ),
        );
    }
  }
  const integrity = aggregateObservations([
    ...input.workspace.integrity,
    ...subject.integrity,
    ...privateSubject.integrity,
    ...all.flatMap(({ j }) => j.integrity),
  ]) as IntegrityEvidence[];
  const exploits = aggregateObservations([
    ...subject.exploits,
    ...privateSubject.exploits,
    ...all.flatMap(({ j }) => j.exploits),
  ]) as ExploitEvidence[];
  const publicTests = all.filter(({ t }) => partOf(t) === "public");
  const publicEvidence = split
    ? {
        integrity: aggregateObservations([
          ...input.workspace.integrity,
          ...subject.integrity,
          ...publicTests.flatMap(({ j }) => j.integrity),
        ]) as IntegrityEvidence[],
        exploits: aggregateObservations([
          ...subject.exploits,
          ...publicTests.flatMap(({ j }) => j.exploits),
        ]) as ExploitEvidence[],
      }
    : undefined;
  const { manifest } = input;

  return {
    schemaVersion: 1,
    runId: input.runId,
    challengeId: manifest.id,
    bundleSha256: input.bundleSha256,
    submissionSha256: input.submissionSha256,
    ...(input.filesSha256 ? { filesSha256: input.filesSha256 } : {}),
    ...(input.files ? { files: [...input.files] } : {}),
    runtime: { name: manifest.runtime, version: input.runtimeVersion },
    limits,
    staticTests: all
      .filter(({ t }) => t.kind === "static")
      .map(({ t, j }) => ({
        id: t.id,
        category: "category" in t ? t.category : "functionality",
        status: j.status,
        durationMs: roundMs(j.durationMs),
        message: j.message,
      })),
    adversarialTests: all.flatMap(({ t, j }): AdversarialTestResult[] => {
      const outcome = {
        id: t.id,
        status: j.status,
        durationMs: roundMs(j.durationMs),
        message: j.message,
      };
      if (t.kind === "adversarial")
        return [{ ...outcome, severity: t.severity, origin: "prebuilt" }];
      if (t.kind !== "generated") return [];
      const generator = input.generation.generators[0]!;
      return [
        {
          ...outcome,
          severity: t.severity,
          origin: "generated",
          generated: {
            generator: generator.name,
            kind: generator.kind,
            technique: t.technique,
            target: t.target,
            rationale: t.rationale,
          },
        },
      ];
    }),
    stability: {
      verdict: infrastructure
        ? "clean"
        : crashLines.length > 0
          ? "crashed"
          : warningLines.length > 0
            ? "warnings"
            : "clean",
      evidence: [...crashLines, ...warningLines].slice(0, 100).map((e) => e.text.slice(0, 500)),
      sources: [
        ...crashLines.map((l) => ({
          test: l.test,
          kind: "crash" as const,
          ...(split ? { part: l.part } : {}),
        })),
        ...warningLines.map((l) => ({
          test: l.test,
          kind: "warning" as const,
          ...(split ? { part: l.part } : {}),
        })),
      ].slice(0, 100),
    },
    integrity,
    exploits,
    ...(publicEvidence ? { publicEvidence } : {}),
    scan: input.scan,
    ...(input.dependencies ? { dependencies: input.dependencies } : {}),
    deliverables: input.workspace.deliverables,
    sources: input.workspace.sources,
    timings: {
      startedAt: timings.startedAt,
      unpackMs: Math.round(timings.unpackMs),
      prepareMs: 0,
      testsMs: Math.round(timings.testsMs),
      scanMs: Math.round(timings.scanMs),
      totalMs: Math.round(timings.totalMs),
    },
    notes: input.workspace.notes.slice(0, 100).map((n) => n.slice(0, 500)),
    infrastructure,
    generation: input.generation,
    budget: {
      limitMs: limits.runWallMs,
      source: input.budgetSource,
      scanDeadlineMs: input.scanDeadlineMs,
      spentMs: Math.round(timings.spentMs),
      exhausted: !infrastructure && all.some(({ j }) => j.status === "budget-exhausted"),
      failFast:
        !infrastructure && trip
          ? {
              consecutive: trip.consecutive,
              reason: trip.reason,
              testsFailed: failFast.failedAfterTrip,
            }
          : null,
    },
  };
}
