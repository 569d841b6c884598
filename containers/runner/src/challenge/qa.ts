/**
 * @module runner/challenge/qa
 * Challenge QA, the engineering spec's flaky detection: run the reference solution several times; a
 * test that fails on it even once is reported ("failing" if it never passed, "flaky" otherwise) and
 * removed from the cleaned manifest. Every candidate of the deterministic adversarial generator is
 * run too: one that fails on the reference is listed for `generation.exclude` (the declared
 * interface promised something the reference does not do). A challenge is publishable only when
 * every run completed, every test and candidate passed every time, and the reference ran with clean
 * stability. A run the runner itself could not carry out (sandbox unavailable, internal fault) is
 * no verdict: QA answers `runner-infrastructure` instead of a report. The repeats run
 * concurrently (bounded by the uid pool). The report's shape is the `QaReport` contract
 * (@bouts/contracts).
 */
import { randomUUID } from "node:crypto";
import type { ChallengeManifest, QaReport, QaTest, RunReport } from "@bouts/contracts";
import type { JobError, RunnerEnvironment } from "../job.ts";
import { runJob } from "../job.ts";
import { err, ok, type Result } from "@bouts/result";
import { computeSha256, packDir, type PreparedChallenge } from "./bundle.ts";
import path from "node:path";

type Gate = <T>(task: () => Promise<T>) => Promise<T>;
const gates = new WeakMap<RunnerEnvironment, Gate>();

/**
 * The QA runs' queue of one runner process: at most MAX_CONCURRENT_RUNS at once, first come first
 * served. A run's wall budget starts before it takes a uid lease (job.ts), so QA runs must not
 * queue for leases behind each other: they wait here, before their budget starts.
 */
function qaGate(environment: RunnerEnvironment): Gate {
  const known = gates.get(environment);
  if (known) return known;
  let free = environment.config.MAX_CONCURRENT_RUNS;
  const waiting: (() => void)[] = [];
  const gate: Gate = async (task) => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    }
  };
  gates.set(environment, gate);
  return gate;
}

/**
 * Why QA could not judge the bundle: a job error, or a run the runner itself could not carry out
 * (its sandbox unavailable, an internal fault). The latter is no verdict on the bundle: it is
 * answered 503 (`sandbox-unavailable`), never a report, and nothing is cached.
 */
export type QaError = JobError | { reason: "runner-infrastructure"; report: RunReport };

/** Infrastructure reasons that are the runner's, not the bundle's. */
const RUNNER_FAULTS: ReadonlySet<string> = new Set(["sandbox-unavailable", "internal"]);

/** Runs the reference solution `repeats` times and judges each test. */
export async function runChallengeQa(
  environment: RunnerEnvironment,
  challenge: PreparedChallenge,
  repeats: number,
): Promise<Result<QaReport, QaError>> {
  const submission = await packDir(path.join(challenge.root, "reference"));
  const m = challenge.manifest;
  const tally = new Map<string, { passes: number; last: string }>();
  const prebuiltIds = new Set(m.adversarialTests.map((t) => t.id));
  const generatedIds = new Set<string>();
  const problems: string[] = [];
  // The repeats are independent runs of the same reference: they are queued together, and up to
  // MAX_CONCURRENT_RUNS of them (of every QA in this process) run at once, so one run's scan
  // overlaps another's tests. Each keeps its own workspace, subject and full suite.
  const submissionSha256 = computeSha256(submission);
  const gate = qaGate(environment);
  const runs = await Promise.all(
    Array.from({ length: repeats }, () =>
      gate(() =>
        runJob({
          runId: `qa-${randomUUID()}`,
          challenge,
          submission,
          submissionSha256,
          requestedLimits: {},
          environment,
          generation: "all-candidates",
          // QA reads only test verdicts (flaky detection); a scan would cost CPU and say nothing.
          scan: false,
        }),
      ),
    ),
  );
  for (const [i, r] of runs.entries()) {
    if (!r.ok) return err(r.error);
    const report = r.value;
    // The runner failed, not the reference: every test of that run would read as failing.
    if (report.infrastructure && RUNNER_FAULTS.has(report.infrastructure.reason))
      return err({ reason: "runner-infrastructure", report });
    if (report.infrastructure) problems.push(`run ${i + 1}: ${report.infrastructure.message}`);
    if (report.stability.verdict !== "clean") {
      problems.push(
        `run ${i + 1}: reference stability ${report.stability.verdict}: ${report.stability.evidence.slice(0, 3).join("; ")}`,
      );
    }
    for (const t of report.adversarialTests)
      if (!prebuiltIds.has(t.id) && t.origin === "generated") generatedIds.add(t.id);
    for (const t of [...report.staticTests, ...report.adversarialTests]) {
      const prev = tally.get(t.id) ?? { passes: 0, last: "" };
      tally.set(t.id, {
        passes: prev.passes + (t.status === "passed" ? 1 : 0),
        last: t.status === "passed" ? prev.last : `${t.status}: ${t.message}`,
      });
    }
  }
  const tests: QaTest[] = [
    ...m.staticTests.map((t) => ({ id: t.id, kind: "static" as const })),
    ...m.adversarialTests.map((t) => ({ id: t.id, kind: "adversarial" as const })),
    ...[...generatedIds].map((id) => ({ id, kind: "generated" as const })),
  ].map(({ id, kind }) => {
    const { passes, last } = tally.get(id) ?? { passes: 0, last: "never ran" };
    return {
      id,
      kind,
      passes,
      runs: repeats,
      verdict: passes === repeats ? "stable" : passes === 0 ? "failing" : "flaky",
      lastMessage: last.slice(0, 500),
    };
  });
  const removed = tests.filter((t) => t.verdict !== "stable").map((t) => t.id);
  const removedGenerated = tests
    .filter((t) => t.kind === "generated" && t.verdict !== "stable")
    .map((t) => t.id);
  const cleanedManifest: ChallengeManifest = {
    ...m,
    staticTests: m.staticTests.filter((t) => !removed.includes(t.id)),
    adversarialTests: m.adversarialTests.filter((t) => !removed.includes(t.id)),
    generation: {
      ...m.generation,
      exclude: [...m.generation.exclude, ...removedGenerated],
    },
  };
  if (removedGenerated.length > 0)
    problems.push(
      `generated candidates failed on the reference; add them to generation.exclude: ${removedGenerated.join(", ")}`,
    );
  if (cleanedManifest.staticTests.length === 0) problems.push("no static test survives QA");
  return ok({
    challengeId: m.id,
    repeats,
    publishable: removed.length === 0 && problems.length === 0,
    tests,
    removed,
    problems,
    cleanedManifest,
  });
}
