/**
 * The example challenges' submissions (challenges/<name>/submissions/<kind>) through the real
 * scanners: the insecure ones get the critical findings (and the 75 cap) they were written with;
 * the complete ones get no critical finding.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scanSubmission } from "../../src/scan/index.ts";
import { computeSecurityScore } from "../../src/scan/severity.ts";

const CHALLENGES = path.resolve(import.meta.dirname, "../../../../challenges");
const sub = (name: string, kind: string) => path.join(CHALLENGES, name, "submissions", kind);
const SLOW = 180_000;

describe.skipIf(!existsSync(path.join(CHALLENGES, "notes-api")))("example challenges", () => {
  it(
    "notes-api/insecure: SQL injection and hardcoded credentials, capped at 75",
    async () => {
      const report = await scanSubmission(sub("notes-api", "insecure"), { runtime: "node" });
      expect(report.status).toBe("complete");
      const cwes = new Set(report.findings.map((f) => f.cwe));
      expect(cwes).toContain("CWE-89");
      expect(cwes).toContain("CWE-798");
      const score = computeSecurityScore(report.findings);
      expect(score.finalScoreCap).toBe(75);
      expect(score.score).toBe(0);
    },
    SLOW,
  );

  it(
    "notes-api/complete: no findings",
    async () => {
      const report = await scanSubmission(sub("notes-api", "complete"), { runtime: "node" });
      expect(report.findings).toEqual([]);
    },
    SLOW,
  );

  it(
    "bill-split-py/insecure: a hardcoded live key and an eval the scan cannot read, capped",
    async () => {
      const report = await scanSubmission(sub("bill-split-py", "insecure"), {
        runtime: "python",
      });
      expect(report.status).toBe("partial");
      expect(report.findings.map((f) => [f.cwe ?? f.rule, f.severity, f.file])).toEqual([
        ["CWE-798", "critical", "money.py"],
        ["bouts.unscanned-dynamic-code", "critical", "money.py"],
      ]);
      expect(computeSecurityScore(report.findings)).toMatchObject({ score: 50, finalScoreCap: 75 });
    },
    SLOW,
  );
});
