/**
 * @module scoring/profiles/engineering
 * The engineering profile's registry entry (v1): its compute is `computeEngineering`
 * (engineering.ts, the six-component composite with the critical cap); its public cut hides
 * finding locations, stability evidence and adjustment citations; its pairing hook shares the
 * static tests by category and the pre-built adversarial tests by severity, and counts judges
 * and generated tests as its own variance; its interval hook resamples the same tests within
 * their strata and the judges of each panel, capped at 75 when a critical finding capped the
 * score. The agent-run entry nests this one's hooks for its Objective. Pure.
 */
import { ok, type Result } from "@bouts/result";
import {
  addPanel,
  addStrata,
  createIntervalModel,
  exactOf,
  unreachableComponent,
  type IntervalModel,
} from "../bootstrap.ts";
import type { Breakdown, ObjectiveBreakdown } from "../breakdown.ts";
import { computeEngineering } from "../engineering.ts";
import type { ScoringError } from "../errors.ts";
import { Exact } from "../exact.ts";
import type { EngineeringInput, StaticTestVerdict } from "../input.ts";
import { checkStaticTests, panelVariance, stratumOf, type PairingPart } from "../pairing-strata.ts";
import { cutBreakdown, type PublicBreakdown } from "../public-cut.ts";
import {
  ADVERSARIAL_WEIGHT_HALVES,
  CRITICAL_FINDING_CAP,
  ENGINEERING_LABELS,
  ENGINEERING_VERSION,
  SEVERITIES,
} from "../tables.ts";
import type { ScoringProfile } from "./profile.ts";

/**
 * The shared strata and own variance of an engineering breakdown, its points scaled by `factor`
 * (1 for the engineering profile; Objective's weight / 100 inside an agent run).
 */
export function engineeringPairing(
  input: EngineeringInput,
  b: ObjectiveBreakdown,
  factor: number,
): Result<PairingPart | null, ScoringError> {
  const tests = (input.static as { tests?: unknown }).tests;
  if (tests === undefined) return ok(null);
  const checked = checkStaticTests(tests, input.static.total, input.static.passed);
  if (!checked.ok) return checked;
  const part: PairingPart = { strata: [], ownVariance: 0 };
  for (const c of b.components) {
    switch (c.key) {
      case "static": {
        const coef = (factor * c.weight) / c.details.total;
        const byCategory = new Map<string, StaticTestVerdict[]>();
        for (const t of checked.value)
          byCategory.set(t.category, [...(byCategory.get(t.category) ?? []), t]);
        for (const [category, list] of [...byCategory].sort(([x], [y]) => (x < y ? -1 : 1)))
          part.strata.push(stratumOf(`static:${category}`, list, coef));
        break;
      }
      case "adversarial": {
        const totalHalves = c.details.weightedTotal * 2;
        if (totalHalves === 0) break;
        for (const severity of SEVERITIES) {
          const coef = (factor * c.weight * ADVERSARIAL_WEIGHT_HALVES[severity]) / totalHalves;
          const of = input.adversarial.tests.filter((t) => t.severity === severity);
          const prebuilt = of.filter((t) => t.origin === "prebuilt");
          if (prebuilt.length > 0)
            part.strata.push(stratumOf(`adversarial:${severity}`, prebuilt, coef));
          // Generated tests are written per submission: not shared, resampled on their own.
          const generated = of.filter((t) => t.origin === "generated");
          const g = generated.length;
          if (g > 0) {
            const p = generated.filter((t) => t.passed).length / g;
            part.ownVariance += g * p * (1 - p) * coef * coef;
          }
        }
        break;
      }
      case "codeQuality": {
        const f = (factor * c.weight) / 100;
        part.ownVariance += f * f * panelVariance(c.details.panel.judges);
        break;
      }
      case "deliverables": {
        const f = (factor * c.weight) / (100 * c.details.items.length);
        for (const item of c.details.items)
          if (item.status === "submitted")
            part.ownVariance += f * f * panelVariance(item.panel.judges);
        break;
      }
      default:
        break; // security, stability: one observation, no variation
    }
  }
  return ok(part);
}

/** What the bootstrap resamples in an engineering breakdown (docs/scoring.md, "Method"). */
export function engineeringInterval(b: ObjectiveBreakdown): IntervalModel {
  const m = createIntervalModel(
    b.adjustments.some((a) => a.key === "critical-cap") ? Exact.of(CRITICAL_FINDING_CAP) : null,
  );
  for (const c of b.components) {
    const w = Exact.of(c.weight);
    switch (c.key) {
      case "static": {
        const cats = Object.values(c.details.categories);
        const groups = cats.length
          ? cats.map((g) => ({ n: g.total, passed: g.passed }))
          : [{ n: c.details.total, passed: c.details.passed }];
        const coef = w.div(Exact.of(c.details.total));
        const what = `static: ${c.details.total} tests${cats.length ? ` in ${cats.length} categories` : ""}`;
        if (addStrata(m, groups, () => coef)) m.resampled.push(`${what}, resampled within each`);
        else m.fixedNotes.push(`${what} (every category all passed or all failed: no variation)`);
        break;
      }
      case "adversarial": {
        const totalHalves = BigInt(Math.round(c.details.weightedTotal * 2));
        const groups = SEVERITIES.map((s) => ({ ...c.details.bySeverity[s], severity: s }));
        const varied = addStrata(
          m,
          groups.map((g) => ({ n: g.total, passed: g.passed, severity: g.severity })),
          (g) => Exact.of(BigInt(ADVERSARIAL_WEIGHT_HALVES[g.severity]), totalHalves).mul(w),
        );
        const what = `adversarial: ${groups.reduce((s, g) => s + g.total, 0)} tests`;
        if (varied) m.resampled.push(`${what}, resampled within each severity (weights kept)`);
        else m.fixedNotes.push(`${what} (every severity all passed or all failed: no variation)`);
        break;
      }
      case "codeQuality":
        addPanel(m, "codeQuality", c.details.panel.judges, w.div(Exact.HUNDRED));
        break;
      case "deliverables": {
        const factor = w.div(Exact.of(100 * c.details.items.length));
        for (const item of c.details.items) {
          if (item.status === "submitted")
            addPanel(m, `deliverables:${item.name}`, item.panel.judges, factor);
          else m.fixedNotes.push(`deliverables:${item.name} (${item.status}: 0, no variation)`);
        }
        break;
      }
      case "security":
      case "stability":
        m.fixed = m.fixed.add(exactOf(c.contribution));
        m.fixedNotes.push(`${c.key} (no variation between runs)`);
        break;
      case "objective":
      case "process":
      case "strategy":
      case "recovery":
      case "efficiency":
        // Agent-run components never appear in an engineering breakdown.
        m.fixed = m.fixed.add(exactOf(c.contribution));
        break;
      default:
        return unreachableComponent(c);
    }
  }
  return m;
}

/** The public cut of an engineering breakdown (and of an Objective: the same breakdown). */
export function engineeringPublicCut(b: Breakdown): PublicBreakdown {
  return cutBreakdown(b, engineeringPublicCut);
}

/** The engineering profile (docs/scoring.md, "The engineering profile"). */
export const ENGINEERING_PROFILE: ScoringProfile<EngineeringInput> = {
  id: "engineering",
  version: ENGINEERING_VERSION,
  labels: { title: "Engineering composite", name: "engineering", components: ENGINEERING_LABELS },
  compute: computeEngineering,
  publicCut: engineeringPublicCut,
  pairing: (input, b) => engineeringPairing(input, { ...b, objective: null }, 1),
  interval: (b) => engineeringInterval({ ...b, objective: null }),
};
