/**
 * @module contracts/challenge-bundle
 * The manifest (`challenge.json`) of a challenge bundle: runtime, test framework, every hidden
 * test with its category or severity, required deliverables and resource limits. Invariants:
 * test ids are unique across static and adversarial tests; every path is relative, forward-slash
 * and free of `..`; the runtime and the test framework agree. Pure: zod only.
 */
import { z } from "zod";
import { SeveritySchema } from "./findings.ts";
import { InterfaceSpecSchema } from "./generation.ts";
import { declareSplit, drawSplit, type TestSplit } from "@bouts/scoring";

/** Runtimes a challenge can target; the runner maps each to one interpreter binary. */
export const RUNTIMES = ["node22", "python3.11"] as const;
export const RuntimeSchema = z.enum(RUNTIMES);
export type Runtime = z.infer<typeof RuntimeSchema>;

/** Test frameworks, one per runtime: Node's built-in runner and pytest. */
export const TEST_FRAMEWORKS = ["node:test", "pytest"] as const;
export const TestFrameworkSchema = z.enum(TEST_FRAMEWORKS);

/** The engineering spec's static-suite categories (50 / 30 / 20 of the static suite). */
export const STATIC_CATEGORIES = ["functionality", "edge", "integration"] as const;
export const StaticCategorySchema = z.enum(STATIC_CATEGORIES);
export type StaticCategory = z.infer<typeof StaticCategorySchema>;

const TEST_ID = /^[a-z0-9][a-z0-9._-]{0,79}$/;

/** A relative POSIX path inside a bundle or workspace: no `..`, no absolute or drive prefix. */
export const RelativePathSchema = z
  .string()
  .min(1)
  .max(256)
  .refine(
    (p) =>
      !p.startsWith("/") &&
      !p.includes("\\") &&
      !/^[A-Za-z]:/.test(p) &&
      !p.includes("\0") &&
      p.split("/").every((s) => s !== "" && s !== "." && s !== ".."),
    { message: "must be a relative path without '.', '..', backslashes or empty segments" },
  );

const TestRefShape = {
  id: z.string().regex(TEST_ID, "lower-case id: letters, digits, '.', '_' or '-'"),
  file: RelativePathSchema.describe("test file, relative to the bundle's tests/ folder"),
  name: z.string().min(1).max(200).describe("the test's exact name in that file"),
};

/** One static (hidden) test. */
export const StaticTestSpecSchema = z.strictObject({
  ...TestRefShape,
  category: StaticCategorySchema,
});
export type StaticTestSpec = z.infer<typeof StaticTestSpecSchema>;

/** One pre-built adversarial test, weighted by its severity (critical 3×, high 2×, medium 1×, low 0.5×). */
export const AdversarialTestSpecSchema = z.strictObject({
  ...TestRefShape,
  severity: SeveritySchema,
});
export type AdversarialTestSpec = z.infer<typeof AdversarialTestSpecSchema>;

/** A written deliverable the submission must contain, e.g. ROOT_CAUSE.md. */
export const DeliverableSpecSchema = z.strictObject({
  path: RelativePathSchema,
  description: z.string().min(1).max(500),
  required: z.boolean().default(true),
});
export type DeliverableSpec = z.infer<typeof DeliverableSpecSchema>;

/**
 * Resource limits the challenge asks for. Each is an upper bound: the runner's own configured
 * limits still apply, and a run uses the lower of the two. `runWallMs` is the whole run's wall
 * budget (scan and tests); when absent the runner derives it from the test count and the
 * per-test limit (docs/runner.md, "Run budget").
 */
export const ChallengeLimitsSchema = z.strictObject({
  testTimeoutMs: z.int().min(100).max(10_000).default(10_000),
  memoryMb: z.int().min(32).max(8192).default(512),
  cpuSeconds: z.int().min(1).max(600).default(30),
  maxProcesses: z.int().min(4).max(1024).default(64),
  maxOpenFiles: z.int().min(16).max(4096).default(256),
  maxFileSizeMb: z.int().min(1).max(1024).default(16),
  maxOutputBytes: z
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(256 * 1024),
  runWallMs: z.int().min(5_000).max(3_600_000).optional(),
});
export type ChallengeLimits = z.infer<typeof ChallengeLimitsSchema>;

const MIB = 1024 * 1024;

/**
 * Whether, and within what bounds, a submission may bring third-party packages of its own,
 * pinned by a lockfile at its root (package-lock.json, requirements.txt or uv.lock; read by
 * @bouts/dependencies, docs/dependencies.md). Refused by default.
 */
export const SubmissionDependenciesSchema = z.strictObject({
  allowed: z
    .boolean()
    .default(false)
    .describe("whether a submission may bring its own locked third-party dependencies"),
  maxPackages: z
    .int()
    .min(1)
    .max(2000)
    .default(200)
    .describe("most packages a submission's lockfile may pin"),
  maxInstalledBytes: z
    .int()
    .min(MIB)
    .max(512 * MIB)
    .default(64 * MIB)
    .describe("most bytes a submission's dependencies may take once installed"),
  maxInstallMs: z
    .int()
    .min(1000)
    .max(600_000)
    .default(120_000)
    .describe(
      "most wall time, in ms, the sandboxed install of a submission's dependencies may take",
    ),
});
export type SubmissionDependencies = z.infer<typeof SubmissionDependenciesSchema>;

/** A package name as npm or PyPI spells it (scoped npm names included), for `allowNames`. */
const PackageNameSchema = z
  .string()
  .min(1)
  .max(214)
  .regex(
    /^(@[A-Za-z0-9][A-Za-z0-9._~-]*\/)?[A-Za-z0-9][A-Za-z0-9._~-]*$/,
    "an npm or PyPI package name",
  );

/** The challenge's third-party dependencies, and what its submissions may bring. */
export const ChallengeDependenciesSchema = z.strictObject({
  lockfile: RelativePathSchema.nullable().describe(
    "package-lock.json or requirements.lock in the bundle; null = no third-party deps",
  ),
  submissions: SubmissionDependenciesSchema.prefault({}).describe(
    "whether and how far submissions may add dependencies of their own",
  ),
  allowNames: z
    .array(PackageNameSchema)
    .max(100)
    .default([])
    .describe(
      "package names exempt from the typosquat check (an honest package one slip from a popular one)",
    ),
});
export type ChallengeDependencies = z.infer<typeof ChallengeDependenciesSchema>;

/** What a baseline stands for: the reference solution, an empty or stub one, or another. */
export const BASELINE_KINDS = ["reference", "stub", "other"] as const;

/**
 * A baseline submission the author ships in the bundle: scored by the same pipeline when the
 * challenge is published, shown on the board as a marked reference line that takes no rank.
 */
export const BaselineSpecSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "kebab-case baseline id"),
  label: z.string().min(1).max(80).describe('shown on the board, e.g. "reference solution"'),
  kind: z.enum(BASELINE_KINDS),
  path: RelativePathSchema.describe("the submission's folder inside the bundle, e.g. reference"),
});
export type BaselineSpec = z.infer<typeof BaselineSpecSchema>;

/**
 * The public/private split of the hidden tests (docs/design.md §29): `private` declares the
 * held-out ids, or `seed` + `privatePercent` draws them per stratum; `finalChoices` is how many
 * submissions an agent may choose for the private board.
 */
export const SplitSpecSchema = z
  .strictObject({
    private: z
      .array(z.string().regex(TEST_ID))
      .min(1)
      .max(1000)
      .optional()
      .describe("declared private test ids (static or pre-built adversarial)"),
    seed: z.string().min(1).max(128).optional().describe("seed of a recorded, repeatable draw"),
    privatePercent: z
      .int()
      .min(1)
      .max(90)
      .optional()
      .describe("share of each stratum a seeded draw holds out, in percent"),
    finalChoices: z
      .int()
      .min(1)
      .max(10)
      .default(2)
      .describe("how many final submissions an agent may choose before close"),
  })
  .refine((s) => (s.private !== undefined) !== (s.seed !== undefined), {
    message: "declare either `private` or a `seed` to draw from, not both",
  })
  .refine((s) => (s.seed === undefined) === (s.privatePercent === undefined), {
    message: "a seeded split needs both `seed` and `privatePercent`",
  });
export type SplitSpec = z.infer<typeof SplitSpecSchema>;

/** The manifest, `challenge.json` at the bundle root. */
export const ChallengeManifestSchema = z
  .strictObject({
    schemaVersion: z.literal(1),
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{1,63}$/, "kebab-case challenge id"),
    title: z.string().min(1).max(200),
    runtime: RuntimeSchema,
    testFramework: TestFrameworkSchema,
    staticTests: z.array(StaticTestSpecSchema).min(1).max(500),
    adversarialTests: z.array(AdversarialTestSpecSchema).max(500).default([]),
    deliverables: z.array(DeliverableSpecSchema).max(20).default([]),
    limits: ChallengeLimitsSchema.prefault({}),
    dependencies: ChallengeDependenciesSchema.prefault({ lockfile: null }),
    interface: InterfaceSpecSchema.optional().describe(
      "the submission's public interface; drives the deterministic adversarial generator",
    ),
    generation: z
      .strictObject({
        maxTests: z.int().min(0).max(64).default(16),
        exclude: z
          .array(z.string().regex(/^gen-[a-z0-9][a-z0-9.-]{0,75}$/))
          .max(500)
          .default([])
          .describe("generated candidates removed by challenge QA (they failed on the reference)"),
      })
      .prefault({}),
    baselines: z
      .array(BaselineSpecSchema)
      .max(8)
      .default([])
      .describe("baseline submissions shipped in the bundle, shown on the board without a rank"),
    split: SplitSpecSchema.optional().describe(
      "public/private split of the hidden tests; absent: every test is public",
    ),
  })
  .superRefine((m, ctx) => {
    const expected = m.runtime === "node22" ? "node:test" : "pytest";
    if (m.testFramework !== expected) {
      ctx.addIssue({
        code: "custom",
        path: ["testFramework"],
        message: `runtime ${m.runtime} runs tests with ${expected}`,
      });
    }
    const seen = new Set<string>();
    for (const [i, t] of [...m.staticTests, ...m.adversarialTests].entries()) {
      if (seen.has(t.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["tests", i, "id"],
          message: `duplicate test id ${t.id}`,
        });
      }
      seen.add(t.id);
    }
    if (m.split?.private) {
      const known = new Set([...m.staticTests, ...m.adversarialTests].map((t) => t.id));
      const held = new Set(m.split.private);
      for (const [i, id] of m.split.private.entries())
        if (!known.has(id))
          ctx.addIssue({
            code: "custom",
            path: ["split", "private", i],
            message: `${id} is not a static or pre-built adversarial test of this manifest`,
          });
      for (const category of new Set(m.staticTests.map((t) => t.category)))
        if (m.staticTests.every((t) => t.category !== category || held.has(t.id)))
          ctx.addIssue({
            code: "custom",
            path: ["split", "private"],
            message: `every ${category} static test is private; at least one must stay public`,
          });
    }
    const baselineIds = new Set<string>();
    for (const [i, b] of m.baselines.entries()) {
      if (baselineIds.has(b.id)) {
        ctx.addIssue({
          code: "custom",
          path: ["baselines", i, "id"],
          message: `duplicate baseline id ${b.id}`,
        });
      }
      baselineIds.add(b.id);
    }
  });
export type ChallengeManifest = z.infer<typeof ChallengeManifestSchema>;

/**
 * The manifest's split as recorded (design.md §29), or null when every test is public. A seeded
 * split is drawn per stratum: static tests by category, pre-built adversarial tests by severity.
 */
export function resolveManifestSplit(m: ChallengeManifest): TestSplit | null {
  if (!m.split) return null;
  if (m.split.private) return declareSplit(m.split.private);
  if (m.split.seed === undefined || m.split.privatePercent === undefined) return null;
  return drawSplit(
    [
      ...m.staticTests.map((t) => ({ id: t.id, stratum: `static:${t.category}` })),
      ...m.adversarialTests.map((t) => ({ id: t.id, stratum: `adversarial:${t.severity}` })),
    ],
    m.split.seed,
    m.split.privatePercent,
  );
}
