/**
 * Scans of fixture submissions through the real scanners (Semgrep from the project venv, ESLint
 * in-process): findings, severities, the security score and cap, evasion attempts, skips and
 * scanner failures. Vulnerable fixture code lives in test/fixtures/scan (ignored by lint).
 */
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ScanReport } from "@bouts/contracts";
import { ScanReportSchema } from "@bouts/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanSubmission } from "../../src/scan/index.ts";
import { computeSecurityScore } from "../../src/scan/severity.ts";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/scan");
const SLOW = 180_000;

const at = (r: ScanReport, file: string) => r.findings.filter((f) => f.file === file);

describe("scanSubmission", () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), "bouts-scan-test-"));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it(
    "finds the SQL injection in a working solution and caps its final score at 75",
    async () => {
      const report = await scanSubmission(path.join(FIXTURES, "insecure-node"), {
        runtime: "node",
      });
      expect(ScanReportSchema.parse(report)).toEqual(report);
      expect(report.status).toBe("complete");
      expect(report.findings).toEqual([
        expect.objectContaining({
          tool: "semgrep",
          rule: "bouts.js.sql-injection.string-built-query",
          cwe: "CWE-89",
          severity: "critical",
          file: "src/server.js",
          line: 12,
        }),
      ]);
      expect(computeSecurityScore(report.findings)).toEqual({
        score: 75,
        counts: { critical: 1, high: 0, medium: 0, low: 0 },
        finalScoreCap: 75,
      });
      expect(report.notMeasured).toEqual([expect.objectContaining({ check: "dependencies" })]);
      expect(report.tools.map((t) => [t.tool, t.status])).toEqual([
        ["semgrep", "ok"],
        ["eslint", "ok"],
        ["deps", "not-run"],
      ]);
    },
    SLOW,
  );

  it(
    "reports no findings for the parameterized version",
    async () => {
      const report = await scanSubmission(path.join(FIXTURES, "clean-node"), { runtime: "node" });
      expect(report.status).toBe("complete");
      expect(report.findings).toEqual([]);
      expect(computeSecurityScore(report.findings).score).toBe(100);
    },
    SLOW,
  );

  it(
    "ignores the submission's ignore files, suppression comments and lint configs",
    async () => {
      const dir = path.join(work, "evasion");
      await cp(path.join(FIXTURES, "evasion"), dir, { recursive: true });
      // Over the 1 MiB per-file limit: skipped with the reason, never silently clean.
      const line = 'const password = "hunter2hunter2";\n';
      await writeFile(
        path.join(dir, "lib/huge.js"),
        line.repeat(Math.ceil((1.1 * 2 ** 20) / line.length)),
      );

      const report = await scanSubmission(dir, { runtime: "node" });
      expect(report.status).toBe("partial");
      // Split across variables, called through a bound alias, under // nosemgrep and
      // /* eslint-disable */, in a folder listed in .semgrepignore.
      expect(at(report, "lib/query.js")).toEqual([
        expect.objectContaining({ cwe: "CWE-89", severity: "critical", line: 8 }),
        expect.objectContaining({ cwe: "CWE-78", severity: "critical", line: 14 }),
      ]);
      // The same command injection seen by Semgrep and ESLint is one finding.
      expect(at(report, "lib/query.js")[1]!.message).toContain("also reported by eslint");
      // Template literals, including SQL assembled from an interpolated fragment.
      expect(at(report, "lib/templated.ts").map((f) => [f.cwe, f.line])).toEqual([
        ["CWE-89", 4],
        ["CWE-89", 7],
      ]);
      // A folder named like tests is still the submission's code.
      expect(at(report, "tests/helpers.ts")).toEqual([
        expect.objectContaining({ cwe: "CWE-798", severity: "critical", line: 2 }),
      ]);
      expect(report.skipped).toEqual([
        { file: "lib/huge.js", reason: expect.stringMatching(/too large/) as string },
      ]);
    },
    SLOW,
  );

  it(
    "reports the scan unavailable, not clean, when Semgrep crashes",
    async () => {
      const report = await scanSubmission(path.join(FIXTURES, "insecure-node"), {
        runtime: "node",
        semgrepCoreBin: "/bin/false",
      });
      expect(report.status).toBe("unavailable");
      expect(report.tools[0]).toMatchObject({ tool: "semgrep", status: "failed" });
    },
    SLOW,
  );

  it(
    "reports the scan unavailable when Semgrep cannot be started",
    async () => {
      const report = await scanSubmission(path.join(FIXTURES, "clean-node"), {
        runtime: "node",
        semgrepCoreBin: path.join(work, "no-such-semgrep"),
      });
      expect(report.status).toBe("unavailable");
      expect(report.tools[0]!.detail).toMatch(/could not start/);
    },
    SLOW,
  );

  it(
    "reports a scan stopped by its deadline as partial, never clean, with one critical finding",
    async () => {
      // A Semgrep that never ends stands for a file that stalls the scanner.
      const stall = path.join(work, "stalling-semgrep");
      await writeFile(stall, "#!/bin/sh\nexec sleep 600\n", { mode: 0o755 });
      const t0 = performance.now();
      const report = await scanSubmission(path.join(FIXTURES, "insecure-node"), {
        runtime: "node",
        timeoutMs: 1500,
        semgrepCoreBin: stall,
      });
      expect(performance.now() - t0).toBeLessThan(10_000);
      expect(ScanReportSchema.parse(report)).toEqual(report);
      expect(report.status).toBe("partial");
      expect(report.deadline).toEqual({ ms: 1500, exhausted: true });
      expect(report.tools[0]).toMatchObject({ tool: "semgrep", status: "not-run" });
      expect(report.tools[0]!.detail).toMatch(/deadline of 1500 ms/);
      expect(report.skipped.map((s) => s.reason).join("\n")).toMatch(
        /not scanned by semgrep: the scan's deadline of 1500 ms ran out/,
      );
      const deadline = report.findings.filter((f) => f.rule === "bouts.scan-deadline-exhausted");
      expect(deadline).toHaveLength(1);
      expect(deadline[0]!.severity).toBe("critical");
      expect(computeSecurityScore(report.findings).finalScoreCap).toBe(75);
    },
    SLOW,
  );
  it(
    "reports a scan the caller cancels as unavailable",
    async () => {
      const report = await scanSubmission(path.join(FIXTURES, "clean-node"), {
        runtime: "node",
        signal: AbortSignal.abort(),
      });
      expect(report.status).toBe("unavailable");
      expect(report.deadline?.exhausted).toBe(false);
    },
    SLOW,
  );
});
