/**
 * Arbitrary and hostile observation records, written by a submission on fd 3 at import and on
 * every call, inside the sandbox: a report always comes back, the run's uid slot is free after
 * it, and nothing it started survives. (Once, one record whose field had a non-callable
 * toString left the run unfinished and its slot held forever.)
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { PreparedChallenge } from "../src/challenge/bundle.ts";
import type { RunnerEnvironment } from "../src/job.ts";
import {
  createTestEnvironment,
  FIXTURES,
  listSandboxProcesses,
  prepareDir,
  runSubmissionDir,
} from "./helpers.ts";

let environment: RunnerEnvironment;
let challenge: PreparedChallenge;

beforeAll(async () => {
  // One slot: a run that kept it would make the next acquire wait forever.
  environment = await createTestEnvironment({ RUNNER_MAX_CONCURRENT_RUNS: "1" });
  challenge = await prepareDir(environment, path.join(FIXTURES, "exploit-node"));
}, 60_000);

const poison = fc.constantFrom<unknown>(
  { toString: 1, valueOf: 2 },
  { toString: null },
  { valueOf: "x", toString: {} },
  [{ toString: 1 }],
  "x".repeat(20_000),
);
const field = fc.oneof(fc.string({ maxLength: 40 }), poison, fc.jsonValue({ maxDepth: 2 }));
const record = fc
  .record(
    {
      k: fc.oneof(
        fc.constantFrom(
          "warning",
          "unhandled-rejection",
          "uncaught-exception",
          "network",
          "dns",
          "probe",
          "test-read",
          "result",
          "start",
          "end",
        ),
        poison,
      ),
      name: field,
      message: field,
      target: field,
      host: field,
      path: field,
      status: field,
    },
    { requiredKeys: ["k"] },
  )
  .map((r) => JSON.stringify(r));
const line = fc.oneof(
  { weight: 4, arbitrary: record },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
);

/** A correct add/mul that writes `lines` raw on fd 3 at import and on every call. */
function writeSubmission(lines: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-records-"));
  const src = [
    'import { writeSync } from "node:fs";',
    `const lines = ${JSON.stringify(lines.map((l) => l.replaceAll("\n", " ") + "\n"))};`,
    "const spray = () => { for (const l of lines) { try { writeSync(3, l); } catch {} } };",
    "spray();",
    "export const add = (a, b) => { spray(); return a + b; };",
    "export const mul = (a, b) => { spray(); return a * b; };",
    "",
  ].join("\n");
  writeFileSync(path.join(dir, "solution.mjs"), src);
  writeFileSync(path.join(dir, "NOTES.md"), "notes\n");
  return dir;
}

describe("hostile observation records", () => {
  it("always end with a report and give the slot back", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 12 }), async (lines) => {
        const report = await runSubmissionDir(environment, challenge, writeSubmission(lines), {
          limits: { testTimeoutMs: 3000 },
        });
        expect(report.staticTests.map((t) => t.id).sort()).toEqual(["adds", "multiplies"]);
        expect(report.infrastructure).toBeNull();
        expect(environment.uidPool.held).toBe(0);
        const lease = await Promise.race([
          environment.uidPool.acquire(),
          new Promise<null>((res) => setTimeout(() => res(null), 1000)),
        ]);
        expect(lease, "the run's slot was not given back").not.toBeNull();
        lease?.release();
        expect(listSandboxProcesses(environment)).toEqual([]);
      }),
      { numRuns: 6 },
    );
  }, 240_000);
});
