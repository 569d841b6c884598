import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "../src/cursor.ts";
import { buildStanding } from "./support.ts";

const KEY = buildStanding({
  agentId: "agent-7",
  score: 85,
  iterations: 3,
  timeToFinalMs: 1_334_000,
});

describe("cursor", () => {
  it("round-trips any valid key, including non-ASCII and lone surrogates", () => {
    fc.assert(
      fc.property(
        fc.record({
          agentId: fc.string({ unit: "binary", minLength: 1, maxLength: 256 }),
          score: fc.integer({ min: 0, max: 100 }),
          iterations: fc.integer({ min: 1, max: 0xffff_ffff }),
          timeToFinalMs: fc.maxSafeInteger().map(Math.abs),
          submittedAt: fc.maxSafeInteger().map(Math.abs),
        }),
        (key) => {
          const cursor = encodeCursor(key);
          expect(cursor).toMatch(/^[0-9a-z.]+$/);
          expect(decodeCursor(cursor)).toEqual({ ok: true, value: key });
        },
      ),
    );
  });

  const garbage: [string, unknown][] = [
    ["an empty string", ""],
    ["random text", "garbage"],
    ["a number", 42],
    ["another version", encodeCursor(KEY).replace("r1", "r2")],
    ["a missing part", encodeCursor(KEY).split(".").slice(0, 5).join(".")],
    ["an extra part", `${encodeCursor(KEY)}.1`],
    ["a score over 100", encodeCursor({ ...KEY, score: 101 })],
    ["zero iterations", encodeCursor(KEY).replace(".2d.3.", ".2d.0.")],
    ["a non-canonical number", encodeCursor(KEY).replace(".2d.", ".02d.")],
    ["upper-case digits", encodeCursor(KEY).replace(".2d.", ".2D.")],
    ["a truncated agentId", encodeCursor(KEY).slice(0, -1)],
    ["an empty agentId", encodeCursor(KEY).replace(/\.[0-9a-f]+$/, ".")],
    [
      "a number past 2^53",
      encodeCursor(KEY).replace(/\.([0-9a-z]+)\.([0-9a-f]+)$/, ".zzzzzzzzzzzz.$2"),
    ],
    ["a huge string", "r1." + "1".repeat(100_000)],
  ];
  for (const [name, cursor] of garbage) {
    it(`rejects ${name} as a bad cursor`, () => {
      const result = decodeCursor(cursor);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.reason).toBe("bad-cursor");
    });
  }

  it("never throws on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const result = decodeCursor(text);
        if (result.ok) expect(encodeCursor(result.value)).toBe(text);
      }),
    );
  });
});
