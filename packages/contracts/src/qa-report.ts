/**
 * @module contracts/qa-report
 * What the runner's challenge QA answers (`POST /v1/challenges/qa`, `npm run challenge -- qa`):
 * the reference solution run `repeats` times, each manifest test and generated candidate with
 * how often it passed, the tests QA removed, why the challenge is not publishable, and the
 * manifest without the removed tests. Invariants: `publishable` is true only when nothing was
 * removed and `problems` is empty; every test is listed once. Pure: zod only.
 */
import { z } from "zod";
import { ChallengeManifestSchema, StaticTestSpecSchema } from "./challenge-bundle.ts";

/** QA verdicts: passed every run, passed some, passed none. */
export const QA_VERDICTS = ["stable", "flaky", "failing"] as const;
export const QaVerdictSchema = z.enum(QA_VERDICTS);
export type QaVerdict = z.infer<typeof QaVerdictSchema>;

/** Where a QA'd test comes from: the manifest's two suites, or the deterministic generator. */
export const QA_TEST_KINDS = ["static", "adversarial", "generated"] as const;
export const QaTestKindSchema = z.enum(QA_TEST_KINDS);
export type QaTestKind = z.infer<typeof QaTestKindSchema>;

/** QA's verdict on one test over every run of the reference solution. */
export const QaTestSchema = z.strictObject({
  id: z.string().min(1).max(100),
  kind: QaTestKindSchema,
  passes: z.int().min(0),
  runs: z.int().min(1),
  verdict: QaVerdictSchema,
  lastMessage: z
    .string()
    .max(500)
    .describe("status and message of the last failed run; empty when every run passed"),
});
export type QaTest = z.infer<typeof QaTestSchema>;

/**
 * The bundle's manifest without the tests QA removed, and with the generated candidates that
 * failed added to `generation.exclude`. It may have no static test left (QA then says so in
 * `problems`), which a bundle's manifest may not.
 */
export const CleanedManifestSchema = ChallengeManifestSchema.safeExtend({
  staticTests: z.array(StaticTestSpecSchema).max(500),
});

/** The challenge QA report. */
export const QaReportSchema = z.strictObject({
  challengeId: z.string().min(1).max(64),
  repeats: z.int().min(1).describe("runs of the reference solution"),
  publishable: z.boolean(),
  tests: z.array(QaTestSchema),
  removed: z.array(z.string().min(1).max(100)).describe("ids of the tests that were not stable"),
  problems: z.array(z.string()).describe("what makes the challenge not publishable"),
  cleanedManifest: CleanedManifestSchema,
});
export type QaReport = z.infer<typeof QaReportSchema>;
