/**
 * @module scoring/engineering
 * The engineering profile's compute (v1): the six-component composite of scoring-engine-design
 * with the critical-finding cap of docs/design.md §3. Its registry entry is
 * profiles/engineering.ts; its labels and version are tables.ts's. Pure: no I/O, no clock;
 * exact arithmetic.
 */
import { aggregatePanel, type PanelResult, type PanelScore } from "./aggregate.ts";
import {
  BREAKDOWN_SCHEMA,
  type AdjustmentBreakdown,
  type AdversarialDetails,
  type CodeQualityDetails,
  type ComponentBreakdown,
  type ComponentDetails,
  type DeliverableItemDetails,
  type DeliverablesDetails,
  type DetailsOf,
  type Flag,
  type ObjectiveBreakdown,
  type PanelSummary,
  type RubricJudgement,
  type SecurityDetails,
  type SecurityFindingDetails,
  type StabilityDetails,
  type StaticDetails,
} from "./breakdown.ts";
import { Exact, toExactValue } from "./exact.ts";
import type { EngineeringInput, FindingInput } from "./input.ts";
import { ok, type Result } from "@bouts/result";
import { invalid, type ScoringError } from "./errors.ts";
import {
  ADVERSARIAL_COMPOSITION,
  ADVERSARIAL_WEIGHT_HALVES,
  CODE_QUALITY_RUBRIC,
  CRITICAL_FINDING_CAP,
  CWE_SEVERITY,
  DELIVERABLE_RUBRIC,
  ENGINEERING_LABELS,
  ENGINEERING_VERSION,
  ENGINEERING_WEIGHTS,
  SECURITY_DEDUCTIONS,
  SEVERITIES,
  STABILITY_SCORES,
  STATIC_COMPOSITION,
  type EngineeringComponent,
  type Severity,
  type StaticCategory,
} from "./tables.ts";
import {
  checkArray,
  checkBoolean,
  checkInt,
  checkKeyedEntry,
  checkOneOf,
  checkRecord,
  checkScore,
  checkString,
} from "./validate.ts";
import { finish, weighComponent } from "./compose.ts";
import { judgingFlags, summarizeJudging, type JudgedList } from "./judging.ts";

type Checked<T> = Result<T, ScoringError>;

/** A computed component before weighting, with its details of type `D`. */
export interface ComponentScore<D extends ComponentDetails = ComponentDetails> {
  score: Exact;
  formula: string;
  details: D;
  notes: string[];
  flags: Flag[];
}

const pct = (n: Exact, d: Exact): Exact => n.mul(Exact.HUNDRED).div(d);
const halves = (h: bigint): string => Exact.of(h, 2).toText();

// ─── Static tests ───

/** Static score: passed / total × 100, with the per-category counts checked if given. */
export function computeStatic(
  input: EngineeringInput["static"],
): Checked<ComponentScore<StaticDetails>> {
  const rec = checkRecord("static", input);
  if (!rec.ok) return rec;
  const passed = checkInt("static.passed", input.passed, 0);
  if (!passed.ok) return passed;
  const total = checkInt("static.total", input.total, 1);
  if (!total.ok) return total;
  if (passed.value > total.value)
    return invalid("static.passed", `passed (${passed.value}) exceeds total (${total.value})`);
  const categories: StaticDetails["categories"] = {};
  if (input.categories !== undefined) {
    const cats = checkRecord("static.categories", input.categories);
    if (!cats.ok) return cats;
    let p = 0;
    let t = 0;
    for (const [name, counts] of Object.entries(cats.value)) {
      const cat = checkOneOf(
        "static.categories",
        name,
        Object.keys(STATIC_COMPOSITION) as StaticCategory[],
      );
      if (!cat.ok) return cat;
      const c = checkRecord(`static.categories.${name}`, counts);
      if (!c.ok) return c;
      const cp = checkInt(`static.categories.${name}.passed`, c.value.passed, 0);
      if (!cp.ok) return cp;
      const ct = checkInt(`static.categories.${name}.total`, c.value.total, 0);
      if (!ct.ok) return ct;
      if (cp.value > ct.value)
        return invalid(
          `static.categories.${name}.passed`,
          `passed (${cp.value}) exceeds total (${ct.value})`,
        );
      p += cp.value;
      t += ct.value;
      categories[cat.value] = {
        passed: cp.value,
        total: ct.value,
        shareOfSuite: toExactValue(pct(Exact.of(ct.value), Exact.of(total.value))),
        intendedShare: STATIC_COMPOSITION[cat.value],
      };
    }
    if (p !== passed.value || t !== total.value)
      return invalid(
        "static.categories",
        `category counts (${p}/${t}) do not add up to static.passed/total (${passed.value}/${total.value})`,
      );
  }
  const score = pct(Exact.of(passed.value), Exact.of(total.value));
  return ok({
    score,
    formula: `(${passed.value} / ${total.value}) × 100 = ${score.toText()}`,
    details: { passed: passed.value, total: total.value, categories },
    notes: [],
    flags: [],
  });
}

// ─── Adversarial tests ───

/** Adversarial score: severity-weighted pass rate, with the pre-built/generated composition. */
export function computeAdversarial(
  input: EngineeringInput["adversarial"],
): Checked<ComponentScore<AdversarialDetails>> {
  const rec = checkRecord("adversarial", input);
  if (!rec.ok) return rec;
  const tests = checkArray("adversarial.tests", input.tests, { nonEmpty: true });
  if (!tests.ok) return tests;
  const seen = new Set<string>();
  let passedHalves = 0n;
  let totalHalves = 0n;
  const byOrigin = {
    prebuilt: { total: 0n, passed: 0n, count: 0 },
    generated: { total: 0n, passed: 0n, count: 0 },
  };
  const bySeverity: Record<Severity, { passed: number; total: number }> = {
    critical: { passed: 0, total: 0 },
    high: { passed: 0, total: 0 },
    medium: { passed: 0, total: 0 },
    low: { passed: 0, total: 0 },
  };
  for (const [i, raw] of tests.value.entries()) {
    const f = `adversarial.tests[${i}]`;
    const test = checkKeyedEntry(f, raw, { key: "id", noun: "test id", seen });
    if (!test.ok) return test;
    const t = test.value.entry;
    const sev = checkOneOf(`${f}.severity`, t.severity, SEVERITIES);
    if (!sev.ok) return sev;
    const origin = checkOneOf(`${f}.origin`, t.origin, ["prebuilt", "generated"] as const);
    if (!origin.ok) return origin;
    const passed = checkBoolean(`${f}.passed`, t.passed);
    if (!passed.ok) return passed;
    const w = BigInt(ADVERSARIAL_WEIGHT_HALVES[sev.value]);
    totalHalves += w;
    byOrigin[origin.value].total += w;
    byOrigin[origin.value].count += 1;
    bySeverity[sev.value].total += 1;
    if (passed.value) {
      passedHalves += w;
      byOrigin[origin.value].passed += w;
      bySeverity[sev.value].passed += 1;
    }
  }
  const score = pct(Exact.of(passedHalves), Exact.of(totalHalves));
  const share = (h: bigint) => toExactValue(pct(Exact.of(h), Exact.of(totalHalves)));
  const notes: string[] = [];
  const generatedShare = pct(Exact.of(byOrigin.generated.total), Exact.of(totalHalves));
  if (!generatedShare.eq(Exact.of(ADVERSARIAL_COMPOSITION.generated)))
    notes.push(
      `composition is ${Exact.HUNDRED.sub(generatedShare).toText()}% pre-built / ${generatedShare.toText()}% generated by weight (target ${ADVERSARIAL_COMPOSITION.prebuilt}/${ADVERSARIAL_COMPOSITION.generated})`,
    );
  return ok({
    score,
    formula: `(${halves(passedHalves)} / ${halves(totalHalves)} weighted points) × 100 = ${score.toText()}`,
    details: {
      weightedPassed: Exact.of(passedHalves, 2).toNumber(),
      weightedTotal: Exact.of(totalHalves, 2).toNumber(),
      severityWeights: Object.fromEntries(
        SEVERITIES.map((s) => [s, Exact.of(ADVERSARIAL_WEIGHT_HALVES[s], 2).toNumber()]),
      ) as Record<Severity, number>,
      bySeverity,
      composition: {
        target: ADVERSARIAL_COMPOSITION,
        prebuilt: { tests: byOrigin.prebuilt.count, weightShare: share(byOrigin.prebuilt.total) },
        generated: {
          tests: byOrigin.generated.count,
          weightShare: share(byOrigin.generated.total),
        },
      },
    },
    notes,
    flags: [],
  });
}

// ─── Judge panels ───

function summarizePanel(scores: readonly PanelScore[], r: PanelResult): PanelSummary {
  return {
    judges: scores.map((s) => ({ judge: s.judge, score: toExactValue(s.score) })),
    rule: r.rule,
    discarded: r.discarded,
    spread: toExactValue(r.spread),
    degraded: r.degraded,
    humanReview: r.humanReview,
    note: r.note,
    explanation: r.explanation,
    score: toExactValue(r.score),
  };
}

/** Flags a panel raises: degraded, and human review. */
export function panelFlags(component: string, r: PanelResult, judges: number): Flag[] {
  const flags: Flag[] = [];
  if (r.degraded)
    flags.push({
      code: "degraded-panel",
      component,
      message: `${component}: only ${judges} valid judgement(s); the panel has 3`,
    });
  if (r.humanReview)
    flags.push({
      code: "human-review",
      component,
      message: `${component}: ${r.note ?? "flagged for human review"}`,
    });
  return flags;
}

/** Scores each judge by a weighted rubric, then aggregates the panel. */
export function judgeRubricPanel<D extends string>(
  field: string,
  judges: unknown,
  rubric: Readonly<Record<D, number>>,
): Checked<{ scores: PanelScore[]; result: PanelResult; perJudge: RubricJudgement<D>[] }> {
  const list = checkArray(field, judges, { nonEmpty: true });
  if (!list.ok)
    return invalid(
      field,
      list.error.reason === "invalid-input"
        ? `${list.error.detail} (a panel of 0 judges cannot score)`
        : "invalid",
    );
  const seen = new Set<string>();
  const scores: PanelScore[] = [];
  const perJudge: RubricJudgement<D>[] = [];
  for (const [i, raw] of list.value.entries()) {
    const f = `${field}[${i}]`;
    const j = checkKeyedEntry(f, raw, { key: "judge", noun: "judge", seen, maxLength: 200 });
    if (!j.ok) return j;
    const judge = j.value.id;
    const dims = checkRecord(`${f}.dimensions`, j.value.entry.dimensions);
    if (!dims.ok) return dims;
    const extra = Object.keys(dims.value).find((k) => !(k in rubric));
    if (extra)
      return invalid(
        `${f}.dimensions.${extra}`,
        `is not a rubric dimension (${Object.keys(rubric).join(", ")})`,
      );
    let total = Exact.ZERO;
    for (const [dim, weight] of Object.entries(rubric) as [D, number][]) {
      const v = checkScore(`${f}.dimensions.${dim}`, dims.value[dim]);
      if (!v.ok) return v;
      total = total.add(v.value.mul(Exact.of(weight)).div(Exact.HUNDRED));
    }
    scores.push({ judge, score: total });
    // Every rubric dimension was checked above, and no other key is present.
    const dimensions = dims.value as Record<D, number>;
    perJudge.push({ judge, dimensions, score: toExactValue(total) });
  }
  return ok({ scores, result: aggregatePanel(scores), perJudge });
}

/** Code quality: each judge's four dimensions at 25 each, then the engineering spec's aggregation. */
export function computeCodeQuality(
  input: EngineeringInput["codeQuality"],
): Checked<ComponentScore<CodeQualityDetails>> {
  const rec = checkRecord("codeQuality", input);
  if (!rec.ok) return rec;
  const panel = judgeRubricPanel("codeQuality.judges", input.judges, CODE_QUALITY_RUBRIC);
  if (!panel.ok) return panel;
  const { scores, result, perJudge } = panel.value;
  return ok({
    score: result.score,
    formula: result.explanation,
    details: {
      rubric: CODE_QUALITY_RUBRIC,
      judges: perJudge,
      panel: summarizePanel(scores, result),
    },
    notes: result.note ? [result.note] : [],
    flags: panelFlags("codeQuality", result, scores.length),
  });
}

/** Deliverables: rubric per judge, panel per deliverable, mean over deliverables; missing or placeholder = 0. */
export function computeDeliverables(
  input: EngineeringInput["deliverables"],
): Checked<ComponentScore<DeliverablesDetails>> {
  const rec = checkRecord("deliverables", input);
  if (!rec.ok) return rec;
  const items = checkArray("deliverables.items", input.items, { nonEmpty: true });
  if (!items.ok) return items;
  const seen = new Set<string>();
  const rows: DeliverableItemDetails[] = [];
  const flags: Flag[] = [];
  const notes: string[] = [];
  const itemScores: Exact[] = [];
  for (const [i, raw] of items.value.entries()) {
    const f = `deliverables.items[${i}]`;
    const deliverable = checkKeyedEntry(f, raw, {
      key: "name",
      noun: "deliverable",
      seen,
      maxLength: 200,
    });
    if (!deliverable.ok) return deliverable;
    const { id: name, entry: item } = deliverable.value;
    const status = checkOneOf(`${f}.status`, item.status, [
      "submitted",
      "missing",
      "placeholder",
    ] as const);
    if (!status.ok) return status;
    if (status.value !== "submitted") {
      itemScores.push(Exact.ZERO);
      rows.push({ name, status: status.value, score: toExactValue(Exact.ZERO) });
      notes.push(`${name}: ${status.value} → 0 (no partial credit)`);
      continue;
    }
    const panel = judgeRubricPanel(`${f}.judges`, item.judges, DELIVERABLE_RUBRIC);
    if (!panel.ok) return panel;
    const { scores, result, perJudge } = panel.value;
    itemScores.push(result.score);
    flags.push(...panelFlags(`deliverables:${name}`, result, scores.length));
    rows.push({
      name,
      status: status.value,
      judges: perJudge,
      panel: summarizePanel(scores, result),
      score: toExactValue(result.score),
    });
  }
  const score = Exact.sum(itemScores).div(Exact.of(itemScores.length));
  const formula =
    itemScores.length === 1
      ? `${String(rows[0]?.name)}: ${score.toText()}`
      : `mean(${itemScores.map((s) => s.toText()).join(", ")}) = ${score.toText()}`;
  return ok({ score, formula, details: { rubric: DELIVERABLE_RUBRIC, items: rows }, notes, flags });
}

// ─── Security ───

/** Severity of a finding: the CWE table wins over the scanner's own label. */
export function resolveSeverity(cwe: string | null | undefined, reported: Severity): Severity {
  return (cwe ? CWE_SEVERITY[cwe] : undefined) ?? reported;
}

/** Security: 100 − 25·critical − 15·high − 5·medium − 1·low, floored at 0. */
export function computeSecurity(
  input: EngineeringInput["security"],
): Checked<ComponentScore<SecurityDetails> & { criticals: number }> {
  const rec = checkRecord("security", input);
  if (!rec.ok) return rec;
  const findings = checkArray("security.findings", input.findings);
  if (!findings.ok) return findings;
  const counts: Record<Severity, number> = { critical: 0, high: 0, medium: 0, low: 0 };
  const flags: Flag[] = [];
  const listed: SecurityFindingDetails[] = [];
  for (const [i, raw] of findings.value.entries()) {
    const f = `security.findings[${i}]`;
    const finding = checkRecord(f, raw);
    if (!finding.ok) return finding;
    const reported = checkOneOf(`${f}.severity`, finding.value.severity, SEVERITIES);
    if (!reported.ok) return reported;
    const cwe = finding.value.cwe;
    if (
      cwe !== undefined &&
      cwe !== null &&
      (typeof cwe !== "string" || !/^CWE-\d{1,5}$/.test(cwe))
    )
      return invalid(`${f}.cwe`, `must look like CWE-89, got ${JSON.stringify(cwe)}`);
    const severity = resolveSeverity(cwe, reported.value);
    if (severity !== reported.value)
      flags.push({
        code: "severity-from-cwe-table",
        component: "security",
        message: `${cwe}: reported ${reported.value}, scored ${severity} per the CWE table`,
      });
    counts[severity] += 1;
    // Shown, not scored: read as the input type has them (the wire contract checks them).
    const { rule, tool, file, line } = finding.value as Partial<FindingInput>;
    listed.push({
      cwe: cwe ?? null,
      severity,
      rule: rule ?? null,
      tool: tool ?? null,
      file: file ?? null,
      line: line ?? null,
      deduction: SECURITY_DEDUCTIONS[severity],
    });
  }
  let notMeasured: string[] = [];
  if (input.notMeasured !== undefined) {
    const nm = checkArray("security.notMeasured", input.notMeasured);
    if (!nm.ok) return nm;
    for (const [i, v] of nm.value.entries()) {
      const s = checkString(`security.notMeasured[${i}]`, v);
      if (!s.ok) return s;
    }
    notMeasured = nm.value as string[];
  }
  for (const check of notMeasured)
    flags.push({
      code: "security-partially-measured",
      component: "security",
      message: `not measured: ${check}`,
    });
  const deduction = SEVERITIES.reduce((sum, s) => sum + counts[s] * SECURITY_DEDUCTIONS[s], 0);
  const raw = 100 - deduction;
  const score = Exact.of(Math.max(0, raw));
  const terms = SEVERITIES.map((s) => `${SECURITY_DEDUCTIONS[s]}×${counts[s]}`).join(" − ");
  return ok({
    score,
    formula: `max(0, 100 − ${terms}) = ${score.toText()}`,
    details: { counts, deductions: SECURITY_DEDUCTIONS, findings: listed, notMeasured },
    notes: raw < 0 ? [`floored at 0 (raw ${raw})`] : [],
    flags,
    criticals: counts.critical,
  });
}

/** Stability: clean 100, warnings 50, crashed 0. */
export function computeStability(
  input: EngineeringInput["stability"],
): Checked<ComponentScore<StabilityDetails>> {
  const rec = checkRecord("stability", input);
  if (!rec.ok) return rec;
  const verdict = checkOneOf(
    "stability.verdict",
    input.verdict,
    Object.keys(STABILITY_SCORES) as (keyof typeof STABILITY_SCORES)[],
  );
  if (!verdict.ok) return verdict;
  const evidence = input.evidence ?? [];
  const ev = checkArray("stability.evidence", evidence);
  if (!ev.ok) return ev;
  const score = Exact.of(STABILITY_SCORES[verdict.value]);
  return ok({
    score,
    formula: `${verdict.value} → ${score.toText()}`,
    details: { verdict: verdict.value, evidence },
    notes: [],
    flags: [],
  });
}

// ─── The profile ───

/** The judgement lists of an engineering input (already checked by their components). */
export function engineeringJudgedLists(input: EngineeringInput): JudgedList[] {
  return [
    {
      component: "codeQuality",
      label: ENGINEERING_LABELS.codeQuality,
      field: "codeQuality.judges",
      judges: input.codeQuality.judges,
    },
    ...input.deliverables.items.map((item, i) => ({
      component: "deliverables",
      label: ENGINEERING_LABELS.deliverables,
      field: `deliverables.items[${i}].judges`,
      judges: item.judges,
    })),
  ];
}

/**
 * Computes the engineering composite and its breakdown, or names the field that makes the
 * input unscorable.
 * @example computeEngineering(SEED_ENGINEERING_EXAMPLE) // final.unrounded.text "82.075", rounded
 * 82
 */
export function computeEngineering(
  input: EngineeringInput,
): Result<ObjectiveBreakdown, ScoringError> {
  const rec = checkRecord("input", input);
  if (!rec.ok) return rec;
  if (input.profile !== "engineering")
    return invalid("profile", `expected "engineering", got ${JSON.stringify(input.profile)}`);
  const stat = computeStatic(input.static);
  if (!stat.ok) return stat;
  const adv = computeAdversarial(input.adversarial);
  if (!adv.ok) return adv;
  const cq = computeCodeQuality(input.codeQuality);
  if (!cq.ok) return cq;
  const del = computeDeliverables(input.deliverables);
  if (!del.ok) return del;
  const sec = computeSecurity(input.security);
  if (!sec.ok) return sec;
  const stab = computeStability(input.stability);
  if (!stab.ok) return stab;

  const parts: {
    [K in EngineeringComponent]: [K, ComponentScore<DetailsOf<K>>];
  }[EngineeringComponent][] = [
    ["static", stat.value],
    ["adversarial", adv.value],
    ["codeQuality", cq.value],
    ["deliverables", del.value],
    ["security", sec.value],
    ["stability", stab.value],
  ];
  const components: ComponentBreakdown[] = parts.map(([key, c]) =>
    weighComponent(key, ENGINEERING_LABELS[key], ENGINEERING_WEIGHTS[key], c),
  );
  const judging = summarizeJudging(engineeringJudgedLists(input));
  if (!judging.ok) return judging;
  const flags = [...parts.flatMap(([, c]) => c.flags), ...judgingFlags(judging.value)];
  const weighted = Exact.sum(
    parts.map(([key, c]) => c.score.mul(Exact.of(ENGINEERING_WEIGHTS[key])).div(Exact.HUNDRED)),
  );

  const adjustments: AdjustmentBreakdown[] = [];
  let total = weighted;
  if (sec.value.criticals > 0) {
    const cap = Exact.of(CRITICAL_FINDING_CAP);
    const capped = total.cmp(cap) > 0 ? cap : total;
    adjustments.push({
      key: "critical-cap",
      label: "Critical-finding cap",
      points: toExactValue(capped.sub(total)),
      detail:
        total.cmp(cap) > 0
          ? `${sec.value.criticals} critical finding(s): score capped at ${CRITICAL_FINDING_CAP} (was ${total.toText()})`
          : `${sec.value.criticals} critical finding(s): cap of ${CRITICAL_FINDING_CAP} applies; score already at or below it`,
      evidence: (
        sec.value.details.findings as {
          severity: string;
          cwe: string | null;
          file: string | null;
          line: number | null;
        }[]
      )
        .filter((f) => f.severity === "critical")
        .map((f) => ({
          item: f.cwe ?? "critical finding",
          points: null,
          citation: f.file ? `${f.file}${f.line ? `:${f.line}` : ""}` : "location not given",
        })),
    });
    total = capped;
  }
  return ok(
    finish({
      schema: BREAKDOWN_SCHEMA,
      profile: "engineering",
      profileVersion: ENGINEERING_VERSION,
      family: null,
      components,
      weighted,
      adjustments,
      total,
      flags,
      judging: judging.value,
      objective: null,
    }),
  );
}
