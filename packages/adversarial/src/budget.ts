/**
 * @module adversarial/budget
 * The engineering spec's adversarial composition (pre-built vs generated per submission, by weight:
 * the numbers are `@bouts/scoring`'s ADVERSARIAL_COMPOSITION, stated nowhere else) turned into a
 * weight budget, and the seeded selection that fills it. Pure. Invariants: the budget is the
 * generated weight that brings the generated share closest to the table's generated share (ties go
 * to the larger budget); selection is a function of (candidates, budget, seed): the same submission
 * always gets the same tests, another submission a different draw.
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
