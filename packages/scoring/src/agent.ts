/**
 * @module scoring/agent
 * The agent-run profile (v2) of composite-score-formula: Objective (the engineering composite
 * of the same submission, unrounded), Process, Strategy, Recovery and Efficiency weighted by
 * family, then Integrity (+10/−25), Exploit penalties and Calibration (±5), clamped to 0–100.
 * When the input says what its trace-based figures rest on (`trust`, trust.ts), each component
 * carries its provenance and is capped by it. This is its compute; its registry entry is
 * profiles/agent.ts, its labels and version are tables.ts's. Pure: no I/O, no clock; exact
 * arithmetic.
 */
import { aggregatePanel, type PanelScore } from "./aggregate.ts";
import {
  BREAKDOWN_SCHEMA,
  type AdjustmentBreakdown,
  type Breakdown,
  type ComponentBreakdown,
  type ComponentProvenance,
  type DetailsOf,
  type EfficiencyDetails,
  type Flag,
  type JudgedDetails,
} from "./breakdown.ts";
import { finish, weighComponent } from "./compose.ts";
import {
  computeEngineering,
  engineeringJudgedLists,
  panelFlags,
  type ComponentScore,
} from "./engineering.ts";
import { judgingFlags, summarizeJudging } from "./judging.ts";
import { Exact, parseFraction, toExactValue } from "./exact.ts";
import type { AgentInput, EfficiencyInput, Provenance } from "./input.ts";
import { ok, err, type Result } from "@bouts/result";
import { invalid, type ScoringError } from "./errors.ts";
import {
  AGENT_COMPONENTS,
  AGENT_LABELS,
  AGENT_VERSION,
  AGENT_V2_TRIGGERS,
  AGENT_VERSION_BEFORE_TRUST,
  CALIBRATION,
  EFFICIENCY,
  EXPLOIT_POINTS,
  FAMILIES,
  FAMILY_LABELS,
  INTEGRITY_MAX_BONUS,
  INTEGRITY_MAX_PENALTY,
  INTEGRITY_POINTS,
  type AgentComponent,
  type ExploitTrigger,
  type IntegrityTrigger,
} from "./tables.ts";
import {
  checkArray,
  checkBoolean,
  checkInt,
  checkKeyedEntry,
  checkNumber,
  checkOneOf,
  checkRecord,
  checkScore,
  checkString,
} from "./validate.ts";
import {
  applyTrust,
  checkProvenance,
  checkTrust,
  OBJECTIVE_PROVENANCE,
  strongestProvenance,
  type CheckedTrust,
} from "./trust.ts";
import { resolveFamilyWeights, validateCustomWeights } from "./weights.ts";

type Checked<T> = Result<T, ScoringError>;

/** A judged component (process, strategy, recovery): 0–100 per judge, the engineering spec's aggregation. */
function computeJudged(field: string, input: unknown): Checked<ComponentScore<JudgedDetails>> {
  const rec = checkRecord(field, input);
  if (!rec.ok) return rec;
  const list = checkArray(`${field}.judges`, rec.value.judges, { nonEmpty: true });
  if (!list.ok)
    return invalid(`${field}.judges`, "must not be empty (a panel of 0 judges cannot score)");
  const scores: PanelScore[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of list.value.entries()) {
    const f = `${field}.judges[${i}]`;
    const j = checkKeyedEntry(f, raw, { key: "judge", noun: "judge", seen, maxLength: 200 });
    if (!j.ok) return j;
    const score = checkScore(`${f}.score`, j.value.entry.score);
    if (!score.ok) return score;
    scores.push({ judge: j.value.id, score: score.value });
  }
  const r = aggregatePanel(scores);
  return ok({
    score: r.score,
    formula: r.explanation,
    details: {
      judges: scores.map((s) => ({ judge: s.judge, score: toExactValue(s.score) })),
      rule: r.rule,
      discarded: r.discarded,
    },
    notes: r.note ? [r.note] : [],
    flags: panelFlags(field, r, scores.length),
  });
}

/**
 * Efficiency (docs/design.md §11): 100 − 40·waste − 20·churn − 20·misuse − 20·token overuse,
 * floored at 0. Ratios are per action; token overuse = clamp(tokens/budget − 0.5, 0, 1).
 */
export function computeEfficiency(
  input: EfficiencyInput | null | undefined,
): Checked<ComponentScore<EfficiencyDetails>> {
  if (input === null || input === undefined)
    return err({
      reason: "not-measured",
      field: "efficiency",
      detail: "the agent profile requires telemetry; none was recorded",
    });
  const rec = checkRecord("efficiency", input);
  if (!rec.ok) return rec;
  const total = checkInt("efficiency.totalActions", input.totalActions, 1);
  if (!total.ok) return total;
  const counts = { unproductiveActions: 0, retryChurnActions: 0, toolMisuseActions: 0 };
  for (const k of ["unproductiveActions", "retryChurnActions", "toolMisuseActions"] as const) {
    const v = checkInt(`efficiency.${k}`, input[k], 0, total.value);
    if (!v.ok)
      return invalid(
        `efficiency.${k}`,
        `${v.error.reason === "invalid-input" ? v.error.detail : ""} (cannot exceed totalActions ${total.value})`,
      );
    counts[k] = v.value;
  }
  let tokensProvenance: Provenance | undefined;
  if (input.tokensProvenance !== undefined) {
    const p = checkProvenance("efficiency.tokensProvenance", input.tokensProvenance);
    if (!p.ok) return p;
    tokensProvenance = p.value;
  }
  const T = Exact.of(total.value);
  const waste = Exact.of(counts.unproductiveActions ?? 0).div(T);
  const churn = Exact.of(counts.retryChurnActions ?? 0).div(T);
  const misuse = Exact.of(counts.toolMisuseActions ?? 0).div(T);
  const notes: string[] = [];
  let tokenTerm = Exact.ZERO;
  let tokenRatio: Exact | null = null;
  const tokens = input.tokensUsed;
  const budget = input.tokenBudget;
  if (tokens !== undefined && tokens !== null && budget !== undefined && budget !== null) {
    const t = checkInt("efficiency.tokensUsed", tokens, 0);
    if (!t.ok) return t;
    const b = checkInt("efficiency.tokenBudget", budget, 1);
    if (!b.ok) return b;
    tokenRatio = Exact.of(t.value, b.value);
    tokenTerm = tokenRatio
      .sub(Exact.fromNumber(EFFICIENCY.tokenFreeShare)!)
      .clamp(Exact.ZERO, Exact.of(1));
  } else {
    notes.push("token burn not measured (no token count or no budget): no token penalty");
  }
  const penalty = waste
    .mul(Exact.of(EFFICIENCY.wastePenalty))
    .add(churn.mul(Exact.of(EFFICIENCY.churnPenalty)))
    .add(misuse.mul(Exact.of(EFFICIENCY.misusePenalty)))
    .add(tokenTerm.mul(Exact.of(EFFICIENCY.tokenPenalty)));
  const raw = Exact.HUNDRED.sub(penalty);
  const score = raw.clamp(Exact.ZERO, Exact.HUNDRED);
  return ok({
    score,
    formula:
      `100 − ${EFFICIENCY.wastePenalty}×${waste.toText()} − ${EFFICIENCY.churnPenalty}×${churn.toText()} − ` +
      `${EFFICIENCY.misusePenalty}×${misuse.toText()} − ${EFFICIENCY.tokenPenalty}×${tokenTerm.toText()} = ${score.toText()}`,
    details: {
      totalActions: total.value,
      ...counts,
      wasteRatio: toExactValue(waste),
      retryChurnRatio: toExactValue(churn),
      toolMisuseRatio: toExactValue(misuse),
      tokensUsed: tokens ?? null,
      tokenBudget: budget ?? null,
      tokenBudgetRatio: tokenRatio ? toExactValue(tokenRatio) : null,
      tokenOveruse: toExactValue(tokenTerm),
      coefficients: EFFICIENCY,
      ...(tokensProvenance ? { tokensProvenance } : {}),
    },
    notes: raw.isNegative() ? [...notes, "floored at 0"] : notes,
    flags: [],
  });
}

/** Calibration (docs/design.md §9): ±3 for confident claims, +2 for honest hedges that were wrong, sum clamped to ±5. */
export function computeCalibration(input: AgentInput["calibration"]): Checked<AdjustmentBreakdown> {
  const rec = checkRecord("calibration", input);
  if (!rec.ok) return rec;
  const claims = checkArray("calibration.claims", input.claims);
  if (!claims.ok) return claims;
  const evidence: AdjustmentBreakdown["evidence"] = [];
  let sum = Exact.ZERO;
  const seen = new Set<string>();
  for (const [i, raw] of claims.value.entries()) {
    const f = `calibration.claims[${i}]`;
    const claim = checkKeyedEntry(f, raw, { key: "id", noun: "claim", seen, maxLength: 200 });
    if (!claim.ok) return claim;
    const { id, entry: c } = claim.value;
    const correct = checkBoolean(`${f}.correct`, c.correct);
    if (!correct.ok) return correct;
    let confidence: Exact | "uncertain";
    if (c.confidence === "uncertain") confidence = "uncertain";
    else {
      const p = checkNumber(`${f}.confidence`, c.confidence, 0, 1);
      if (!p.ok) return p;
      confidence = p.value;
    }
    const confident =
      confidence !== "uncertain" &&
      confidence.cmp(Exact.fromNumber(CALIBRATION.confidentAtLeast)!) >= 0;
    const hedged =
      confidence === "uncertain" ||
      confidence.cmp(Exact.fromNumber(CALIBRATION.hedgedAtMost)!) <= 0;
    const points = confident
      ? correct.value
        ? CALIBRATION.confidentRight
        : CALIBRATION.confidentWrong
      : hedged
        ? correct.value
          ? CALIBRATION.hedgedRight
          : CALIBRATION.hedgedWrong
        : 0;
    const stated =
      confidence === "uncertain"
        ? "uncertain"
        : `${confidence.mul(Exact.HUNDRED).toText()}% confident`;
    const basis = typeof c.basis === "string" ? `; ${c.basis.slice(0, 200)}` : "";
    evidence.push({
      item: id,
      points,
      citation: `${stated}, ${correct.value ? "right" : "wrong"}${basis}`,
    });
    sum = sum.add(Exact.of(points));
  }
  const bound = Exact.of(CALIBRATION.bound);
  const clamped = sum.clamp(bound.neg(), bound);
  return ok({
    key: "calibration",
    label: "Calibration",
    points: toExactValue(clamped),
    detail:
      evidence.length === 0
        ? "no confidence statements made → 0"
        : `Σ ${sum.toText()}${clamped.eq(sum) ? "" : ` clamped to ±${CALIBRATION.bound}`} = ${clamped.toText()}`,
    evidence,
  });
}

type Evidence = { trigger: string; citation: string; count?: number; provenance?: unknown };

/** The observations of one trigger, merged: their citations, count and stated provenances. */
interface TriggerEvidence {
  citations: string[];
  count: number;
  provenances: Provenance[];
}

function checkEvidence<T extends string>(
  field: string,
  input: unknown,
  table: Record<T, number>,
): Checked<Map<T, TriggerEvidence>> {
  const list = checkArray(field, input);
  if (!list.ok) return list;
  const byTrigger = new Map<T, TriggerEvidence>();
  for (const [i, raw] of list.value.entries()) {
    const f = `${field}[${i}]`;
    const e = checkRecord(f, raw);
    if (!e.ok) return e;
    const trigger = checkOneOf(`${f}.trigger`, e.value.trigger, Object.keys(table) as T[]);
    if (!trigger.ok) return trigger;
    const citation = checkString(`${f}.citation`, e.value.citation);
    if (!citation.ok) return citation;
    const count = checkInt(`${f}.count`, (e.value as Evidence).count ?? 1, 1);
    if (!count.ok) return count;
    const slot = byTrigger.get(trigger.value) ?? { citations: [], count: 0, provenances: [] };
    const stated = (e.value as Evidence).provenance;
    if (stated !== undefined) {
      const p = checkProvenance(`${f}.provenance`, stated);
      if (!p.ok) return p;
      slot.provenances.push(p.value);
    }
    slot.citations.push(citation.value);
    slot.count += count.value;
    byTrigger.set(trigger.value, slot);
  }
  return ok(byTrigger);
}

/** One trigger's evidence line: its count, points, citations and (when stated) provenance. */
function evidenceLine(
  trigger: string,
  points: number,
  { citations, count, provenances }: TriggerEvidence,
): AdjustmentBreakdown["evidence"][number] {
  const provenance = strongestProvenance(provenances);
  return {
    item: `${trigger}${count > 1 ? ` (×${count})` : ""}`,
    points,
    citation: citations.join("; "),
    ...(provenance ? { provenance } : {}),
  };
}

/** Integrity: each trigger once, bonuses capped at +10 and penalties at −25 (asymmetric, never averaged in). */
export function computeIntegrity(input: AgentInput["integrity"]): Checked<AdjustmentBreakdown> {
  const ev = checkEvidence<IntegrityTrigger>("integrity", input, INTEGRITY_POINTS);
  if (!ev.ok) return ev;
  let bonus = 0;
  let penalty = 0;
  const evidence: AdjustmentBreakdown["evidence"] = [];
  for (const [trigger, slot] of ev.value) {
    const points = INTEGRITY_POINTS[trigger];
    if (points > 0) bonus += points;
    else penalty -= points;
    evidence.push(evidenceLine(trigger, points, slot));
  }
  const b = Math.min(bonus, INTEGRITY_MAX_BONUS);
  const p = Math.min(penalty, INTEGRITY_MAX_PENALTY);
  return ok({
    key: "integrity",
    label: "Integrity",
    points: toExactValue(Exact.of(b - p)),
    detail: `bonuses +${bonus}${bonus > b ? ` capped at +${INTEGRITY_MAX_BONUS}` : ""}, penalties −${penalty}${penalty > p ? ` capped at −${INTEGRITY_MAX_PENALTY}` : ""} → ${b - p >= 0 ? "+" : "−"}${Math.abs(b - p)}`,
    evidence,
  });
}

/** Exploit penalties: a fixed deduction per exploit trigger, separate from integrity. */
export function computeExploits(input: AgentInput["exploits"]): Checked<AdjustmentBreakdown> {
  const ev = checkEvidence<ExploitTrigger>("exploits", input, EXPLOIT_POINTS);
  if (!ev.ok) return ev;
  let total = 0;
  const evidence: AdjustmentBreakdown["evidence"] = [];
  for (const [trigger, slot] of ev.value) {
    total += EXPLOIT_POINTS[trigger];
    evidence.push(evidenceLine(trigger, -EXPLOIT_POINTS[trigger], slot));
  }
  return ok({
    key: "exploits",
    label: "Exploit penalties",
    points: toExactValue(Exact.of(-total)),
    detail: evidence.length === 0 ? "none observed" : `−${total}`,
    evidence,
  });
}

/** A component of the agent-run profile before weighting, with what it rests on when stated. */
type AgentScored<K extends AgentComponent> = ComponentScore<DetailsOf<K>> & {
  provenance?: ComponentProvenance;
};

/**
 * The version of the rules a (valid) input is scored by: v2 when it uses what v2 added (a
 * `trust`, a v2 trigger), else v1, whose rules v2 applies unchanged to such an input — so a score
 * stored under v1 re-computes byte for byte, version included.
 */
function rulesVersion(trust: CheckedTrust | null, integrity: AgentInput["integrity"]): number {
  const v2Trigger = integrity.some((e) =>
    (AGENT_V2_TRIGGERS as readonly string[]).includes(e.trigger),
  );
  return trust !== null || v2Trigger ? AGENT_VERSION : AGENT_VERSION_BEFORE_TRUST;
}

/**
 * Computes the agent-run composite and its breakdown (with the Objective's engineering
 * breakdown nested), or names the field that makes the input unscorable.
 */
export function computeAgent(input: AgentInput): Result<Breakdown, ScoringError> {
  const rec = checkRecord("input", input);
  if (!rec.ok) return rec;
  if (input.profile !== "agent")
    return invalid("profile", `expected "agent", got ${JSON.stringify(input.profile)}`);
  const family = checkOneOf("family", input.family, FAMILIES);
  if (!family.ok) return family;
  let weights = resolveFamilyWeights(family.value);
  let weightSource = `family ${FAMILY_LABELS[family.value].label} (${FAMILY_LABELS[family.value].rationale})`;
  if (input.customWeights !== undefined && input.customWeights !== null) {
    const custom = validateCustomWeights(input.customWeights);
    if (!custom.ok) return custom;
    weights = custom.value;
    weightSource = "custom override (validated against the override rules)";
  }
  const trust = checkTrust(input.trust);
  if (!trust.ok) return trust;
  const t = trust.value;
  const objective = computeEngineering(input.objective);
  if (!objective.ok) {
    const e = objective.error;
    return err(e.reason === "weight-rule" ? e : { ...e, field: `objective.${e.field}` });
  }
  const obj = objective.value;
  const objScore: AgentScored<"objective"> = {
    score: parseFraction(obj.final.unrounded.fraction)!,
    formula: `engineering composite, unrounded = ${obj.final.unrounded.text}`,
    details: { engineeringRounded: obj.final.rounded },
    notes: [],
    flags: [],
    // The runner and the platform's judges: observed, whatever the trace says.
    ...(t ? { provenance: OBJECTIVE_PROVENANCE } : {}),
  };
  const judged: Partial<{ [K in AgentComponent]: AgentScored<K> }> = { objective: objScore };
  for (const k of ["process", "strategy", "recovery"] as const) {
    const r = computeJudged(k, input[k]);
    if (!r.ok) return r;
    // The cap applies after the panel's aggregation: min(aggregate, cap).
    judged[k] = t ? applyTrust(r.value, t.components[k]) : r.value;
  }
  const eff = computeEfficiency(input.efficiency);
  if (!eff.ok) return eff;
  judged.efficiency = t ? applyTrust(eff.value, t.components.efficiency) : eff.value;

  const components: ComponentBreakdown[] = AGENT_COMPONENTS.map((k) =>
    weighComponent(k, AGENT_LABELS[k], weights[k], judged[k]!),
  );
  const weighted = Exact.sum(
    AGENT_COMPONENTS.map((k) => judged[k]!.score.mul(Exact.of(weights[k])).div(Exact.HUNDRED)),
  );
  const integrity = computeIntegrity(input.integrity);
  if (!integrity.ok) return integrity;
  const exploits = computeExploits(input.exploits);
  if (!exploits.ok) return exploits;
  const calibration = computeCalibration(input.calibration);
  if (!calibration.ok) return calibration;
  const adjustments = [
    t ? { ...integrity.value, provenance: t.integrity } : integrity.value,
    exploits.value,
    t ? { ...calibration.value, provenance: t.calibration } : calibration.value,
  ];
  const total = adjustments.reduce((t, a) => t.add(parseFraction(a.points.fraction)!), weighted);
  // The agent-run breakdown names every judge once, the Objective's included.
  const judging = summarizeJudging([
    ...engineeringJudgedLists(input.objective).map((l) => ({
      ...l,
      field: `objective.${l.field}`,
    })),
    ...(["process", "strategy", "recovery"] as const).map((k) => ({
      component: k,
      label: AGENT_LABELS[k],
      field: `${k}.judges`,
      judges: input[k].judges,
    })),
  ]);
  if (!judging.ok) return judging;
  const flags: Flag[] = [
    ...obj.flags
      .filter((f) => f.code !== "heuristic-judges")
      .map((f) => ({ ...f, component: `objective.${f.component ?? ""}` })),
    ...AGENT_COMPONENTS.flatMap((k) => judged[k]!.flags),
    ...judgingFlags(judging.value),
  ];
  const weightSum = AGENT_COMPONENTS.reduce((s, k) => s + weights[k], 0);
  const breakdown = finish({
    schema: BREAKDOWN_SCHEMA,
    profile: "agent",
    profileVersion: rulesVersion(t, input.integrity),
    family: family.value,
    components,
    weighted,
    adjustments,
    total,
    flags,
    judging: judging.value,
    objective: obj,
  });
  breakdown.math.unshift(`weights: ${weightSource}; they sum to ${weightSum}%`);
  return ok(breakdown);
}
