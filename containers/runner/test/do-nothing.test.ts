/**
 * Do-nothing code earns nothing (docs/design.md §33): each example challenge's `stub`
 * submission — every call refused with the interface's declared error, or every request answered
 * 400/401 — run in the real sandbox with the deterministic generator's tests, judged by the
 * offline panel and scored by the engine exactly as the score role does (judgeRun,
 * buildEngineeringInput, computeEngineering, on the whole suite — the full score of a split
 * challenge; its stored public part holds no more passing tests).
 * It must score adversarial ≤ 10 and a total ≤ 34 (band Weak), while the complete solution
 * keeps its marks. Submission code only ever runs through the sandbox.
 */
import path from "node:path";
import { RunReportSchema, type ChallengeManifest, type RunReport } from "@bouts/contracts";
import { createOfflinePanel } from "@bouts/judges";
import { computeEngineering, type ObjectiveBreakdown } from "@bouts/scoring";
import { beforeAll, describe, expect, it } from "vitest";
import { buildEngineeringInput } from "../../../workers/score/src/build-input.ts";
import { judgeRun } from "../../../workers/score/src/judging.ts";
import { computeSha256, packDir } from "../src/challenge/bundle.ts";
import { runJob, type RunnerEnvironment } from "../src/job.ts";
import { CHALLENGES, createTestEnvironment, prepareDir } from "./helpers.ts";

let environment: RunnerEnvironment;

beforeAll(async () => {
  environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
}, 120_000);

interface Scored {
  report: RunReport;
  breakdown: ObjectiveBreakdown;
  component: (key: string) => number;
}

/** Runs `challenges/<id>/submissions/<kind>` and scores it as the score role would, offline. */
async function scoreExample(id: string, kind: string): Promise<Scored> {
  const dir = path.join(CHALLENGES, id);
  const challenge = await prepareDir(environment, dir);
  const submission = await packDir(path.join(dir, "submissions", kind));
  const run = await runJob({
    generation: "select",
    runId: `stub-${id}-${kind}`,
    challenge,
    submission,
    submissionSha256: computeSha256(submission),
    requestedLimits: {},
    environment,
  });
  if (!run.ok) throw new Error(JSON.stringify(run.error));
  const report = RunReportSchema.parse(run.value);
  const manifest: ChallengeManifest = challenge.manifest;
  const judged = await judgeRun(createOfflinePanel(), report, manifest, {
    id,
    title: manifest.title,
    summary: "",
  });
  const input = buildEngineeringInput({
    report,
    manifest,
    codeQuality: judged.codeQuality,
    deliverables: judged.deliverables,
  });
  if (!input.ok) throw new Error(JSON.stringify(input.error));
  const scored = computeEngineering(input.value);
  if (!scored.ok) throw new Error(JSON.stringify(scored.error));
  const breakdown = scored.value;
  const component = (key: string) => {
    const c = breakdown.components.find((x) => x.key === key);
    if (!c) throw new Error(`no component ${key}`);
    return Number(c.score.text.replace("…", ""));
  };
  return { report, breakdown, component };
}

const summary = (s: Scored) =>
  JSON.stringify({
    final: s.breakdown.final.unrounded.text,
    band: s.breakdown.band.key,
    components: s.breakdown.components.map((c) => [c.key, c.score.text]),
    passedAdversarial: s.report.adversarialTests
      .filter((t) => t.status === "passed")
      .map((t) => t.id),
  });

const EXAMPLES = ["deep-merge", "bill-split-py", "notes-api", "links-api"];

describe("a submission that refuses everything earns nothing", () => {
  for (const id of EXAMPLES)
    it(`${id}: the stub scores adversarial ≤ 10 and total ≤ 34 (Weak)`, async () => {
      const stub = await scoreExample(id, "stub");
      console.log(`${id} stub: ${summary(stub)}`);
      expect(stub.component("adversarial"), summary(stub)).toBeLessThanOrEqual(10);
      expect(stub.breakdown.final.rounded, summary(stub)).toBeLessThanOrEqual(34);
      expect(["weak", "failed"]).toContain(stub.breakdown.band.key);
    }, 600_000);

  for (const id of EXAMPLES)
    it(`${id}: the complete solution, which also validates strictly, keeps full marks`, async () => {
      const complete = await scoreExample(id, "complete");
      expect(complete.component("static"), summary(complete)).toBe(100);
      expect(complete.component("adversarial"), summary(complete)).toBe(100);
      expect(complete.component("codeQuality"), summary(complete)).toBeGreaterThanOrEqual(90);
      expect(complete.component("deliverables"), summary(complete)).toBeGreaterThanOrEqual(75);
    }, 600_000);
});
