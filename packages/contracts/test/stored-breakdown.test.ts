import {
  computeScore,
  CROSS_CHECKED_AGENT_EXAMPLE,
  SEED_AGENT_EXAMPLE,
  SEED_ENGINEERING_EXAMPLE,
  type ScoreInput,
} from "@bouts/scoring";
import { describe, expect, it } from "vitest";
import { boardExtrasOf, parseStoredBreakdown, webhookJudgingOf } from "../src/index.ts";

/** A breakdown as the score worker stores it: computed with the platform's seed, as JSON. */
function stored(input: ScoreInput = SEED_ENGINEERING_EXAMPLE) {
  const scored = computeScore(input, { interval: { seed: "submission:s1" } });
  if (!scored.ok) throw new Error("the example does not score");
  return { breakdown: scored.value, text: JSON.stringify(scored.value) };
}

describe("parseStoredBreakdown", () => {
  it("reads back what the engine stored, for both profiles", () => {
    for (const input of [SEED_ENGINEERING_EXAMPLE, SEED_AGENT_EXAMPLE]) {
      const { breakdown, text } = stored(input);
      const read = parseStoredBreakdown(text);
      expect(read.ok).toBe(true);
      if (read.ok) expect(read.value).toEqual(breakdown);
    }
  });

  it("reads a breakdown stored before provenance as judged by 'unspecified'", () => {
    const { breakdown } = stored();
    const { judging: _judging, ...old } = breakdown;
    const read = parseStoredBreakdown(JSON.stringify(old));
    expect(read.ok && read.value.judging.panel).toBe("unspecified");
  });

  it("reads an agent run's provenance, and one stored before provenance without it", () => {
    const { breakdown, text } = stored(CROSS_CHECKED_AGENT_EXAMPLE);
    const read = parseStoredBreakdown(text);
    expect(read.ok && read.value).toEqual(breakdown);
    expect(read.ok && read.value.components[1]!.provenance?.cap?.max).toBe(25);
    // As stored before issue #38: no provenance on components, adjustments, evidence, tokens.
    const old = JSON.parse(text) as Record<string, unknown[]>;
    for (const c of old["components"] as Record<string, Record<string, unknown>>[]) {
      delete c["provenance"];
      delete c["details"]!["tokensProvenance"];
    }
    for (const a of old["adjustments"] as Record<string, Record<string, unknown>[]>[]) {
      delete (a as Record<string, unknown>)["provenance"];
      for (const e of a["evidence"]!) delete e["provenance"];
    }
    const before = parseStoredBreakdown(JSON.stringify(old));
    expect(before.ok).toBe(true);
    expect(before.ok && JSON.stringify(before.value)).not.toContain("provenance");
  });

  it("refuses a stored provenance the engine never writes", () => {
    const { text } = stored(CROSS_CHECKED_AGENT_EXAMPLE);
    expect(
      parseStoredBreakdown(text.replace('"kind":"self-reported"', '"kind":"trusted"')).ok,
    ).toBe(false);
  });

  it("refuses text that is not JSON, and never throws", () => {
    for (const text of ["", "{", stored().text.slice(0, -1), "undefined"]) {
      const read = parseStoredBreakdown(text);
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.error.reason).toBe("unreadable-breakdown");
      if (!read.ok) expect(read.error.detail).toMatch(/^not JSON/);
    }
  });

  it("refuses JSON that is not a whole breakdown, even with a valid interval in it", () => {
    const { breakdown } = stored();
    const { band: _band, ...bandless } = breakdown;
    for (const value of [null, 42, [], { interval: breakdown.interval }, bandless]) {
      const read = parseStoredBreakdown(JSON.stringify(value));
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.error.detail).toMatch(/^not a breakdown/);
    }
  });
});

describe("what readers take of a parsed breakdown", () => {
  it("gives the board the interval's ends and the pairing profile", () => {
    const { breakdown } = stored();
    const read = parseStoredBreakdown(JSON.stringify(breakdown));
    if (!read.ok) throw new Error("does not parse");
    expect(boardExtrasOf(read.value)).toEqual({
      interval: { low: breakdown.interval!.low.value, high: breakdown.interval!.high.value },
      ...(breakdown.pairing ? { pairing: breakdown.pairing } : {}),
    });
  });

  it("gives nothing for a breakdown stored before intervals", () => {
    const { breakdown } = stored();
    const { interval: _i, pairing: _p, ...old } = breakdown;
    const read = parseStoredBreakdown(JSON.stringify(old));
    expect(read.ok && boardExtrasOf(read.value)).toEqual({});
  });

  it("gives a webhook who judged, in two fields", () => {
    const { breakdown, text } = stored();
    const read = parseStoredBreakdown(text);
    expect(read.ok && webhookJudgingOf(read.value)).toEqual({
      panel: breakdown.judging.panel,
      summary: breakdown.judging.summary,
    });
  });
});
