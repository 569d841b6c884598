/**
 * The rescore's pieces that need no runner: the verdict diff, and what a live score does to an
 * open candidate (it queues its own rescore in the same batch, and a ready candidate goes back
 * to rescoring, so a promotion never leaves a counted score on the old version).
 */
import type { RunReport } from "@bouts/contracts";
import {
  challengeVersions,
  findScore,
  insertVersion,
  listRescores,
  saveScore,
  submissions,
  type ScoreWrite,
} from "@bouts/db";
import { and, eq } from "drizzle-orm";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { diffVerdicts, reconcileScoring, type ScoreEnv } from "./score-env.ts";
import { db, seedAgent, seedChallenge, seedSubmission } from "./helpers.ts";

const test = (id: string, status: string) => ({
  id,
  category: "functionality" as const,
  status: status as "passed",
  durationMs: 1,
  message: "",
});
const report = (
  tests: ReturnType<typeof test>[],
  adversarial: { id: string; status: string }[] = [],
) =>
  ({
    staticTests: tests,
    adversarialTests: adversarial.map((a) => ({
      id: a.id,
      severity: "high",
      origin: "prebuilt",
      status: a.status,
      durationMs: 1,
      message: "",
    })),
  }) as unknown as RunReport;

/** Opens a candidate version 2 of `challenge` with `targets` to rescore, as an upload would. */
function openVersion(
  challenge: { challengeId: string; operatorId: string },
  sha: string,
  targets: { submissionId: string; agentId: string }[],
  over: { version?: number; createdAt?: number } = {},
) {
  const version = over.version ?? 2;
  const now = over.createdAt ?? Date.now();
  return insertVersion(
    db(),
    {
      challengeId: challenge.challengeId,
      version,
      baseVersion: 1,
      bundleKey: "bundles/none",
      bundleSha256: sha.repeat(64),
      bundleManifest: "{}",
      qaReport: null,
      qaPassed: true,
      state: "rescoring",
      note: "",
      createdBy: challenge.operatorId,
      createdAt: now,
      decidedBy: null,
      decidedAt: null,
      decisionId: null,
    },
    targets,
    {
      id: `version-uploaded:${challenge.challengeId}:v${version}`,
      challengeId: challenge.challengeId,
      submissionId: null,
      agentId: null,
      type: "version-uploaded",
      scope: "challenge",
      actorKind: "operator",
      actorId: challenge.operatorId,
      cause: "test",
      before: null,
      after: null,
      at: now,
    },
  );
}

describe("diffVerdicts", () => {
  it("lists added, removed and changed tests, static first, and nothing unchanged", () => {
    const before = report(
      [test("a", "passed"), test("b", "passed"), test("gone", "failed")],
      [{ id: "x", status: "passed" }],
    );
    const after = report(
      [test("a", "passed"), test("b", "failed"), test("new", "passed")],
      [{ id: "x", status: "failed" }],
    );
    const names = new Map([["new", "a new test"]]);
    expect(diffVerdicts(before, after, names)).toEqual([
      {
        suite: "static",
        id: "b",
        name: "b",
        bucket: "functionality",
        before: "passed",
        after: "failed",
      },
      {
        suite: "static",
        id: "new",
        name: "a new test",
        bucket: "functionality",
        before: null,
        after: "passed",
      },
      {
        suite: "static",
        id: "gone",
        name: "gone",
        bucket: "functionality",
        before: "failed",
        after: null,
      },
      {
        suite: "adversarial",
        id: "x",
        name: "x",
        bucket: "prebuilt:high",
        before: "passed",
        after: "failed",
      },
    ]);
  });

  it("with no old report, every test is new; the same report twice differs in nothing", () => {
    const r = report([test("a", "passed")]);
    expect(diffVerdicts(null, r)).toHaveLength(1);
    expect(diffVerdicts(r, r)).toEqual([]);
  });
});

/** Whether a rejected query was refused by a trigger with `message` (drizzle wraps D1's error). */
const refusedWith = (message: string) => (e: unknown) =>
  String((e as Error & { cause?: unknown }).cause ?? e).includes(message);

describe("a live score while a candidate version is open", () => {
  it("queues its own rescore and sends a ready candidate back to rescoring", async () => {
    const challenge = await seedChallenge("deep-merge");
    const now = Date.now();
    const written = await openVersion(challenge, "1", [], { createdAt: now });
    expect(written).toBe(true);
    const version = () =>
      db()
        .select()
        .from(challengeVersions)
        .where(
          and(
            eq(challengeVersions.challengeId, challenge.challengeId),
            eq(challengeVersions.version, 2),
          ),
        )
        .get();
    // Nothing to rescore: ready at once.
    expect((await version())!.state).toBe("ready");
    const agentId = await seedAgent(challenge);
    const submissionId = await seedSubmission(challenge, agentId, "complete");
    await db()
      .update(submissions)
      .set({ status: "running" })
      .where(eq(submissions.id, submissionId));
    const write: ScoreWrite = {
      score: {
        submissionId,
        challengeId: challenge.challengeId,
        agentId,
        iteration: 1,
        profile: "engineering",
        profileVersion: 1,
        family: null,
        finalUnrounded: "50",
        finalFraction: "50/1",
        finalRounded: 50,
        band: "struggling",
        breakdown: "{}",
        input: "{}",
        humanReview: false,
        judgeMode: "offline",
        reportKey: "reports/x.json",
        usage: null,
        challengeVersion: 1,
        filesSha256: null,
        submittedAt: now,
        enteredAt: now,
        scoredAt: now,
      },
      components: [],
      judgements: [],
      findings: [],
      testCounts: [],
    };
    expect(await saveScore(db(), write, now)).toBe(true);
    expect(await findScore(db(), submissionId)).not.toBeNull();
    expect(
      (await listRescores(db(), challenge.challengeId, 2)).map((r) => [r.submissionId, r.state]),
    ).toEqual([[submissionId, "queued"]]);
    expect((await version())!.state).toBe("rescoring");
    // A second candidate cannot be opened beside it.
    const again = await openVersion(challenge, "4", [], { version: 3, createdAt: now + 1 });
    expect(again).toBe(false);
    // The database itself refuses to change a version's bundle or to delete a version.
    await expect(
      db()
        .update(challengeVersions)
        .set({ bundleSha256: "2".repeat(64) })
        .where(eq(challengeVersions.challengeId, challenge.challengeId)),
    ).rejects.toSatisfy(refusedWith("bundle never changes"));
    await expect(
      db()
        .delete(challengeVersions)
        .where(eq(challengeVersions.challengeId, challenge.challengeId)),
    ).rejects.toSatisfy(refusedWith("never deleted"));
  });
});

describe("the reconciler and a rescore whose message was lost", () => {
  it("sends it again once per grace period", async () => {
    const challenge = await seedChallenge("deep-merge");
    const agentId = await seedAgent(challenge);
    const submissionId = await seedSubmission(challenge, agentId, "complete");
    const now = Date.now();
    expect(await openVersion(challenge, "3", [{ submissionId, agentId }], { createdAt: now })).toBe(
      true,
    );
    // The queue is not consumed here: the test only looks at what the reconciler sends.
    const send = vi.spyOn(env.SUBMISSIONS, "send").mockResolvedValue(undefined as never);
    const sentRescore = () =>
      send.mock.calls.some(
        ([m]) =>
          (m as { kind?: string; submissionId?: string }).kind === "rescore" &&
          (m as { submissionId?: string }).submissionId === submissionId,
      );
    const scoreEnv = env as unknown as ScoreEnv & { SUBMISSIONS: Queue };
    // Within the grace its own message may still arrive: nothing is sent.
    await reconcileScoring(scoreEnv, now + 60_000);
    expect(sentRescore()).toBe(false);
    const later = now + 60 * 60 * 1000;
    expect((await reconcileScoring(scoreEnv, later)).requeuedRescores).toBeGreaterThanOrEqual(1);
    expect(sentRescore()).toBe(true);
    send.mockClear();
    await reconcileScoring(scoreEnv, later + 60_000);
    expect(sentRescore()).toBe(false);
    // A discarded version's leftover rescores are never sent again, however long they wait.
    await db()
      .update(challengeVersions)
      .set({ state: "discarded" })
      .where(eq(challengeVersions.challengeId, challenge.challengeId));
    await reconcileScoring(scoreEnv, later + 24 * 60 * 60 * 1000);
    expect(sentRescore()).toBe(false);
    send.mockRestore();
  });
});
