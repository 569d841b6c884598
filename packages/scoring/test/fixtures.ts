/**
 * Builders for engine inputs in tests: small, explicit, deterministic.
 */
import type { AgentInput, EngineeringInput } from "../src/index.ts";
import { SEED_AGENT_EXAMPLE, SEED_ENGINEERING_EXAMPLE } from "../src/index.ts";

export const cq = (judge: string, s: number) => ({
  judge,
  dimensions: { readability: s, architecture: s, robustness: s, idiomaticity: s },
});
export const dj = (judge: string, s: number) => ({
  judge,
  dimensions: { accuracy: s, clarity: s, completeness: s, actionability: s },
});

/** A perfect engineering submission, with overrides. */
export function buildEngineering(over: Partial<EngineeringInput> = {}): EngineeringInput {
  return {
    profile: "engineering",
    static: { passed: 10, total: 10 },
    adversarial: {
      tests: [
        { id: "a1", severity: "critical", origin: "prebuilt", passed: true },
        { id: "a2", severity: "high", origin: "generated", passed: true },
      ],
    },
    codeQuality: { judges: [cq("j1", 100), cq("j2", 100), cq("j3", 100)] },
    deliverables: {
      items: [
        {
          name: "NOTES.md",
          status: "submitted",
          judges: [dj("j1", 100), dj("j2", 100), dj("j3", 100)],
        },
      ],
    },
    security: { findings: [] },
    stability: { verdict: "clean" },
    ...over,
  };
}

/** An agent-run input, with overrides. */
export function buildAgent(over: Partial<AgentInput> = {}): AgentInput {
  return { ...structuredClone(SEED_AGENT_EXAMPLE), ...over };
}

export const seedEngineering = (): EngineeringInput => structuredClone(SEED_ENGINEERING_EXAMPLE);
