/** @module e2e/contract/mode.test The contract test's two modes, and the refusal of others. */
import { describe, expect, it } from "vitest";
import { modeArguments, modeSettings, readContractMode } from "./mode.ts";

describe("the contract test's modes", () => {
  it("runs the short pass by default, as npm test does", () => {
    const mode = readContractMode({});
    expect(mode.name).toBe("short");
    expect(modeArguments(mode)).toEqual(["--max-time", "120", "--seed", "20261201"]);
  });

  it("runs a longer and deeper pass in the release check's long mode", () => {
    const long = readContractMode({ CONTRACT_MODE: "long" });
    const short = readContractMode({});
    expect(long.maxTimeS).toBeGreaterThanOrEqual(short.maxTimeS * 5);
    expect(modeArguments(long)).toEqual([
      "--max-time",
      "900",
      "--seed",
      "20261201",
      "--max-examples",
      "1000",
    ]);
  });

  it("adds the short mode's bound on fuzzing to the shared settings, and nothing in the long", () => {
    const shared = '[[operations]]\ninclude-name = "GET /x"\n';
    const short = modeSettings(readContractMode({}), shared);
    expect(short.startsWith(shared)).toBe(true);
    expect(short).toMatch(/\n\[phases\.fuzzing\]\ngeneration\.max-examples = 5\n$/);
    expect(modeSettings(readContractMode({ CONTRACT_MODE: "long" }), shared)).toBe(shared);
    // The shared file must not bound fuzzing itself: the long mode could not undo it.
    expect(() =>
      modeSettings(readContractMode({}), `${shared}[phases.fuzzing]\nenabled = true\n`),
    ).toThrow(/\[phases\.fuzzing\]/);
  });

  it("refuses an unknown mode or a bad number instead of running the short pass", () => {
    expect(() => readContractMode({ CONTRACT_MODE: "Long" })).toThrow(/"short" or "long"/);
    expect(() => readContractMode({ CONTRACT_MAX_TIME_S: "-5" })).toThrow(/positive integer/);
    expect(() => readContractMode({ CONTRACT_SEED: "x" })).toThrow(/positive integer/);
  });

  it("lets the budget and the seed be set for one run", () => {
    const mode = readContractMode({
      CONTRACT_MODE: "long",
      CONTRACT_MAX_TIME_S: "60",
      CONTRACT_SEED: "7",
    });
    expect(modeArguments(mode)).toEqual([
      "--max-time",
      "60",
      "--seed",
      "7",
      "--max-examples",
      "1000",
    ]);
  });
});
