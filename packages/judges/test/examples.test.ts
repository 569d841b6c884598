import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isSourcePath, measureCode, type SourceFile } from "../src/index.ts";
import { gradeCodeQuality } from "./grade.ts";

// The example challenges' submissions, graded by the heuristic panel as the score role does.
const ROOT = join(import.meta.dirname, "../../../challenges");
const CHALLENGES = readdirSync(ROOT).filter((c) => statSync(join(ROOT, c)).isDirectory());

const walk = (dir: string, base = dir): SourceFile[] =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory()
      ? walk(p, base)
      : [{ path: p.slice(base.length + 1), content: readFileSync(p, "utf8") }];
  });

const folder = (challenge: string, name: string) =>
  name === "reference"
    ? join(ROOT, challenge, "reference")
    : join(ROOT, challenge, ...(name.startsWith("baselines/") ? [name] : ["submissions", name]));
const grade = (challenge: string, name: string) => gradeCodeQuality(walk(folder(challenge, name)));

describe("the heuristic panel on the example submissions", () => {
  it("covers every example challenge", () => {
    expect(CHALLENGES.sort()).toEqual(["bill-split-py", "deep-merge", "links-api", "notes-api"]);
  });
  for (const challenge of CHALLENGES)
    it(`orders ${challenge}: reference and complete above partial above hostile`, async () => {
      const reference = await grade(challenge, "reference");
      const complete = await grade(challenge, "complete");
      const partial = await grade(challenge, "partial");
      const insecure = await grade(challenge, "insecure");
      const hostile = await grade(challenge, "hostile");
      expect(complete).toBeGreaterThanOrEqual(90);
      expect(reference).toBeGreaterThanOrEqual(90);
      expect(complete).toBeGreaterThan(partial + 2);
      expect(reference).toBeGreaterThan(partial + 2);
      expect(complete).toBeGreaterThan(insecure);
      expect(partial).toBeGreaterThan(hostile + 40);
      expect(hostile).toBeLessThan(50);
    });

  // docs/design.md §33: every example's stub, and every stub baseline, does nothing at all.
  for (const challenge of CHALLENGES)
    for (const name of ["stub", "baselines/stub"].filter((n) => existsSync(folder(challenge, n))))
      it(`grades ${challenge}'s ${name} as doing nothing`, async () => {
        const files = walk(folder(challenge, name)).filter((f) => isSourcePath(f.path));
        const m = measureCode(files);
        expect(m.doNothing, JSON.stringify(m.findings)).toBe(true);
        expect(await grade(challenge, name)).toBe(0);
      });
});
