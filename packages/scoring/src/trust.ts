/**
 * @module scoring/trust
 * What the agent-run profile's figures rest on (docs/scoring.md, "Provenance and trust caps"):
 * the input's `trust` checked field by field, a component's cap applied after its panel or
 * formula (score = min(uncapped, cap), exactly), and the provenance the breakdown shows.
 * Invariants: an input without `trust` gets no provenance and no cap, so its breakdown is what
 * it was before trust existed; every string the breakdown repeats is bounded here. Pure: no I/O,
 * no clock; exact arithmetic.
 */
import { ok, type Result } from "@bouts/result";
import type { ComponentProvenance, AdjustmentProvenance } from "./breakdown.ts";
import type { ScoringError } from "./errors.ts";
import { Exact, toExactValue } from "./exact.ts";
import type { AgentTrust, ComponentTrust, Provenance } from "./input.ts";
import { checkNumber, checkOneOf, checkRecord, checkString } from "./validate.ts";

type Checked<T> = Result<T, ScoringError>;

/** The provenances, weakest claim first: the one vocabulary (contracts' `z.enum` reads it). */
export const PROVENANCES = ["self-reported", "cross-checked", "observed"] as const satisfies [
  Provenance,
  ...Provenance[],
];

/**
 * The longest `basis` the engine accepts, in characters: a basis says what was checked and what
 * it found, and the breakdown shows it on every page, so a longer one is refused, not cut.
 */
export const TRUST_BASIS_MAX = 1000;

/** The components whose score rests on the trace, each with its cap. */
export const TRUSTED_COMPONENTS = ["process", "strategy", "recovery", "efficiency"] as const;
/** A component that `trust` caps. */
export type TrustedComponent = (typeof TRUSTED_COMPONENTS)[number];

/** What Objective rests on, whenever the input states what the rest rests on. */
export const OBJECTIVE_PROVENANCE: ComponentProvenance = {
  kind: "observed",
  basis:
    "the runner's tests, scan and stability verdict and the platform's judges of the code: nothing the agent reported",
  cap: null,
};

/** A provenance, one of {@link PROVENANCES}. */
export const checkProvenance = (field: string, v: unknown): Checked<Provenance> =>
  checkOneOf(field, v, PROVENANCES);

function checkBasis(field: string, v: unknown): Checked<string> {
  return checkString(field, v, TRUST_BASIS_MAX);
}

/** A component's trust: its provenance, its cap (null, or 0–100) and its basis. */
function checkComponentTrust(field: string, v: unknown): Checked<ComponentTrust> {
  const rec = checkRecord(field, v);
  if (!rec.ok) return rec;
  const provenance = checkProvenance(`${field}.provenance`, rec.value.provenance);
  if (!provenance.ok) return provenance;
  let cap: number | null = null;
  if (rec.value.cap !== null) {
    const c = checkNumber(`${field}.cap`, rec.value.cap, 0, 100);
    if (!c.ok) return c;
    cap = rec.value.cap as number;
  }
  const basis = checkBasis(`${field}.basis`, rec.value.basis);
  if (!basis.ok) return basis;
  return ok({ provenance: provenance.value, cap, basis: basis.value });
}

/** An adjustment's trust: its provenance and basis (an adjustment has no cap). */
function checkAdjustmentTrust(field: string, v: unknown): Checked<AdjustmentProvenance> {
  const rec = checkRecord(field, v);
  if (!rec.ok) return rec;
  const provenance = checkProvenance(`${field}.provenance`, rec.value.provenance);
  if (!provenance.ok) return provenance;
  const basis = checkBasis(`${field}.basis`, rec.value.basis);
  if (!basis.ok) return basis;
  return ok({ kind: provenance.value, basis: basis.value });
}

/** The input's `trust`, checked: null when absent (an input stored before trust existed). */
export interface CheckedTrust {
  components: Record<TrustedComponent, ComponentTrust>;
  integrity: AdjustmentProvenance;
  calibration: AdjustmentProvenance;
}

/**
 * Checks the input's `trust`, naming the first bad field (`trust.process.cap` …); absent → null.
 * A present `trust` must state every component and adjustment: half a statement is refused.
 */
export function checkTrust(v: unknown): Checked<CheckedTrust | null> {
  if (v === undefined) return ok(null);
  const rec = checkRecord("trust", v);
  if (!rec.ok) return rec;
  const trust = rec.value as Partial<Record<keyof AgentTrust, unknown>>;
  const components = {} as Record<TrustedComponent, ComponentTrust>;
  for (const k of TRUSTED_COMPONENTS) {
    const c = checkComponentTrust(`trust.${k}`, trust[k]);
    if (!c.ok) return c;
    components[k] = c.value;
  }
  const integrity = checkAdjustmentTrust("trust.integrity", trust.integrity);
  if (!integrity.ok) return integrity;
  const calibration = checkAdjustmentTrust("trust.calibration", trust.calibration);
  if (!calibration.ok) return calibration;
  return ok({ components, integrity: integrity.value, calibration: calibration.value });
}

/** A component score before weighting, as the profile's computes give it. */
interface Scored {
  score: Exact;
  formula: string;
}

/**
 * A component under its trust: score = min(uncapped, cap) exactly, the formula ending with the
 * min ("…; min(72, cap 25) = 25") whenever there is a cap, and the provenance with the uncapped
 * score. The details are left as computed (they show how the uncapped score came about).
 */
export function applyTrust<C extends Scored>(
  c: C,
  trust: ComponentTrust,
): C & { provenance: ComponentProvenance } {
  if (trust.cap === null)
    return { ...c, provenance: { kind: trust.provenance, basis: trust.basis, cap: null } };
  const cap = Exact.fromNumber(trust.cap)!;
  const score = c.score.cmp(cap) > 0 ? cap : c.score;
  return {
    ...c,
    score,
    formula: `${c.formula}; min(${c.score.toText()}, cap ${cap.toText()}) = ${score.toText()}`,
    provenance: {
      kind: trust.provenance,
      basis: trust.basis,
      cap: { max: trust.cap, uncapped: toExactValue(c.score) },
    },
  };
}

/**
 * The provenance of an evidence line that merges several observations of one trigger: the
 * strongest stated (observed over cross-checked over self-reported: one observation by the
 * platform is enough for the trigger), or none when none of them said.
 */
export function strongestProvenance(
  stated: readonly (Provenance | undefined)[],
): Provenance | null {
  let best = -1;
  for (const p of stated) if (p !== undefined) best = Math.max(best, PROVENANCES.indexOf(p));
  return best < 0 ? null : PROVENANCES[best]!;
}
