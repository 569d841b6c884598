/**
 * @module contracts/problem
 * The one error shape of every HTTP API: RFC 9457 `application/problem+json`, and the one
 * place that turns zod issues into it. Pure: zod only. Invariant: `detail` is always a
 * human-readable sentence; `errors` (when present) names each offending field by path.
 */
import { z } from "zod";

/** The media type every error response carries. */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** One field-level issue: `path` is dotted (`limits.maxArchiveBytes`, `claims.0.id`). */
export const ProblemFieldErrorSchema = z.strictObject({
  path: z.string(),
  message: z.string(),
});
export type ProblemFieldError = z.infer<typeof ProblemFieldErrorSchema>;

/**
 * One refused dependency of a submission: the package (null for a rule about a whole file),
 * the rule it broke, the file (and requirements.txt line), and why (docs/dependencies.md).
 */
export const DependencyRefusalWireSchema = z.object({
  package: z.string().nullable(),
  rule: z.string(),
  file: z.string(),
  line: z.int().optional(),
  detail: z.string(),
});
export type DependencyRefusalWire = z.infer<typeof DependencyRefusalWireSchema>;

/** An RFC 9457 problem document, with the platform's optional extension members. */
export const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int().min(400).max(599),
  detail: z.string(),
  instance: z.string().optional(),
  /** Field-level issues of a validation failure. */
  errors: z.array(ProblemFieldErrorSchema).optional(),
  /** The rule a domain check broke, e.g. the custom-weights rule. */
  rule: z.string().optional(),
  /** The archive entry a refused upload is refused for, as named in the archive. */
  entry: z.string().optional(),
  /** Every refused dependency of a submission, each naming its package and rule. */
  refusals: z.array(DependencyRefusalWireSchema).optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;

/** The `type` of the problem `code`: the stable URN `urn:bouts:problem:<code>`. */
export function buildProblemType(code: string): string {
  return `urn:bouts:problem:${code}`;
}

/** Builds a problem document; `type` is the stable URN of `code` ({@link buildProblemType}). */
export function buildProblem(
  status: number,
  code: string,
  title: string,
  detail: string,
  extra: Pick<Problem, "errors" | "rule" | "instance" | "entry" | "refusals"> = {},
): Problem {
  return { type: buildProblemType(code), title, status, detail, ...extra };
}

/** Turns zod issues into field errors, one per issue, with dotted paths. */
export function formatZodIssues(error: z.ZodError): ProblemFieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(root)",
    message: issue.message,
  }));
}

/**
 * The validation problem for a zod failure: 400 (malformed) or 422 (well-formed but
 * breaking a rule), with a `detail` that names the first offending fields.
 * @example problemFromZodError(result.error, "body") // { status: 400, detail: "Invalid body: title: ..." }
 */
export function problemFromZodError(
  error: z.ZodError,
  where: string,
  status: 400 | 422 = 400,
): Problem {
  const errors = formatZodIssues(error);
  const shown = errors
    .slice(0, 3)
    .map((e) => `${e.path}: ${e.message}`)
    .join("; ");
  const more = errors.length > 3 ? ` (and ${errors.length - 3} more)` : "";
  return buildProblem(
    status,
    "validation",
    "Invalid request",
    `Invalid ${where}: ${shown}${more}`,
    { errors },
  );
}
