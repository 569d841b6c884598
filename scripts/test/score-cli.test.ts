import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { computeScore, SEED_ENGINEERING_EXAMPLE } from "@bouts/scoring";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.join(import.meta.dirname, "../..");
const tsx = path.join(root, "node_modules/.bin/tsx");
const score = async (...args: string[]) => {
  try {
    const r = await run(tsx, ["scripts/score.ts", ...args], { cwd: root });
    return { code: 0, out: r.stdout, err: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
};

describe("npm run score", () => {
  it("prints the engineering spec's example as 82.075 rounded to 82", async () => {
    const r = await score("--example", "seed-engineering");
    expect(r.code).toBe(0);
    expect(r.out).toContain("= 82.075");
    expect(r.out).toContain("final score: 82.075 → 82 (Strong");
  });
  it("reproduces a stored breakdown's interval from its seed", async () => {
    const stored = computeScore(SEED_ENGINEERING_EXAMPLE, {
      interval: { seed: "submission:3f1d2c4e" },
    });
    if (!stored.ok) throw new Error("example failed");
    const dir = mkdtempSync(path.join(tmpdir(), "score-"));
    const file = path.join(dir, "input.json");
    writeFileSync(file, JSON.stringify(SEED_ENGINEERING_EXAMPLE));
    const r = await score("--seed", "submission:3f1d2c4e", file, "--json");
    expect(r.code, r.err).toBe(0);
    const b = JSON.parse(r.out) as { interval: unknown };
    expect(b.interval).toEqual(stored.value.interval);
    const text = await score(file, "--seed", "submission:3f1d2c4e");
    const iv = stored.value.interval!;
    expect(text.out).toContain(`95% interval: ${iv.low.text} – ${iv.high.text}`);
    expect((await score(file, "--seed")).code).toBe(2);
  });
  it("prints the machine form with --json", async () => {
    const r = await score("--example", "seed-agent", "--json");
    const b = JSON.parse(r.out) as {
      final: { rounded: number };
      objective: { final: { unrounded: { text: string } } };
    };
    expect(b.final.rounded).toBe(77);
    expect(b.objective.final.unrounded.text).toBe("82.075");
  });
  it("scores an input file and names the field of a bad one", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "score-"));
    const good = path.join(dir, "good.json");
    writeFileSync(good, JSON.stringify(SEED_ENGINEERING_EXAMPLE));
    expect((await score(good)).out).toContain("→ 82");
    const bad = path.join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({ ...SEED_ENGINEERING_EXAMPLE, static: { passed: 30, total: 20 } }),
    );
    const r = await score(bad);
    expect(r.code).toBe(1);
    expect(r.err).toContain("static.passed");
    const junk = path.join(dir, "junk.json");
    writeFileSync(junk, "{not json");
    expect((await score(junk)).err).toContain("not valid JSON");
  });
  it("explains its usage", async () => {
    const r = await score();
    expect(r.code).toBe(2);
    expect(r.err).toContain("usage");
  });
});
