/**
 * @module scoring/judging
 * Who judged a score: each judgement's provenance (the offline heuristic panel, or a model
 * behind an adapter), summed up once per breakdown so that a heuristic grade is never read as
 * a model's. Provenance changes no number; it is validated like every other input. Knows no
 * profile: each judged list names its component by the label its profile gave it. Pure.
 */
import { ok, type Result } from "@bouts/result";
import { invalid, type ScoringError } from "./errors.ts";
import type { Flag, JudgeIdentity, JudgingSummary } from "./breakdown.ts";
import { checkOneOf, checkRecord, checkString } from "./validate.ts";

type Checked<T> = Result<T, ScoringError>;

/** The judgement lists of one input, each with the component it belongs to. */
export interface JudgedList {
  component: string;
  /** The component's label in the breakdown ("Code quality"); the summary names it in lower case. */
  label: string;
  field: string;
  judges: unknown;
}

const KINDS = ["heuristic", "model"] as const;

/**
 * Sums up the provenance of every judgement in `lists`. A judge id seen twice must carry the same
 * provenance both times; lists are checked by their components first, so only `provenance` is
 * read here.
 * @example summarizeJudging([{ component: "codeQuality", label: "Code quality", field: "codeQuality.judges",
 *   judges: [{ judge: "readability", provenance: { kind: "heuristic", method: "static analysis" } }] }])
 *   // ok: panel "heuristic"
 */
export function summarizeJudging(lists: readonly JudgedList[]): Checked<JudgingSummary> {
  const byJudge = new Map<string, JudgeIdentity>();
  for (const list of lists) {
    if (!Array.isArray(list.judges)) continue;
    for (const [i, raw] of list.judges.entries()) {
      const entry = raw as Record<string, unknown>;
      const judge = entry.judge as string;
      const field = `${list.field}[${i}].provenance`;
      const seen = readProvenance(field, judge, entry.provenance);
      if (!seen.ok) return seen;
      const known = byJudge.get(judge);
      if (!known) {
        byJudge.set(judge, { ...seen.value, components: [list.component] });
        continue;
      }
      if (!sameSource(known, seen.value))
        return invalid(field, `judge ${JSON.stringify(judge)} has two different provenances`);
      if (!known.components.includes(list.component)) known.components.push(list.component);
    }
  }
  const judges = [...byJudge.values()];
  const kinds = new Set(judges.map((j) => j.kind));
  const panel: JudgingSummary["panel"] =
    kinds.size === 1 ? [...kinds][0]! : kinds.size === 0 ? "unspecified" : "mixed";
  const names = new Map(lists.map((l) => [l.component, sentenceCase(l.label)]));
  return ok({ panel, judges, summary: describeJudging(panel, judges, names) });
}

/** The flag a breakdown carries when any of its judges is the heuristic panel's. */
export function judgingFlags(j: JudgingSummary): Flag[] {
  return j.judges.some((x) => x.kind === "heuristic")
    ? [{ code: "heuristic-judges", component: null, message: j.summary }]
    : [];
}

function readProvenance(
  field: string,
  judge: string,
  raw: unknown,
): Checked<Omit<JudgeIdentity, "components">> {
  const identity = (
    kind: JudgeIdentity["kind"],
    provider: string | null,
    model: string | null,
    method: string | null,
  ) => ok({ judge, kind, provider, model, method });
  if (raw === undefined || raw === null) return identity("unspecified", null, null, null);
  const rec = checkRecord(field, raw);
  if (!rec.ok) return rec;
  const kind = checkOneOf(`${field}.kind`, rec.value.kind, KINDS);
  if (!kind.ok) return kind;
  if (kind.value === "heuristic") {
    const method = checkString(`${field}.method`, rec.value.method, 300);
    return method.ok ? identity("heuristic", null, null, method.value) : method;
  }
  const provider = checkString(`${field}.provider`, rec.value.provider, 100);
  if (!provider.ok) return provider;
  const model = checkString(`${field}.model`, rec.value.model, 200);
  if (!model.ok) return model;
  return identity("model", provider.value, model.value, null);
}

const sameSource = (a: Omit<JudgeIdentity, "components">, b: Omit<JudgeIdentity, "components">) =>
  a.kind === b.kind && a.provider === b.provider && a.model === b.model && a.method === b.method;

/** A label as a sentence names it: "Code quality" → "code quality". */
const sentenceCase = (label: string): string => label.charAt(0).toLowerCase() + label.slice(1);

function describeJudging(
  panel: JudgingSummary["panel"],
  judges: JudgeIdentity[],
  names: ReadonlyMap<string, string>,
): string {
  const graded = [...new Set(judges.flatMap((j) => j.components))]
    .map((c) => names.get(c) ?? c)
    .join(", ");
  const models = judges
    .filter((j) => j.kind === "model")
    .map((j) => `${j.provider}:${j.model}`)
    .join(", ");
  const heuristic = judges.filter((j) => j.kind === "heuristic").map((j) => j.judge);
  switch (panel) {
    case "heuristic":
      return `Judged by the offline heuristic panel (static analysis, no model): ${heuristic.join(", ")} graded ${graded}.`;
    case "model":
      return `Judged by model judges: ${models} graded ${graded}.`;
    case "mixed": {
      const unspecified = judges.filter((j) => j.kind === "unspecified").map((j) => j.judge);
      const parts = [
        heuristic.length > 0 && `heuristic (static analysis, no model) ${heuristic.join(", ")}`,
        models && `models ${models}`,
        unspecified.length > 0 && `unspecified ${unspecified.join(", ")}`,
      ].filter(Boolean);
      return `Judged by a mixed panel: ${parts.join("; ")}; they graded ${graded}.`;
    }
    case "unspecified":
      return judges.length === 0
        ? "No judge graded this score."
        : "The input did not say whether its judges were models or the heuristic panel.";
  }
}
