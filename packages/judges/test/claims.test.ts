/**
 * A write-up's claims are checked against the run (docs/design.md §33): a ROOT_CAUSE.md shaped
 * for the heuristics (backticked names, `file:line`, "because", "prevent") that describes a fix
 * the run shows failing scores low on accuracy; the same honest write-up with passing tests
 * keeps its score.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createOfflinePanel, runPanel, type RunFacts, type SourceFile } from "../src/index.ts";

const CHALLENGE = join(import.meta.dirname, "../../../challenges/bill-split-py");
const read = (rel: string) => readFileSync(join(CHALLENGE, rel), "utf8");

const run = (passed: boolean): RunFacts => ({
  module: "money.py",
  functions: ["parse_amount", "split"],
  tests: [
    { id: "parse-basic", name: "test_parse_amount_basic", target: null, passed },
    { id: "split-even", name: "test_split_even", target: null, passed },
    { id: "sum-preserved", name: "test_sum_is_preserved_for_many_totals", target: null, passed },
    { id: "gen-wt-split-weights-null", name: "gen-wt-split-weights-null", target: "split", passed },
    { id: "gen-eb-parse-amount-text-nan", name: "gen-eb", target: "parse_amount", passed },
  ],
});

async function accuracy(deliverable: string, files: SourceFile[], facts?: RunFacts) {
  const outcome = await runPanel(createOfflinePanel(), {
    kind: "deliverable",
    challenge: { id: "bill-split-py", title: "bill splitter", summary: "" },
    deliverable: { name: "ROOT_CAUSE.md", content: deliverable },
    files,
    ...(facts ? { run: facts } : {}),
  });
  const values = outcome.judgements.map((j) => j.dimensions!["accuracy"]!);
  return values.reduce((a, b) => a + b, 0) / values.length;
}

describe("deliverable claims against the run", () => {
  const stub = [{ path: "money.py", content: read("submissions/stub/money.py") }];
  const complete = [{ path: "money.py", content: read("submissions/complete/money.py") }];

  it("scores a write-up of a fix whose tests fail low on accuracy", async () => {
    const fake = read("submissions/stub/ROOT_CAUSE.md");
    // The heuristics alone believe it: its references resolve to the code.
    expect(await accuracy(fake, stub)).toBeGreaterThanOrEqual(60);
    expect(await accuracy(fake, stub, run(false))).toBeLessThanOrEqual(10);
  });

  it("keeps an honest write-up's score when the run agrees with it", async () => {
    const honest = read("submissions/complete/ROOT_CAUSE.md");
    const alone = await accuracy(honest, complete);
    expect(await accuracy(honest, complete, run(true))).toBe(alone);
    expect(alone).toBeGreaterThanOrEqual(60);
  });
});
