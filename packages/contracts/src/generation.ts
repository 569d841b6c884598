/**
 * @module contracts/generation
 * Generated adversarial tests (the engineering spec's 60 % of adversarial weight "dynamically
 * generated from reading the submitted code"): the interface a challenge declares to drive the
 * deterministic generator, the suite any generator produces, and what a run reports about
 * generation. Invariants: generated test ids start with `gen-` so they can never collide with a
 * manifest id; generated files live under `tests/generated/` of the workspace, written by the host
 * after the pristine tests are laid down, so a submission cannot plant or alter them. Pure: zod
 * only.
 */
import { z } from "zod";
import { SeveritySchema } from "./findings.ts";

// ─── The declared interface ───

/** JSON value kinds a declared parameter or body field can have. */
export const VALUE_TYPES = ["string", "integer", "number", "boolean", "object", "array"] as const;
export const ValueTypeSchema = z.enum(VALUE_TYPES);
export type ValueType = z.infer<typeof ValueTypeSchema>;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/;

/** One parameter of a function, or one field of a JSON body or query string. */
export const ParamSpecSchema = z.strictObject({
  name: z.string().regex(IDENT, "an identifier"),
  type: ValueTypeSchema,
  optional: z.boolean().default(false),
  minLength: z.int().min(0).max(1_000_000).optional().describe("strings: shortest valid length"),
  maxLength: z.int().min(1).max(1_000_000).optional().describe("strings: longest valid length"),
  min: z.number().optional().describe("numbers: smallest valid value"),
  max: z.number().optional().describe("numbers: largest valid value"),
  example: z.json().describe("a valid value; generated calls vary one parameter at a time"),
});
export type ParamSpec = z.infer<typeof ParamSpecSchema>;

/** One exported function of a library-style challenge. */
export const FunctionSpecSchema = z.strictObject({
  name: z.string().regex(IDENT, "an identifier"),
  params: z.array(ParamSpecSchema).max(8),
  variadic: z.boolean().default(false).describe("the last parameter repeats (e.g. ...sources)"),
  invalidInputError: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_.]{0,63}$/)
    .describe("the error class a call with invalid input must throw (TypeError, ValueError, …)"),
  pure: z
    .boolean()
    .default(true)
    .describe("same input → same output, inputs never mutated, no state between calls"),
  async: z.boolean().default(false),
  exampleResult: z
    .json()
    .optional()
    .describe(
      "what the call with every parameter's example returns (a variadic last parameter passed twice); every generated refusal test also makes that call and expects it, so refusing everything passes none",
    ),
});
export type FunctionSpec = z.infer<typeof FunctionSpecSchema>;

/** A library-style interface: functions exported by one module of the submission. */
export const ModuleInterfaceSchema = z.strictObject({
  kind: z.literal("module"),
  module: z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_./-]{0,127}$/),
  functions: z.array(FunctionSpecSchema).min(1).max(16),
});

const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** A request the generated HTTP tests make as set-up (e.g. register, then log in). */
const SetupRequestSchema = z.strictObject({
  method: z.enum(HTTP_METHODS),
  path: z.string().regex(/^\/[A-Za-z0-9_./-]*$/),
  body: z.json(),
});

/** One HTTP route of a service-style challenge. */
export const RouteSpecSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/),
  method: z.enum(HTTP_METHODS),
  path: z
    .string()
    .regex(/^\/[A-Za-z0-9_./:-]*$/)
    .describe("may contain ':id', filled with the id of a resource created through `createdBy`"),
  auth: z.boolean().default(false).describe("needs `Authorization: Bearer <token>`"),
  body: z.array(ParamSpecSchema).max(16).nullable().default(null),
  query: z.array(ParamSpecSchema).max(8).default([]),
  successStatus: z.int().min(200).max(299),
  invalidStatus: z.int().min(400).max(499).default(400),
  unauthorizedStatus: z.int().min(400).max(499).default(401),
  unique: z
    .strictObject({ field: z.string().regex(IDENT), conflictStatus: z.int().min(400).max(499) })
    .optional()
    .describe("a body field whose value may be used once; repeats answer conflictStatus"),
  readBack: z
    .strictObject({
      path: z.string().regex(/^\/[A-Za-z0-9_./:-]*$/),
      idField: z.string().regex(IDENT),
    })
    .optional()
    .describe("GET path (with ':id') that returns what this route created"),
  list: z
    .string()
    .regex(/^\/[A-Za-z0-9_./-]*$/)
    .optional()
    .describe("GET path listing what this route created, as a JSON array"),
});
export type RouteSpec = z.infer<typeof RouteSpecSchema>;

/** A service-style interface: an HTTP server built by a factory the submission exports. */
export const HttpInterfaceSchema = z.strictObject({
  kind: z.literal("http"),
  module: z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_./-]{0,127}$/),
  factory: z.string().regex(IDENT).describe("exported function returning the server or { server }"),
  auth: z
    .strictObject({
      register: SetupRequestSchema.describe("body may use the placeholder {{user}}"),
      login: SetupRequestSchema,
      tokenField: z.string().regex(IDENT),
    })
    .optional(),
  routes: z.array(RouteSpecSchema).min(1).max(32),
});

/** What the deterministic generator reads: the challenge's declared interface. */
export const InterfaceSpecSchema = z.discriminatedUnion("kind", [
  ModuleInterfaceSchema,
  HttpInterfaceSchema,
]);
export type InterfaceSpec = z.infer<typeof InterfaceSpecSchema>;
export type ModuleInterface = z.infer<typeof ModuleInterfaceSchema>;
export type HttpInterface = z.infer<typeof HttpInterfaceSchema>;

// ─── Generated suites ───

/** What a generated test probes; the first five are the issue's list. */
export const GENERATION_TECHNIQUES = [
  "empty-boundary",
  "injection",
  "wrong-type",
  "oversized",
  "concurrent",
  "mutation",
  "malformed",
  "auth",
  "code-reading",
] as const;
export const GenerationTechniqueSchema = z.enum(GENERATION_TECHNIQUES);
export type GenerationTechnique = z.infer<typeof GenerationTechniqueSchema>;

/** Generator kinds: offline from the declared interface, or a model reading the code. */
export const GeneratorKindSchema = z.enum(["deterministic", "llm"]);
export type GeneratorKind = z.infer<typeof GeneratorKindSchema>;

/** Path of a generated file, relative to the workspace's tests/ folder. */
export const GeneratedPathSchema = z
  .string()
  .regex(
    /^generated\/[a-z0-9][a-z0-9_-]{0,63}\.(test\.mjs|py)$/,
    "generated/<name>.test.mjs or generated/test_<name>.py",
  );

/** One generated test: where it is, how much it weighs, and why it was written. */
export const GeneratedTestSpecSchema = z.strictObject({
  id: z.string().regex(/^gen-[a-z0-9][a-z0-9.-]{0,75}$/, "gen-<lower-case id>"),
  file: GeneratedPathSchema,
  name: z.string().min(1).max(200),
  severity: SeveritySchema,
  technique: GenerationTechniqueSchema,
  target: z.string().min(1).max(120).describe("the function or route under test"),
  rationale: z.string().min(1).max(300).describe("why this test was chosen for this submission"),
});
export type GeneratedTestSpec = z.infer<typeof GeneratedTestSpecSchema>;

/** A generated file's content (test code written by a generator; never submission code). */
export const GeneratedFileSchema = z.strictObject({
  path: GeneratedPathSchema,
  content: z.string().max(256 * 1024),
});
export type GeneratedFile = z.infer<typeof GeneratedFileSchema>;

/** What a generator produced for one submission. */
export const GeneratedSuiteSchema = z
  .strictObject({
    generator: z.strictObject({
      name: z.string().min(1).max(100),
      kind: GeneratorKindSchema,
      model: z.string().max(200).nullable().default(null),
    }),
    files: z.array(GeneratedFileSchema).max(8),
    tests: z.array(GeneratedTestSpecSchema).max(64),
  })
  .superRefine((s, ctx) => {
    const files = new Set(s.files.map((f) => f.path));
    const ids = new Set<string>();
    for (const [i, t] of s.tests.entries()) {
      if (!files.has(t.file))
        ctx.addIssue({ code: "custom", path: ["tests", i, "file"], message: "no such file" });
      if (ids.has(t.id))
        ctx.addIssue({ code: "custom", path: ["tests", i, "id"], message: "duplicate id" });
      ids.add(t.id);
    }
  });
export type GeneratedSuite = z.infer<typeof GeneratedSuiteSchema>;

// ─── What a run reports ───

/** Why a generated test was not counted. */
export const DroppedTestSchema = z.strictObject({
  id: z.string().max(100),
  reason: z.string().max(300),
});

/** One generator's contribution to a run. */
export const GeneratorReportSchema = z.strictObject({
  name: z.string().max(100),
  kind: GeneratorKindSchema,
  model: z.string().max(200).nullable(),
  status: z
    .enum(["ok", "not-declared", "unavailable"])
    .describe(
      "not-declared: the challenge declares no interface; unavailable: the generator failed",
    ),
  detail: z.string().max(500).nullable(),
  candidates: z.int().min(0),
  selected: z.int().min(0),
  dropped: z.array(DroppedTestSchema).max(64),
});
export type GeneratorReport = z.infer<typeof GeneratorReportSchema>;

/** The adversarial suite's make-up: the engineering spec's 40 / 60 target and what the run achieved. */
export const GenerationReportSchema = z.strictObject({
  target: z.strictObject({ prebuilt: z.literal(40), generated: z.literal(60) }),
  weightHalves: z
    .strictObject({ prebuilt: z.int().min(0), generated: z.int().min(0), budget: z.int().min(0) })
    .describe("severity weights in halves (critical 6, high 4, medium 2, low 1)"),
  generators: z.array(GeneratorReportSchema).max(4),
});
export type GenerationReport = z.infer<typeof GenerationReportSchema>;
