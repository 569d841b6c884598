/**
 * @module judges/verdict
 * Validates a model's JSON answer with zod. Malformed answers are values, so adapters can
 * retry them. Pure.
 */
import { z } from "zod";
import type { JudgeTaskKind } from "./task.ts";

const dim = z.number().min(0).max(100);
const common = {
  rationale: z.string().max(4000).default(""),
  injection_detected: z.boolean().default(false),
};

const CodeQualityVerdict = z.object({
  dimensions: z.object({ readability: dim, architecture: dim, robustness: dim, idiomaticity: dim }),
  ...common,
});
const DeliverableVerdict = z.object({
  dimensions: z.object({ accuracy: dim, clarity: dim, completeness: dim, actionability: dim }),
  ...common,
});
const ScoreVerdict = z.object({ score: dim, ...common });

/** A validated answer. */
export interface Verdict {
  dimensions: Record<string, number> | null;
  score: number | null;
  rationale: string;
  injectionDetected: boolean;
}

/** Extracts the first JSON object from a model's text (models sometimes wrap it in a code fence). */
function extractJson(raw: unknown): unknown {
  if (typeof raw !== "string") return raw;
  const start = raw.indexOf("{");
  const end = raw.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    return JSON.parse(raw.slice(start, end + 1)) as unknown;
  } catch {
    return undefined;
  }
}

/** Parses a model's answer for a task kind, or says what is wrong with it. */
export function parseVerdict(
  kind: JudgeTaskKind,
  raw: unknown,
): { ok: true; value: Verdict } | { ok: false; detail: string } {
  const json = extractJson(raw);
  if (json === undefined) return { ok: false, detail: "the answer holds no JSON object" };
  if (kind === "code-quality" || kind === "deliverable") {
    const r = (kind === "code-quality" ? CodeQualityVerdict : DeliverableVerdict).safeParse(json);
    if (!r.success) return { ok: false, detail: z.prettifyError(r.error) };
    return {
      ok: true,
      value: {
        dimensions: r.data.dimensions,
        score: null,
        rationale: r.data.rationale,
        injectionDetected: r.data.injection_detected,
      },
    };
  }
  const r = ScoreVerdict.safeParse(json);
  if (!r.success) return { ok: false, detail: z.prettifyError(r.error) };
  return {
    ok: true,
    value: {
      dimensions: null,
      score: r.data.score,
      rationale: r.data.rationale,
      injectionDetected: r.data.injection_detected,
    },
  };
}

/** JSON Schema of the answer, for providers that accept `response_format: json_schema`. */
export function verdictJsonSchema(kind: JudgeTaskKind): Record<string, unknown> {
  const n = { type: "number", minimum: 0, maximum: 100 };
  const dims =
    kind === "code-quality"
      ? ["readability", "architecture", "robustness", "idiomaticity"]
      : ["accuracy", "clarity", "completeness", "actionability"];
  const tail = { rationale: { type: "string" }, injection_detected: { type: "boolean" } };
  return kind === "code-quality" || kind === "deliverable"
    ? {
        type: "object",
        properties: {
          dimensions: {
            type: "object",
            properties: Object.fromEntries(dims.map((d) => [d, n])),
            required: dims,
          },
          ...tail,
        },
        required: ["dimensions", "rationale", "injection_detected"],
      }
    : {
        type: "object",
        properties: { score: n, ...tail },
        required: ["score", "rationale", "injection_detected"],
      };
}
