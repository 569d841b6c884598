/**
 * @module adversarial/budget
 * The engineering spec's adversarial composition (pre-built vs generated per submission, by weight:
 * the numbers are `@bouts/scoring`'s ADVERSARIAL_COMPOSITION, stated nowhere else) turned into a
 * weight budget, and the seeded draw that fills it. Pure. Invariants: the budget is the
 * generated weight that brings the generated share closest to the table's generated share (ties go
 * to the larger budget); `selectCandidates` is a function of (candidates, budget, seed); the run's
 * draw (`drawCandidates`) is a base that ignores every candidate's priority — so reading the code
 * cannot remove a test from it — plus hinted tests added on top within `hintAllowance`; a pool
 * that fits the budget runs whole.
 */
import type { Severity } from "@bouts/contracts";
import { ADVERSARIAL_COMPOSITION, ADVERSARIAL_WEIGHT_HALVES } from "@bouts/scoring";

/** Weight budget when a challenge has no pre-built adversarial tests at all. */
export const STANDALONE_BUDGET_HALVES = 24;

/** Severity weight of one test, in halves (critical 6, high 4, medium 2, low 1). */
export function weightHalves(severity: Severity): number {
  return ADVERSARIAL_WEIGHT_HALVES[severity];
}

/**
 * The generated weight G (in halves) that makes G / (P + G) closest to the generated share of
 * ADVERSARIAL_COMPOSITION, given the pre-built weight P. Exact: G = P × generated / prebuilt
 * (1.5 P for the engineering spec's 40/60); when that is not a whole number of halves the larger
 * neighbour is taken.
 * @example computeGeneratedBudget(28) // 42 (28 / 70 = 40 %, 42 / 70 = 60 %)
 */
export function computeGeneratedBudget(prebuiltHalves: number): number {
  if (prebuiltHalves <= 0) return STANDALONE_BUDGET_HALVES;
  const { prebuilt, generated } = ADVERSARIAL_COMPOSITION;
  return Math.ceil((prebuiltHalves * generated) / prebuilt);
}

/** FNV-1a over a string: a small, stable, well-spread hash for seeded ordering. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** What selection needs of a candidate. */
export interface Selectable {
  id: string;
  severity: Severity;
  technique: string;
  /** Higher first: how strongly reading the code points at this test (0 = no hint). */
  priority: number;
}

/**
 * What code hints may add on top of the base draw: a third of the budget's weight (rounded up)
 * and a quarter of the count cap (rounded up, at least one test unless the cap is 0: a challenge
 * that asks for no generated tests gets none).
 * @example hintAllowance(23, 16) // { weightHalves: 8, tests: 4 }
 */
export function hintAllowance(
  budgetHalves: number,
  maxTests: number,
): { weightHalves: number; tests: number } {
  return {
    weightHalves: Math.ceil(Math.max(0, budgetHalves) / 3),
    tests: maxTests <= 0 ? 0 : Math.max(1, Math.ceil(maxTests / 4)),
  };
}

/** A run's draw: the base (blind to the code), what code hints added, and whether it is the whole pool. */
export interface Draw<T> {
  /** Base first, in draw order, then the hinted additions. */
  chosen: T[];
  /** Drawn with every priority ignored: a function of (pool, budget, seed) alone. */
  base: T[];
  /** Hinted candidates the base did not hold, strongest hint first. */
  added: T[];
  /** True when the pool fits the budget and the count cap, so every candidate runs. */
  wholePool: boolean;
}

/**
 * The generated tests of a run. When the pool's weight fits `budgetHalves` and its size fits
 * `maxTests`, the whole pool runs (nothing is drawn). Otherwise a base is drawn by the seed
 * alone — every candidate's priority ignored — and candidates with a code hint (priority > 0)
 * that the base missed are added on top, strongest hint first, within `hintAllowance`. Hints
 * therefore only ever add: the base is the same for every submission drawn with one seed.
 * @example drawCandidates(pool, 23, 16, seed).chosen.length // base + added
 */
export function drawCandidates<T extends Selectable>(
  candidates: readonly T[],
  budgetHalves: number,
  maxTests: number,
  seed: string,
): Draw<T> {
  const weight = candidates.reduce((s, c) => s + weightHalves(c.severity), 0);
  if (weight <= budgetHalves && candidates.length <= maxTests) {
    const all = [...candidates].sort((a, b) => seededOrder(seed, a.id, b.id));
    return { chosen: all, base: all, added: [], wholePool: true };
  }
  const blind = candidates.map((c) => ({ c, s: { ...c, priority: 0 } }));
  const picked = selectCandidates(
    blind.map((b) => b.s),
    budgetHalves,
    maxTests,
    seed,
  );
  const byBlind = new Map(blind.map((b) => [b.s, b.c]));
  const base = picked.map((s) => byBlind.get(s)!);
  const inBase = new Set(base.map((c) => c.id));
  const allowance = hintAllowance(budgetHalves, maxTests);
  let left = allowance.weightHalves;
  const added: T[] = [];
  const hinted = candidates
    .filter((c) => c.priority > 0 && !inBase.has(c.id))
    .sort((a, b) => b.priority - a.priority || seededOrder(seed, a.id, b.id));
  for (const c of hinted) {
    if (added.length >= allowance.tests) break;
    const w = weightHalves(c.severity);
    if (w > left) continue;
    added.push(c);
    left -= w;
  }
  return { chosen: [...base, ...added], base, added, wholePool: false };
}

function seededOrder(seed: string, a: string, b: string): number {
  return hashString(`${seed}:${a}`) - hashString(`${seed}:${b}`) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Picks candidates whose weights fill `budgetHalves` without going over, at most `maxTests`.
 * Candidates are grouped by technique so the suite stays varied; inside a group the strongest
 * code hints go first, then a seeded shuffle; groups take turns, the most-hinted group first.
 * A candidate too heavy for what is left is skipped for a lighter one.
 */
export function selectCandidates<T extends Selectable>(
  candidates: readonly T[],
  budgetHalves: number,
  maxTests: number,
  seed: string,
): T[] {
  const order = (a: T, b: T) =>
    b.priority - a.priority ||
    hashString(`${seed}:${a.id}`) - hashString(`${seed}:${b.id}`) ||
    (a.id < b.id ? -1 : 1);
  const groups = new Map<string, T[]>();
  for (const c of [...candidates].sort(order)) {
    const g = groups.get(c.technique) ?? [];
    g.push(c);
    groups.set(c.technique, g);
  }
  const queues = [...groups.values()].sort(
    (a, b) =>
      order(a[0]!, b[0]!) ||
      hashString(`${seed}:${a[0]!.technique}`) - hashString(`${seed}:${b[0]!.technique}`),
  );
  const chosen: T[] = [];
  let left = budgetHalves;
  let progress = true;
  while (left > 0 && chosen.length < maxTests && progress) {
    progress = false;
    for (const q of queues) {
      if (left <= 0 || chosen.length >= maxTests) break;
      const i = q.findIndex((c) => weightHalves(c.severity) <= left);
      if (i < 0) continue;
      const [c] = q.splice(i, 1);
      chosen.push(c!);
      left -= weightHalves(c!.severity);
      progress = true;
    }
  }
  return chosen;
}
