/**
 * The demo's fifteen scores, frozen before the "one house" restructuring (issue #18): the
 * engine input of each score as stored in D1, the breakdown the engine produced from it, and
 * the public view the API served. A refactor that changes a number, a note, a field or the
 * public redaction fails here; only a deliberate change of the scoring rules may update the
 * fixture, and says so in its commit.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ScoreInputSchema } from "@bouts/contracts";
import { computeScore, toPublicBreakdown } from "@bouts/scoring";
import { describe, expect, it } from "vitest";

interface FrozenScore {
  challenge: string;
  profile: string;
  finalUnrounded: string;
  finalRounded: number;
  input: unknown;
  breakdown: unknown;
  publicBreakdown: unknown;
}

const FIXTURE = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "fixtures/demo-breakdowns.json"), "utf8"),
) as { scores: FrozenScore[] };

type Json = Record<string, unknown>;

/**
 * The stored agent-run breakdown is the engine's, annotated by the score worker with what the
 * trace analysis saw (the efficiency evidence, unresolved claims): strip those to compare with
 * a recomputation from the stored input.
 */
function withoutTraceAnnotations(stored: unknown): unknown {
  const b = structuredClone(stored) as Json & { components: Json[]; adjustments: Json[] };
  if (b["profile"] !== "agent") return b;
  for (const c of b.components) {
    if (c["key"] === "efficiency") delete (c["details"] as Json)["trace"];
  }
  for (const a of b.adjustments) {
    if (a["key"] === "calibration" && typeof a["detail"] === "string")
      a["detail"] = a["detail"].replace(/ \(unresolved claims: .*\)$/, "");
  }
  return b;
}

describe("the demo's breakdowns stay what they were", () => {
  it("covers every example challenge and both profiles", () => {
    expect(new Set(FIXTURE.scores.map((s) => s.challenge))).toEqual(
      new Set(["bill-split-py", "deep-merge", "notes-api", "notes-api-agent"]),
    );
    expect(new Set(FIXTURE.scores.map((s) => s.profile))).toEqual(
      new Set(["engineering", "agent"]),
    );
  });

  for (const [i, frozen] of FIXTURE.scores.entries()) {
    it(`recomputes score ${i + 1} (${frozen.challenge}, ${frozen.finalUnrounded}) exactly`, () => {
      const input = ScoreInputSchema.parse(frozen.input);
      const result = computeScore(input);
      if (!result.ok) throw new Error(JSON.stringify(result.error));
      // Through JSON, as stored: the wire form is what must not change.
      const breakdown = JSON.parse(JSON.stringify(result.value)) as unknown;
      expect(breakdown).toEqual(withoutTraceAnnotations(frozen.breakdown));
      expect(toPublicBreakdown(frozen.breakdown as never)).toEqual(frozen.publicBreakdown);
    });
  }

  // Issue #38 added trust caps to the agent-run rules (v2): an input stored before, without
  // `trust`, is still scored by v1's rules, to the byte, version and key order included.
  for (const [i, frozen] of FIXTURE.scores.entries()) {
    if (frozen.profile !== "agent") continue;
    it(`recomputes agent score ${i + 1}, stored before trust, to the byte`, () => {
      const result = computeScore(ScoreInputSchema.parse(frozen.input));
      if (!result.ok) throw new Error(JSON.stringify(result.error));
      expect(JSON.stringify(result.value)).toBe(
        JSON.stringify(withoutTraceAnnotations(frozen.breakdown)),
      );
      expect(JSON.stringify(toPublicBreakdown(result.value))).toBe(
        JSON.stringify(withoutTraceAnnotations(frozen.publicBreakdown)),
      );
    });
  }
});
