/**
 * Every Semgrep rule's own positive and negative cases (`semgrep --test` over scan-rules), every
 * vulnerability rule's CWE placed in the engineering spec's severity table, and the dynamic-code
 * rules marked as unscanned code (no CWE: they are reported as not scanned, never as findings).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { resolveSemgrepBin, SEMGREP_RULES_DIR } from "../../src/scan/semgrep.ts";
import { CWE_SEVERITY } from "../../src/scan/severity.ts";

const run = promisify(execFile);

const ruleFiles = ["javascript", "python"].flatMap((lang) =>
  readdirSync(path.join(SEMGREP_RULES_DIR, lang))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => path.join(SEMGREP_RULES_DIR, lang, f)),
);

describe("semgrep rules", () => {
  it("every vulnerability rule has a CWE the severity table places", () => {
    expect(ruleFiles.length).toBeGreaterThanOrEqual(28);
    for (const file of ruleFiles.filter((f) => !f.endsWith("dynamic-code.yaml"))) {
      const text = readFileSync(file, "utf8");
      const ids = [...text.matchAll(/^\s+- id: (\S+)$/gm)].map((m) => m[1]);
      const cwes = [...text.matchAll(/^\s+cwe: "(CWE-\d+)"$/gm)].map((m) => m[1]!);
      expect(ids.length, file).toBeGreaterThan(0);
      expect(cwes.length, file).toBe(ids.length);
      for (const cwe of cwes) expect(CWE_SEVERITY[cwe], `${file}: ${cwe}`).toBeDefined();
    }
  });

  it("dynamic-code rules carry no CWE and say how the runner reports them", () => {
    const files = ruleFiles.filter((f) => f.endsWith("dynamic-code.yaml"));
    expect(files).toHaveLength(2);
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      const ids = [...text.matchAll(/^\s+- id: (\S+)$/gm)].map((m) => m[1]);
      const modes = [...text.matchAll(/^\s+unscanned: (\S+)$/gm)].map((m) => m[1]);
      expect(ids.length, file).toBeGreaterThanOrEqual(8);
      expect(modes.length, file).toBe(ids.length);
      for (const mode of modes) {
        expect(['"yes"', "resolve-require", "resolve-import"], file).toContain(mode);
      }
      expect(text, file).not.toMatch(/^\s+cwe:/m);
    }
  });

  it("covers every class the engineering spec names in both languages", () => {
    const classes = (lang: string) =>
      readdirSync(path.join(SEMGREP_RULES_DIR, lang))
        .filter((f) => f.endsWith(".yaml"))
        .map((f) => f.slice(0, -5))
        .sort();
    const expected = [
      "auth-bypass",
      "command-injection",
      "dynamic-code",
      "error-details-exposure",
      "hardcoded-credentials",
      "insecure-deserialization",
      "insecure-randomness",
      "missing-csrf",
      "missing-security-headers",
      "path-traversal",
      "sql-injection",
      "verbose-logging",
      "weak-password-hashing",
      "xss",
    ];
    // Prototype pollution has no Python counterpart (no shared prototype to reach).
    expect(classes("javascript")).toEqual([...expected, "prototype-pollution"].sort());
    expect(classes("python")).toEqual(expected);
  });

  it("pass their own positive and negative test cases (semgrep --test)", async () => {
    const { stdout } = await run(
      resolveSemgrepBin(),
      ["--test", "--metrics=off", "--json", SEMGREP_RULES_DIR],
      {
        env: { ...process.env, SEMGREP_ENABLE_VERSION_CHECK: "0", SEMGREP_SEND_METRICS: "off" },
        maxBuffer: 64 * 2 ** 20,
      },
    ).catch((e: { stdout?: string; stderr?: string }) => {
      throw new Error(`semgrep --test failed:\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
    });
    const report = JSON.parse(stdout) as {
      results: Record<string, { checks: Record<string, { passed: boolean }> }>;
    };
    const checks = Object.values(report.results).flatMap((r) => Object.entries(r.checks));
    expect(checks.length).toBeGreaterThanOrEqual(60);
    expect(checks.filter(([, c]) => !c.passed).map(([id]) => id)).toEqual([]);
  }, 180_000);
});
