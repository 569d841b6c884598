/**
 * @module score/split-scoring
 * A challenge with a public/private split (docs/design.md §29) is scored twice from one run: the
 * public part is what `scores` stores and every agent-visible surface reads; the full suite
 * (public + private) goes to `full_scores`, read only at close. Invariant: the public report
 * carries nothing of a private test — no result, id, name, count or duration (generated tests are
 * always public). The full suite is scored by the challenge's profile (profile-steps.ts), as the
 * public part is. Pure, but for `storeFullSuite` (R2 and D1).
 */
import { resolveManifestSplit, type ChallengeManifest, type RunReport } from "@bouts/contracts";
import { saveFullScore, type Db, type FullScoreRow } from "@bouts/db";
import type { Result } from "@bouts/result";
import { submissionSeed, withInterval, type TestSplit } from "@bouts/scoring";
import { buildEngineeringInput } from "./build-input.ts";
import type { RunJudgements } from "./judging.ts";
import type { ProfileJudged } from "./profile-steps.ts";

/** The run as the public part sees it, and the split it was cut by. */
export interface PublicPart {
  split: TestSplit;
  report: RunReport;
  manifest: ChallengeManifest;
}

/**
 * The public part of a run: the private tests removed from the report and the manifest, and
 * every line of evidence or note that names one of them (by id or name) dropped; the tests'
 * wall time is the public tests' own, and the run budget (whose fail-fast count spans the whole
 * suite) and the suite composition are left out. Null when the challenge has no split.
 */
export function cutPublicPart(report: RunReport, manifest: ChallengeManifest): PublicPart | null {
  const split = resolveManifestSplit(manifest);
  if (!split || split.privateIds.length === 0) return null;
  const held = new Set(split.privateIds);
  const names = [...manifest.staticTests, ...manifest.adversarialTests]
    .filter((t) => held.has(t.id))
    .flatMap((t) => [t.id, t.name]);
  const clean = (line: string) => !names.some((n) => line.includes(n));
  const staticTests = report.staticTests.filter((t) => !held.has(t.id));
  const adversarialTests = report.adversarialTests.filter(
    (t) => t.origin === "generated" || !held.has(t.id),
  );
  const testsMs = [...staticTests, ...adversarialTests].reduce((n, t) => n + t.durationMs, 0);
  const { budget: _budget, generation: _generation, publicEvidence, ...rest } = report;
  return {
    split,
    report: {
      ...rest,
      staticTests,
      adversarialTests,
      stability: publicStability(report, held, clean),
      // The runner's public evidence (the public tests and their own subject, the private tests
      // having run last against another) when it has it; an older runner's, cut by text.
      integrity: (publicEvidence?.integrity ?? report.integrity).filter((e) =>
        clean(JSON.stringify(e)),
      ),
      exploits: (publicEvidence?.exploits ?? report.exploits).filter((e) =>
        clean(JSON.stringify(e)),
      ),
      notes: report.notes.filter(clean),
      timings: {
        ...report.timings,
        testsMs,
        totalMs:
          report.timings.unpackMs + report.timings.prepareMs + report.timings.scanMs + testsMs,
      },
    },
    manifest: {
      ...manifest,
      staticTests: manifest.staticTests.filter((t) => !held.has(t.id)),
      adversarialTests: manifest.adversarialTests.filter((t) => !held.has(t.id)),
    },
  };
}

/**
 * The stability verdict and evidence of the public part. With the runner's `sources` (which
 * test each line came from, and on a split challenge which part), a line observed in a private
 * test or in the private tests' own subject is dropped and the verdict is recomputed from the
 * lines kept, so nothing of the private part moves the verdict an agent sees.
 * The text never decides (a submission writes its own crash messages). Without sources (an older
 * runner), lines naming a private test are dropped and the runner's verdict is kept.
 */
function publicStability(
  report: RunReport,
  held: ReadonlySet<string>,
  clean: (line: string) => boolean,
): RunReport["stability"] {
  const { verdict, evidence, sources } = report.stability;
  if (!sources || sources.length !== evidence.length || report.infrastructure)
    return { verdict, evidence: evidence.filter(clean) };
  const kept = sources.flatMap((src, i) =>
    src.part === "private" || (src.test !== null && held.has(src.test))
      ? []
      : [{ src, line: evidence[i]! }],
  );
  // The verdict counts every kept line; a line whose text names a private test is then left
  // out of the evidence with its source, so the two stay index for index.
  const shown = kept.filter((k) => clean(k.line));
  return {
    verdict: kept.some((k) => k.src.kind === "crash")
      ? "crashed"
      : kept.length > 0
        ? "warnings"
        : "clean",
    evidence: shown.map((k) => k.line),
    sources: shown.map((k) => k.src),
  };
}

/** What scoring the full suite needs besides the run. */
export interface FullSuiteEvidence {
  submissionId: string;
  challengeId: string;
  agentId: string;
  report: RunReport;
  manifest: ChallengeManifest;
  judged: RunJudgements;
  /** The challenge's profile, with what its own judges said: it scores the full suite too. */
  profile: ProfileJudged;
  now: number;
}

/**
 * The full-suite score of a run (public + private tests), with its 95 % interval, as its
 * `full_scores` row; the same profile, engine, judgements and seed as the public score.
 */
export function scoreFullSuite(e: FullSuiteEvidence): Result<FullScoreRow, string> {
  const input = buildEngineeringInput({
    report: e.report,
    manifest: e.manifest,
    codeQuality: e.judged.codeQuality,
    deliverables: e.judged.deliverables,
  });
  if (!input.ok) return { ok: false, error: input.error.detail };
  const scored = e.profile.score({ report: e.report, objective: input.value, engineering: null });
  if (!scored.ok) return { ok: false, error: scored.error.detail };
  const withIv = withInterval(scored.value.breakdown, { seed: submissionSeed(e.submissionId) });
  if (!withIv.ok) return { ok: false, error: withIv.error.detail };
  const b = withIv.value;
  return {
    ok: true,
    value: {
      submissionId: e.submissionId,
      challengeId: e.challengeId,
      agentId: e.agentId,
      finalUnrounded: b.final.unrounded.text,
      finalFraction: b.final.unrounded.fraction,
      finalRounded: b.final.rounded,
      band: b.band.key,
      intervalLow: b.interval?.low.value ?? null,
      intervalHigh: b.interval?.high.value ?? null,
      breakdown: JSON.stringify(b),
      reportKey: fullReportKey(e.submissionId),
      scoredAt: e.now,
    },
  };
}

/** The R2 key of a submission's full run report (never served while the challenge is open). */
export const fullReportKey = (submissionId: string) => `reports-full/${submissionId}.json`;

/**
 * Stores a scored full suite: the full report in R2, then the `full_scores` row (once), before
 * the public score is written, so every scored submission of a split challenge has both.
 */
export async function storeFullSuite(
  artifacts: R2Bucket,
  db: Db,
  row: FullScoreRow,
  report: RunReport,
): Promise<void> {
  await artifacts.put(row.reportKey, JSON.stringify(report), {
    httpMetadata: { contentType: "application/json" },
  });
  await saveFullScore(db, row);
}
