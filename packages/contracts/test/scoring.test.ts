import {
  computeScore,
  CROSS_CHECKED_AGENT_EXAMPLE,
  PROVENANCES,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  FAMILIES as ENGINE_FAMILIES,
  type AgentInput,
  type Breakdown,
  type EngineeringInput,
} from "@bouts/scoring";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  AgentInputSchema,
  AgentTrustSchema,
  BreakdownSchema,
  ConfidenceClaimSchema,
  EngineeringInputSchema,
  FAMILIES,
  ScoreInputSchema,
  type AgentInputWire,
  type BreakdownWire,
  type EngineeringInputWire,
} from "../src/index.ts";

describe("scoring contracts", () => {
  it("accepts both worked examples", () => {
    expect(EngineeringInputSchema.safeParse(SEED_ENGINEERING_EXAMPLE).success).toBe(true);
    expect(AgentInputSchema.safeParse(SEED_AGENT_EXAMPLE).success).toBe(true);
    expect(ScoreInputSchema.parse(SEED_AGENT_EXAMPLE).profile).toBe("agent");
  });
  it("describes the engine's breakdowns", () => {
    for (const input of [SEED_ENGINEERING_EXAMPLE, SEED_AGENT_EXAMPLE]) {
      const r = computeScore(input);
      expect(r.ok).toBe(true);
      if (r.ok)
        expect(BreakdownSchema.safeParse(JSON.parse(JSON.stringify(r.value))).success).toBe(true);
    }
  });
  it("rejects unknown fields so a body cannot smuggle a score in", () => {
    const r = EngineeringInputSchema.safeParse({ ...SEED_ENGINEERING_EXAMPLE, final: 100 });
    expect(r.success).toBe(false);
  });
  it("lists the engine's families", () => {
    expect([...FAMILIES]).toEqual(ENGINE_FAMILIES);
  });
  it("accepts confidence claims as numbers or an explicit hedge", () => {
    expect(
      ConfidenceClaimSchema.safeParse({
        id: "c1",
        statement: "all static tests pass",
        confidence: 0.9,
      }).success,
    ).toBe(true);
    expect(
      ConfidenceClaimSchema.safeParse({
        id: "c1",
        statement: "s",
        confidence: "uncertain",
        tests: ["t1"],
      }).success,
    ).toBe(true);
    expect(
      ConfidenceClaimSchema.safeParse({ id: "c1", statement: "s", confidence: 1.5 }).success,
    ).toBe(false);
  });
  it("accepts an agent run with trust, and one stored before it without", () => {
    expect(AgentInputSchema.parse(CROSS_CHECKED_AGENT_EXAMPLE)).toEqual(
      CROSS_CHECKED_AGENT_EXAMPLE,
    );
    expect(AgentInputSchema.parse(SEED_AGENT_EXAMPLE)).not.toHaveProperty("trust");
  });
  it("refuses a hostile trust at the wire, naming the path", () => {
    const trust = CROSS_CHECKED_AGENT_EXAMPLE.trust!;
    const pathOf = (value: unknown) => {
      const r = AgentTrustSchema.safeParse(value);
      return r.success ? null : r.error.issues[0]!.path.join(".");
    };
    for (const cap of [101, -1, NaN, Infinity, "25"])
      expect(pathOf({ ...trust, process: { ...trust.process, cap } })).toBe("process.cap");
    expect(pathOf({ ...trust, recovery: { ...trust.recovery, provenance: "trusted" } })).toBe(
      "recovery.provenance",
    );
    expect(
      pathOf({ ...trust, efficiency: { ...trust.efficiency, basis: "x".repeat(10_000) } }),
    ).toBe("efficiency.basis");
    expect(pathOf({ ...trust, integrity: { ...trust.integrity, cap: 25 } })).toBe("integrity");
    expect(pathOf({ ...trust, extra: {} })).toBe("");
    const { calibration: _, ...half } = trust;
    expect(pathOf(half)).toBe("calibration");
  });
  it("names the engine's provenances, and only those", () => {
    const evidence = { trigger: "network-attempt", citation: "c" };
    for (const provenance of PROVENANCES)
      expect(
        AgentInputSchema.safeParse({
          ...SEED_AGENT_EXAMPLE,
          integrity: [{ ...evidence, provenance }],
        }).success,
      ).toBe(true);
    expect(
      AgentInputSchema.safeParse({
        ...SEED_AGENT_EXAMPLE,
        integrity: [{ ...evidence, provenance: "trusted" }],
      }).success,
    ).toBe(false);
  });
  it("keeps the wire types assignable to the engine's", () => {
    expectTypeOf<EngineeringInputWire>().toExtend<EngineeringInput>();
    expectTypeOf<AgentInputWire>().toExtend<AgentInput>();
    expectTypeOf<Breakdown>().toExtend<BreakdownWire>();
  });
});
