import { env } from "cloudflare:workers";
import type { AdversarialGenerator } from "@bouts/adversarial";
import { ChallengeManifestSchema, RunReportSchema, type RunReport } from "@bouts/contracts";
import { createOfflinePanel, type Judge } from "@bouts/judges";
import { beforeAll, describe, expect, it } from "vitest";
import { evaluateRun } from "../src/evaluate.ts";
import { processSubmission } from "./score-env.ts";
import { seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

/** A promise resolved from outside, and one that gives up after `ms`. */
function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
const within = (p: Promise<void>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe("the steps after the run", () => {
  let report: RunReport;
  const challenge = { id: "deep-merge", title: "deep-merge", summary: "merge objects" };
  const manifest = async () =>
    ChallengeManifestSchema.parse(
      await (await env.FIXTURES.fetch("http://fixtures/manifest/deep-merge")).json(),
    );

  beforeAll(async () => {
    // A real run's report, as the runner answers it.
    const seeded = await seedChallenge("deep-merge");
    const id = await seedSubmission(seeded, await seedAgent(seeded), "complete");
    const outcome = await processSubmission(env, id, Date.now);
    expect(outcome.action, outcome.note).toBe("ack");
    const object = await env.ARTIFACTS.get(`reports/${id}.json`);
    report = RunReportSchema.parse(JSON.parse(await object!.text()));
  });

  it("asks the judges while the model writes its tests, not after", async () => {
    // Each side waits (a while) for the other to have started: one after the other, the first
    // would give up waiting.
    const judgeAsked = deferred();
    const generatorAsked = deferred();
    const seen = { judgesSawGenerator: [] as boolean[], generatorSawJudge: null as boolean | null };
    const judges: Judge[] = createOfflinePanel().map((j) => ({
      id: j.id,
      source: j.source,
      judge: async (task, signal) => {
        judgeAsked.resolve();
        seen.judgesSawGenerator.push(await within(generatorAsked.promise, 3000));
        return j.judge(task, signal);
      },
    }));
    const generator: AdversarialGenerator = {
      name: "fake-model",
      kind: "llm",
      model: "fake",
      generate: async () => {
        generatorAsked.resolve();
        seen.generatorSawJudge = await within(judgeAsked.promise, 3000);
        return { ok: false, error: { reason: "unavailable", detail: "the fake writes nothing" } };
      },
    };
    const out = await evaluateRun(env, {
      runId: "evaluate-overlap",
      report,
      manifest: await manifest(),
      challenge,
      judges,
      generator,
      submission: new Uint8Array(),
      bundle: new Uint8Array(),
    });
    expect(seen.generatorSawJudge).toBe(true);
    expect(seen.judgesSawGenerator.length).toBeGreaterThan(0);
    expect(seen.judgesSawGenerator.every(Boolean)).toBe(true);
    // The judges graded the code; the model's failure is on the report, not a scoring failure.
    expect(out.judged.codeQuality.length).toBe(3);
    expect(out.report.generation!.generators.map((g) => [g.name, g.status])).toContainEqual([
      "fake-model",
      "unavailable",
    ]);
    // No profile judges were asked: nothing answered.
    expect(out.profile).toBeNull();
  });
});
