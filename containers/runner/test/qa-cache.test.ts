/**
 * The QA cache (challenge/qa-cache.ts): an unchanged bundle reuses the report the real QA
 * produced, a changed bundle, a changed key or a corrupt entry runs QA again, and a failed QA is
 * never stored. Runs the reference of a small fixture in the sandbox (two repeats).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { QaReportSchema } from "@bouts/contracts";
import { buildQaCacheKey, readCachedQa, runCachedChallengeQa } from "../src/challenge/qa-cache.ts";
import type { RunnerEnvironment } from "../src/job.ts";
import { createTestEnvironment, FIXTURES, prepareDir } from "./helpers.ts";

const REPEATS = 2;

/** Generated candidates the fixture's reference does not meet (it validates no input). */
const EXCLUDED = ["add", "mul"].flatMap((fn) => [
  ...["a", "b"].flatMap((p) =>
    ["wt-%-null", "wt-%-12", "wt-%-12-2", "eb-%-nan", "eb-%-infinity", "eb-%-a-fraction"].map(
      (t) => `gen-${t.replace("%", `${fn}-${p}`)}`,
    ),
  ),
  `gen-eb-${fn}-no-arguments`,
]);

/** A private, publishable copy of the budget-node fixture, changed by `edit`. */
function copyFixture(edit: (dir: string) => void = () => {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "bouts-qa-cache-fixture-"));
  cpSync(path.join(FIXTURES, "budget-node"), dir, { recursive: true });
  const manifestPath = path.join(dir, "challenge.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, generation: { exclude: EXCLUDED } }));
  edit(dir);
  return dir;
}

describe("the QA cache", () => {
  let environment: RunnerEnvironment;
  let cacheDir: string;
  beforeAll(async () => {
    environment = await createTestEnvironment({ RUNNER_SELF_TEST: "off" });
    cacheDir = mkdtempSync(path.join(tmpdir(), "bouts-qa-cache-"));
  });

  async function qa(dir: string) {
    const challenge = await prepareDir(environment, dir);
    const r = await runCachedChallengeQa(environment, challenge, REPEATS, cacheDir);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    return { challenge, ...r.value };
  }

  it("reuses the real report for an unchanged bundle and runs QA again for a changed one", async () => {
    const dir = copyFixture();
    const first = await qa(dir);
    expect(first.cached).toBe(false);
    expect(first.report.problems).toEqual([]);
    expect(first.report.publishable).toBe(true);
    const again = await qa(dir);
    expect(again.cached).toBe(true);
    expect(again.report).toEqual(first.report);
    expect(QaReportSchema.parse(again.report)).toEqual(first.report);

    const changed = copyFixture((d) =>
      writeFileSync(
        path.join(d, "tests", "first.test.mjs"),
        `${readFileSync(path.join(d, "tests", "first.test.mjs"), "utf8")}\n// changed\n`,
      ),
    );
    const other = await qa(changed);
    expect(other.challenge.sha256).not.toBe(first.challenge.sha256);
    expect(other.cached).toBe(false);
    if (!other.cached) expect(other.miss).toBe("absent");
  }, 300_000);

  it("misses when an ingredient of the key changed", async () => {
    const dir = copyFixture();
    const { challenge } = await qa(dir);
    const key = buildQaCacheKey(environment, challenge, REPEATS);
    expect(readCachedQa(cacheDir, key, challenge.manifest.id).ok).toBe(true);
    for (const changed of [
      { ...key, runnerFingerprint: "0".repeat(64) },
      { ...key, repeats: REPEATS + 1 },
      { ...key, runtimes: { ...key.runtimes, node22: "v22.0.0" } },
      { ...key, ceilings: { ...key.ceilings, TEST_TIMEOUT_MS: 5000 } },
    ])
      expect(readCachedQa(cacheDir, changed, challenge.manifest.id)).toEqual({
        ok: false,
        miss: "stale",
      });
  }, 300_000);

  it("ignores a corrupt or tampered entry and runs QA again", async () => {
    const dir = copyFixture((d) => writeFileSync(path.join(d, "README.md"), "corrupt case\n"));
    const { challenge, report } = await qa(dir);
    const file = path.join(cacheDir, `${challenge.sha256}.json`);
    const entry = JSON.parse(readFileSync(file, "utf8")) as { report: Record<string, unknown> };
    const key = buildQaCacheKey(environment, challenge, REPEATS);
    const id = challenge.manifest.id;

    writeFileSync(file, JSON.stringify({ ...entry, report: { ...entry.report, extra: 1 } }));
    expect(readCachedQa(cacheDir, key, id)).toEqual({
      ok: false,
      miss: "corrupt: not a QA report",
    });
    writeFileSync(file, JSON.stringify({ ...entry, report: { ...entry.report, repeats: 9 } }));
    expect(readCachedQa(cacheDir, key, id)).toMatchObject({ ok: false });

    writeFileSync(file, "{ not json");
    const again = await qa(dir);
    expect(again.cached).toBe(false);
    if (!again.cached) {
      expect(again.miss).toMatch(/^corrupt: not JSON/);
      expect(again.stored).toBe(true);
    }
    expect(again.report.publishable).toBe(report.publishable);
    expect((await qa(dir)).cached).toBe(true);
  }, 300_000);

  it("never stores a failed QA, so the next attempt runs QA again", async () => {
    const dir = copyFixture((d) =>
      writeFileSync(
        path.join(d, "reference", "solution.mjs"),
        "export const add = (a, b) => a - b;\nexport const mul = (a, b) => a * b;\n",
      ),
    );
    const first = await qa(dir);
    expect(first.report.publishable).toBe(false);
    expect(first.cached).toBe(false);
    if (!first.cached) expect(first.stored).toBe(false);
    expect(existsSync(path.join(cacheDir, `${first.challenge.sha256}.json`))).toBe(false);
    const second = await qa(dir);
    expect(second.cached).toBe(false);
    expect(second.report.publishable).toBe(false);
  }, 300_000);
});
