/**
 * @module contracts/run-report
 * What the runner observed when it ran one submission against one challenge: every manifest
 * test with its outcome (a test that never ran is "not-run", never dropped), stability with
 * evidence, integrity and exploit evidence, the security scan, the deliverables found, timings,
 * the runtime and the limits used, and the run's wall budget (what it was, how much was spent,
 * whether it ran out). A run that could not happen carries `infrastructure` and no verdicts.
 * Pure: zod only.
 */
import { z } from "zod";
import { ExploitEvidenceSchema, IntegrityEvidenceSchema } from "./evidence.ts";
import { SeveritySchema } from "./findings.ts";
import { ProblemSchema } from "./problem.ts";
import { ScanReportSchema } from "./scan-report.ts";
import { RuntimeSchema, StaticCategorySchema } from "./challenge-bundle.ts";
import {
  DroppedTestSchema,
  GeneratedSuiteSchema,
  GenerationReportSchema,
  GenerationTechniqueSchema,
  GeneratorKindSchema,
  GeneratorReportSchema,
} from "./generation.ts";

/**
 * Outcome of one test. Only "passed" earns credit. "budget-exhausted": the run's wall budget ran
 * out before or while the test ran (docs/runner.md, "Run budget").
 */
export const TEST_STATUSES = [
  "passed",
  "failed",
  "timeout",
  "crashed",
  "not-run",
  "budget-exhausted",
] as const;
export const TestStatusSchema = z.enum(TEST_STATUSES);
export type TestStatus = z.infer<typeof TestStatusSchema>;

const TestOutcomeShape = {
  id: z.string().min(1).max(80),
  status: TestStatusSchema,
  durationMs: z.number().min(0),
  message: z.string().max(2000).describe("failure reason or '' when passed"),
};

/** One static test's outcome. */
export const StaticTestResultSchema = z.strictObject({
  ...TestOutcomeShape,
  category: StaticCategorySchema,
});
export type StaticTestResult = z.infer<typeof StaticTestResultSchema>;

/** One adversarial test's outcome; "generated" tests come from the adversarial generator. */
export const AdversarialTestResultSchema = z.strictObject({
  ...TestOutcomeShape,
  severity: SeveritySchema,
  origin: z.enum(["prebuilt", "generated"]),
  generated: z
    .strictObject({
      generator: z.string().max(100),
      kind: GeneratorKindSchema,
      technique: GenerationTechniqueSchema,
      target: z.string().max(120),
      rationale: z.string().max(300),
    })
    .optional()
    .describe("for generated tests: which generator wrote it, what it probes and why"),
});
export type AdversarialTestResult = z.infer<typeof AdversarialTestResultSchema>;

/** The engineering spec's stability buckets: clean 100, warnings 50, crashed 0. */
export const STABILITY_VERDICTS = ["clean", "warnings", "crashed"] as const;
export const StabilitySchema = z.strictObject({
  verdict: z.enum(STABILITY_VERDICTS),
  evidence: z.array(z.string().max(500)).max(100),
  /**
   * Where each evidence line came from, index for index: the test it was observed in (null for
   * the subject or the run as a whole) and whether it is a crash or a warning. Absent from
   * reports of runners before it; the score role then keeps the verdict as it is.
   */
  sources: z
    .array(
      z.strictObject({
        test: z.string().max(200).nullable(),
        kind: z.enum(["crash", "warning"]),
        part: z
          .enum(["public", "private"])
          .optional()
          .describe(
            "on a split challenge: whether the line came from the public tests and their subject, or from the private tests' own subject incarnation",
          ),
      }),
    )
    .max(100)
    .optional(),
});
export type Stability = z.infer<typeof StabilitySchema>;

/** A required or optional deliverable and whether the submission contains it. */
export const DeliverableFoundSchema = z.strictObject({
  name: z.string().max(256),
  required: z.boolean(),
  present: z.boolean(),
  bytes: z.int().min(0),
  path: z.string().max(256).nullable().describe("path relative to the submission root"),
  content: z
    .string()
    .max(64 * 1024)
    .nullable()
    .describe("the text, for the judges (UTF-8, cut at 64 KiB); null when absent or not text"),
});
export type DeliverableFound = z.infer<typeof DeliverableFoundSchema>;

/** Limits of the source packet the runner hands to the judges. */
export const SOURCE_PACKET_LIMITS = { files: 200, fileBytes: 64 * 1024, totalBytes: 512 * 1024 };

/** One source file of the submission, as text, for the judges (never executed by them). */
export const SourceFileSchema = z.strictObject({
  path: z.string().min(1).max(256),
  content: z.string().max(SOURCE_PACKET_LIMITS.fileBytes),
  truncated: z.boolean(),
});
export type SourceFile = z.infer<typeof SourceFileSchema>;

/** The limits a run was actually held to (the lowest of config, challenge and request). */
export const RunLimitsSchema = z.strictObject({
  testTimeoutMs: z.int().min(1),
  memoryMb: z.int().min(1),
  cpuSeconds: z.int().min(1),
  maxProcesses: z.int().min(1),
  maxOpenFiles: z.int().min(1),
  maxFileSizeMb: z.int().min(1),
  maxOutputBytes: z.int().min(1),
  runWallMs: z.int().min(1),
});
export type RunLimits = z.infer<typeof RunLimitsSchema>;

/**
 * The run's wall budget: `limitMs` (= `limits.runWallMs`) covers the scan and the tests, the scan
 * has its own deadline inside it, and `spentMs` is the wall time the run used against it.
 * `failFast` is set when the subject faulted on `consecutive` tests in a row and the tests after
 * them failed without waiting for their own limits.
 */
export const RunBudgetSchema = z.strictObject({
  limitMs: z.int().min(1),
  source: z
    .enum(["derived", "challenge", "request"])
    .describe("derived from the test count and limit, the manifest's runWallMs, or the request"),
  scanDeadlineMs: z.int().min(1),
  spentMs: z.number().min(0),
  exhausted: z.boolean(),
  failFast: z
    .strictObject({
      consecutive: z.int().min(1),
      reason: z.string().max(500),
      testsFailed: z.int().min(0).describe("tests failed at once, without calling the subject"),
    })
    .nullable(),
});
export type RunBudget = z.infer<typeof RunBudgetSchema>;

/** Why a run could not happen: never the submission's fault, so never a score. */
export const InfrastructureErrorSchema = z.strictObject({
  reason: z.enum(["sandbox-unavailable", "bundle-invalid", "prepare-failed", "internal"]),
  message: z.string().max(2000),
});
export type InfrastructureError = z.infer<typeof InfrastructureErrorSchema>;

/**
 * The third-party packages a run's subject had, from the lockfile it was installed from: the
 * submission's own when it brought one, else the challenge's. Names and versions are the
 * lock's, read by @bouts/dependencies and checked (exact registry releases): data for the
 * judges' idiomaticity criterion ("dependencies used wisely"), never instructions.
 */
export const RunDependenciesSchema = z.strictObject({
  source: z.enum(["submission", "challenge"]),
  ecosystem: z.enum(["npm", "PyPI"]),
  lockfile: z.string().max(64),
  /** The direct dependencies (the manifest's or the requirements' own lines), by name. */
  direct: z
    .array(
      z.strictObject({ name: z.string().min(1).max(214), version: z.string().min(1).max(256) }),
    )
    .max(2000),
  /** Every package the lock pins, transitive ones included. */
  total: z.int().min(0).max(100_000),
});
export type RunDependencies = z.infer<typeof RunDependenciesSchema>;

/** The full report of one run. */
export const RunReportSchema = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.string().min(1).max(100),
  challengeId: z.string().min(1).max(64),
  bundleSha256: z.string().regex(/^[0-9a-f]{64}$/),
  submissionSha256: z.string().regex(/^[0-9a-f]{64}$/),
  filesSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe(
      "canonical hash of the submitted files the run used (@bouts/archive canonicalFilesSha256): the same files give the same value however they were packed; absent in reports written before it existed",
    ),
  files: z
    .array(
      z.strictObject({
        path: z.string().min(1).max(4096),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
      }),
    )
    .max(5000)
    .optional()
    .describe(
      "each file the run used and its sha256, in path order (the files behind filesSha256): what a telemetry trace's file digests are checked against; absent in reports written before it existed",
    ),
  runtime: z.strictObject({ name: RuntimeSchema, version: z.string().max(64) }),
  limits: RunLimitsSchema,
  staticTests: z.array(StaticTestResultSchema),
  adversarialTests: z.array(AdversarialTestResultSchema),
  stability: StabilitySchema,
  integrity: z.array(IntegrityEvidenceSchema),
  exploits: z.array(ExploitEvidenceSchema),
  publicEvidence: z
    .strictObject({
      integrity: z.array(IntegrityEvidenceSchema),
      exploits: z.array(ExploitEvidenceSchema),
    })
    .optional()
    .describe(
      "on a split challenge: the integrity and exploit evidence of the public tests and their subject alone (the private tests run last, against a subject of their own)",
    ),
  scan: ScanReportSchema,
  dependencies: RunDependenciesSchema.optional().describe(
    "the third-party packages the subject ran with, for the judges (absent in reports written before it existed)",
  ),
  deliverables: z.array(DeliverableFoundSchema),
  sources: z
    .array(SourceFileSchema)
    .max(SOURCE_PACKET_LIMITS.files)
    .describe("the submission's source files for the judges, bounded; hidden tests excluded"),
  timings: z.strictObject({
    startedAt: z.iso.datetime(),
    unpackMs: z.number().min(0),
    prepareMs: z.number().min(0),
    testsMs: z.number().min(0),
    scanMs: z.number().min(0),
    totalMs: z.number().min(0),
  }),
  notes: z
    .array(z.string().max(500))
    .max(100)
    .describe("observations that are not evidence, e.g. removed dependency folders"),
  infrastructure: InfrastructureErrorSchema.nullable(),
  generation: GenerationReportSchema.optional().describe(
    "how the adversarial suite was composed: pre-built vs generated weight and each generator",
  ),
  budget: RunBudgetSchema.optional().describe(
    "the run's wall budget and what was spent of it (absent in reports written before it existed)",
  ),
});
export type RunReport = z.infer<typeof RunReportSchema>;

/**
 * The `job` part of a run request to the runner (POST /v1/runs). Limits may only lower the
 * runner's configured ceilings; a higher value is refused with a 4xx.
 */
export const RunJobRequestSchema = z.strictObject({
  runId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional()
    .describe("caller's id for the run (e.g. the submission id); generated when absent"),
  limits: RunLimitsSchema.partial().optional(),
  submissionSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe("the sha256 recorded at upload; other bytes are refused (artifact-integrity)"),
  drawKey: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional()
    .describe(
      "the platform's draw key for this bundle (HMAC of its secret over the bundle sha256): keys which generated tests are drawn; absent: a public key (local runs)",
    ),
});
export type RunJobRequest = z.infer<typeof RunJobRequestSchema>;

/**
 * The `job` part of POST /v1/runs/generated: a suite written elsewhere (by a model-backed
 * generator in the score worker) to run against the submission. Every test is first run against
 * the challenge's reference solution; one that fails there is dropped, never counted.
 */
export const RunGeneratedRequestSchema = z.strictObject({
  runId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
  limits: RunLimitsSchema.partial().optional(),
  suite: GeneratedSuiteSchema,
});
export type RunGeneratedRequest = z.infer<typeof RunGeneratedRequestSchema>;

/** The answer of POST /v1/runs/generated. */
export const GeneratedRunResultSchema = z.strictObject({
  schemaVersion: z.literal(1),
  runId: z.string().min(1).max(100),
  tests: z.array(AdversarialTestResultSchema).max(64),
  dropped: z.array(DroppedTestSchema).max(64),
  generator: GeneratorReportSchema,
  infrastructure: InfrastructureErrorSchema.nullable(),
});
export type GeneratedRunResult = z.infer<typeof GeneratedRunResultSchema>;

/**
 * The runner's error answer (docs/runner.md): the platform's problem document (`type`
 * `urn:bouts:problem:<code>`, with `errors` for an invalid job, `rule` and `entry` for a
 * refused archive) and, for a run the sandbox could not start (503 `sandbox-unavailable`), the
 * run's report, whose `infrastructure` says why.
 */
export const RunnerProblemSchema = ProblemSchema.extend({
  report: RunReportSchema.optional().describe("503 sandbox-unavailable: the run's report"),
});
export type RunnerProblem = z.infer<typeof RunnerProblemSchema>;
