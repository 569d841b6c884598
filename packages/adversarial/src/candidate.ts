/**
 * @module adversarial/candidate
 * A candidate test before selection: what it probes, its weight, the key code hints match,
 * and the runtime-neutral operation that the file writers turn into code. Pure.
 */
import type { GenerationTechnique, Severity } from "@bouts/contracts";
import type { Selectable } from "./budget.ts";

/** A candidate generated test (one operation against one declared target). */
export interface Candidate<Op> extends Selectable {
  id: string;
  severity: Severity;
  technique: GenerationTechnique;
  /** Function name or route id. */
  target: string;
  /** `<technique>:<target>[:<param>]`, what code hints match against. */
  key: string;
  /** The test's human title (also its name in node:test). */
  title: string;
  /** Why it was chosen, when nothing in the code pointed at it. */
  defaultRationale: string;
  op: Op;
}

/** Lower-case id fragment: letters, digits and dashes only. */
export function slug(s: string): string {
  // camelCase identifiers read better split (deepMerge → deep-merge); labels like NaN do not.
  const split = /^[a-z]/.test(s) && !/\s/.test(s) ? s.replace(/([a-z0-9])([A-Z])/g, "$1-$2") : s;
  return split
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, 24)
    .replace(/-+$/, "");
}

/** Makes ids unique by suffixing repeats (-2, -3, …), keeping the `gen-` prefix and length cap. */
export function uniqueIds<T extends { id: string }>(items: T[]): T[] {
  const seen = new Map<string, number>();
  return items.map((c) => {
    const base = c.id.slice(0, 72);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { ...c, id: n === 1 ? base : `${base}-${n}` };
  });
}
