/**
 * What publishing takes from a stored breakdown (publish.ts `readPublishedExtras`): the board's
 * interval and pairing and the webhook's judging from a whole breakdown; nothing at all from a
 * row that is not one, however plausible the interval inside it looks (parseStoredBreakdown's
 * rule: unreadable as a whole).
 */
import { computeScore, INTERVAL_METHOD, SEED_ENGINEERING_EXAMPLE } from "@bouts/scoring";
import { describe, expect, it, vi } from "vitest";
import { readPublishedExtras } from "../src/publish.ts";

const scored = computeScore(SEED_ENGINEERING_EXAMPLE);
if (!scored.ok) throw new Error("the seed example does not score");
const exact = (value: number) => ({ value, text: String(value), fraction: `${value}/1` });
const interval = {
  level: 95,
  low: exact(80),
  high: exact(86),
  method: INTERVAL_METHOD,
  prng: "xoshiro128**",
  seed: "extras",
  replicates: 1000,
  resampled: [],
  fixed: [],
  widenedToPoint: false,
};

describe("readPublishedExtras", () => {
  it("takes the interval and the judging of a whole breakdown", () => {
    const extras = readPublishedExtras("s1", JSON.stringify({ ...scored.value, interval }));
    expect(extras.board.interval).toEqual({ low: 80, high: 86 });
    expect(extras.judging).toEqual({
      panel: scored.value.judging.panel,
      summary: scored.value.judging.summary,
    });
  });

  it("takes nothing from text that is not JSON, or JSON that is not a breakdown", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    for (const text of ['{"schema":"bouts.breakdown/v1",', JSON.stringify({ interval })]) {
      expect(readPublishedExtras("s2", text)).toEqual({ board: {}, judging: null });
    }
    expect(log).toHaveBeenCalledTimes(2);
    expect(String(log.mock.calls[0]![0])).toContain("s2");
    log.mockRestore();
  });
});
