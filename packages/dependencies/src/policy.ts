/**
 * @module dependencies/policy
 * The one rule, for ingest and the runner alike, of what a challenge's submissions may pin:
 * the default registries (npm's, PyPI's), the challenge's package bound and typosquat
 * exemptions, and its runtime's ecosystem only. Pure.
 */
import { DEFAULT_DEPENDENCY_POLICY, type DependencyPolicy, type Ecosystem } from "./types.ts";

/** The ecosystem each challenge runtime installs from. */
export const RUNTIME_ECOSYSTEMS: Readonly<Record<string, Ecosystem>> = Object.freeze({
  node22: "npm",
  "python3.11": "PyPI",
});

/**
 * The policy a challenge holds its submissions' lockfiles to; an unknown runtime (a challenge
 * stored without a bundle) leaves the ecosystem open.
 * @example
 * resolveSubmissionPolicy({ maxPackages: 50, allowNames: [], runtime: "node22" });
 */
export function resolveSubmissionPolicy(rules: {
  maxPackages: number;
  allowNames: readonly string[];
  runtime: string | null;
}): DependencyPolicy {
  const ecosystem = rules.runtime === null ? undefined : RUNTIME_ECOSYSTEMS[rules.runtime];
  return {
    ...DEFAULT_DEPENDENCY_POLICY,
    maxPackages: rules.maxPackages,
    allowNames: rules.allowNames,
    ...(ecosystem ? { ecosystems: [ecosystem] } : {}),
  };
}
